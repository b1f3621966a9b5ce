import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningLanguageServers } from '../../src/checks/language-servers.js';
import type { Finding } from '../../src/core/findings.js';
import { closeLanguageServers } from '../../src/gate/diagnostics-check.js';
import type { Policy } from '../../src/gate/policy.js';
import { createEditTools, type EditTools } from '../../src/tools/index.js';
import { readAll, scriptedApprover } from '../tools/workspace-fixture.js';

/**
 * Language servers' diagnostics as a gate check (#32 item 4), with the real typescript-language-server and
 * pyright (devDependencies). One root for the file, so each server starts once: the first change waits
 * for it (a long budget), the rest find it warm.
 */
const BIN = resolve(import.meta.dirname, '../../node_modules/.bin');
const SERVERS = {
  typescript: { command: [join(BIN, 'typescript-language-server'), '--stdio'], files: ['**/*.ts'] },
  python: { command: [join(BIN, 'pyright-langserver'), '--stdio'], files: ['**/*.py'] },
};
/** Long enough for a cold server on a loaded machine; the budget test sets its own. */
const WAIT = 240_000;

const TS =
  'export function add(a: number, b: number): number {\n  return a + b;\n}\nexport const total: number = add(1, 2);\n';
const PY = 'def add(a: int, b: int) -> int:\n    return a + b\n\n\ntotal: int = add(1, 2)\n';

let root: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-lsp-')));
  await writeFile(join(root, 'tsconfig.json'), '{ "compilerOptions": { "strict": true, "noEmit": true } }\n');
  await writeFile(join(root, 'a.ts'), TS);
  await writeFile(join(root, 'b.py'), PY);
  // Start both servers (cold: tens of seconds under load) with a change they find nothing in.
  const tools = toolsWith({ approve: 'allow' });
  await Promise.all([edit(tools, 'a.ts', 'a + b', 'b + a'), edit(tools, 'b.py', 'a + b', 'b + a')]);
}, WAIT + 60_000);

afterAll(async () => {
  await closeLanguageServers();
  expect(runningLanguageServers()).toBe(0);
  await rm(root, { recursive: true, force: true });
});

function toolsWith(options: {
  approve: Parameters<typeof createEditTools>[0]['approve'];
  policy?: Policy;
  budgetMs?: number;
  servers?: object;
}): EditTools {
  return createEditTools({
    root,
    approve: options.approve,
    ...(options.policy ? { policy: options.policy } : {}),
    languageServers: (options.servers ?? SERVERS) as never,
    languageServerBudgetMs: options.budgetMs ?? WAIT,
  });
}

async function edit(tools: EditTools, path: string, from: string, to: string) {
  await readAll(tools, path);
  return tools.execute('edit_file', { file_path: path, old_string: from, new_string: to });
}

const diagnostics = (findings: Finding[] | undefined) =>
  (findings ?? []).filter((f) => f.kind === 'diagnostic');

