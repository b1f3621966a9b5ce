// Language servers (#32 item 4): the time a warm server adds to a change. One root with a small TypeScript
// project and a Python file; the servers (typescript-language-server, pyright, this repository's
// devDependencies) are started and warmed first. Then each round makes the same edit through tools without
// servers and through tools with them, in turn, so load weighs on both alike; the added time per change is
// the difference. Reported: median and p95 per server. Rounds: EDITGATE_BENCH_ROUNDS (default 30).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeLanguageServers, createEditTools } from '../dist/index.js';
import { formatMs, median, printTable, tempDir } from './lib.mjs';

const ROUNDS = Number(process.env.EDITGATE_BENCH_ROUNDS ?? 30);
const BIN = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url));
const { path: root } = tempDir('editgate-bench-lsp-');
writeFileSync(join(root, 'tsconfig.json'), '{ "compilerOptions": { "strict": true, "noEmit": true } }\n');
const lines = (n, line) => Array.from({ length: n }, (_, i) => line(i)).join('\n');
writeFileSync(
  join(root, 'a.ts'),
  `${lines(200, (i) => `export function f${i}(x: number): number {\n  return x * ${i};\n}`)}\nexport const total: number = f1(2);\n`,
);
writeFileSync(
  join(root, 'b.py'),
  `${lines(200, (i) => `def f${i}(x: int) -> int:\n    return x * ${i}\n\n`)}\ntotal: int = f1(2)\n`,
);

const servers = {
  typescript: { command: [join(BIN, 'typescript-language-server'), '--stdio'], files: ['**/*.ts'] },
  python: { command: [join(BIN, 'pyright-langserver'), '--stdio'], files: ['**/*.py'] },
};
const plain = createEditTools({ root, approve: 'allow', requireReadBeforeEdit: false });
const checked = createEditTools({
  root,
  approve: 'allow',
  requireReadBeforeEdit: false,
  languageServers: servers,
  languageServerBudgetMs: 600_000,
});

/** One edit and back (two changes), timed; the edit flips a constant. */
async function timedEdits(tools, path, from, to) {
  const start = performance.now();
  for (const [a, b] of [
    [from, to],
    [to, from],
  ]) {
    const result = await tools.execute('edit_file', { file_path: path, old_string: a, new_string: b });
    if (!result.ok) throw new Error(result.message);
  }
  return (performance.now() - start) / 2;
}

const cases = [
  ['typescript', 'a.ts', 'f1(2)', 'f1(3)'],
  ['python', 'b.py', 'f1(2)', 'f1(3)'],
];
const started = performance.now();
await Promise.all(cases.map(([, path, from, to]) => timedEdits(checked, path, from, to)));
console.log(`servers started and warm in ${formatMs(performance.now() - started)}`);

const rows = [];
for (const [name, path, from, to] of cases) {
  const added = [];
  for (let round = 0; round < ROUNDS; round++) {
    const without = await timedEdits(plain, path, from, to);
    const withServer = await timedEdits(checked, path, from, to);
    added.push(withServer - without);
  }
  added.sort((a, b) => a - b);
  const p95 = added[Math.min(added.length - 1, Math.ceil(added.length * 0.95) - 1)];
  rows.push([
    name,
    String(ROUNDS * 2),
    formatMs(median(added)),
    formatMs(p95),
    formatMs(added[0]),
    formatMs(added.at(-1)),
  ]);
}
printTable(['server', 'changes', 'added median', 'added p95', 'min', 'max'], rows);
await closeLanguageServers();