describe('language servers in the gate (real servers)', () => {
  it(
    'typescript: an edit that adds a type error is flagged before the write, with the message; its fix is not',
    async () => {
      const person = scriptedApprover('once', 'once');
      const tools = toolsWith({ approve: person.approver });
      const result = await edit(tools, 'a.ts', 'add(1, 2)', 'add(1, "2")');
      expect(result.ok).toBe(true);
      expect(diagnostics(person.asked[0]!.findings)).toEqual([
        expect.objectContaining({
          path: 'a.ts',
          line: 4,
          severity: 'info',
          source: 'lsp:typescript',
          message: expect.stringMatching(
            /not assignable to parameter of type 'number'.*\(typescript 2345: an error this change adds\)/,
          ),
        }),
      ]);
      // The model is told too.
      expect(result.message).toMatch(/a\.ts:4: Argument of type 'string'/);
      // The fix adds nothing, though the file had an error before it.
      const fix = await edit(tools, 'a.ts', 'add(1, "2")', 'add(1, 2)');
      expect(fix.ok).toBe(true);
      expect(diagnostics(person.asked[1]!.findings)).toEqual([]);
    },
    WAIT,
  );

  it(
    "typescript: an existing error moved by the change is not the change's",
    async () => {
      await writeFile(join(root, 'c.ts'), 'export const broken: number = "x";\nexport const fine = 1;\n');
      const person = scriptedApprover('once');
      const tools = toolsWith({ approve: person.approver });
      const result = await edit(tools, 'c.ts', 'export const broken', '// a comment\nexport const broken');
      expect(result.ok).toBe(true);
      expect(diagnostics(person.asked[0]!.findings)).toEqual([]);
    },
    WAIT,
  );

  it(
    'python (pyright): an edit that adds a type error is flagged; one that leaves the file clean is not',
    async () => {
      const person = scriptedApprover('once', 'once');
      const tools = toolsWith({ approve: person.approver });
      expect((await edit(tools, 'b.py', 'add(1, 2)', 'add(1, "2")')).ok).toBe(true);
      expect(diagnostics(person.asked[0]!.findings)).toEqual([
        expect.objectContaining({
          path: 'b.py',
          line: 5,
          source: 'lsp:python',
          message: expect.stringMatching(
            /"Literal\['2'\]" cannot be assigned to parameter "b".*Pyright reportArgumentType: an error this change adds/,
          ),
        }),
      ]);
      expect((await edit(tools, 'b.py', 'add(1, "2")', 'add(2, 2)')).ok).toBe(true);
      expect(diagnostics(person.asked[1]!.findings)).toEqual([]);
    },
    WAIT,
  );

  it(
    'a rule with "diagnostics" refuses a change that adds one, past an allow rule, and writes nothing',
    async () => {
      const tools = toolsWith({
        approve: 'allow',
        policy: {
          rules: [
            { path: '**', action: 'allow' },
            { path: '**/*.ts', action: 'deny', change: { diagnostics: true } },
          ],
        },
      });
      const before = await readFile(join(root, 'a.ts'), 'utf8');
      const result = await edit(tools, 'a.ts', 'return b + a;', 'return String(a);');
      expect(result.ok).toBe(false);
      expect(result.message).toMatch(/language server's diagnostic/);
      expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe(before);
      // A change that adds none passes the same rule.
      expect((await edit(tools, 'a.ts', 'return b + a;', 'return a + b;')).ok).toBe(true);
    },
    WAIT,
  );

  it(
    'a budget that runs out shows the question without them, and says so',
    async () => {
      const person = scriptedApprover('once');
      const tools = toolsWith({ approve: person.approver, budgetMs: 1 });
      expect((await edit(tools, 'a.ts', 'add(1, 2)', 'add(1, "3")')).ok).toBe(true);
      expect(person.asked[0]!.findings).toEqual([
        expect.objectContaining({
          kind: 'rule',
          severity: 'info',
          source: 'check:lsp:typescript',
          message: 'type check by typescript did not finish in 0.001 s, so its diagnostics are not shown',
        }),
      ]);
      await edit(createEditTools({ root, approve: 'allow' }), 'a.ts', 'add(1, "3")', 'add(1, 2)');
    },
    WAIT,
  );

  it(
    'a server that does not exist gives a one-line note, and the change goes on',
    async () => {
      const person = scriptedApprover('once');
      const tools = toolsWith({
        approve: person.approver,
        servers: {
          missing: { command: ['editgate-no-such-language-server', '--stdio'], files: ['**/*.ts'] },
        },
      });
      const result = await edit(tools, 'a.ts', 'add(1, 2)', 'add(2, 1)');
      expect(result.ok).toBe(true);
      expect(person.asked[0]!.findings).toEqual([
        expect.objectContaining({
          kind: 'rule',
          source: 'check:lsp:missing',
          message:
            'type check by missing did not run: editgate-no-such-language-server was not found: install it, or correct languageServers.missing.command',
        }),
      ]);
      expect(result.message).toMatch(/editgate-no-such-language-server was not found/);
    },
    WAIT,
  );

  it('a file no server checks starts nothing', async () => {
    await writeFile(join(root, 'notes.md'), '# notes\n');
    const person = scriptedApprover('once');
    const tools = toolsWith({ approve: person.approver });
    expect((await edit(tools, 'notes.md', '# notes', '# more notes')).ok).toBe(true);
    expect(person.asked[0]!.findings ?? []).toEqual([]);
  });
});
