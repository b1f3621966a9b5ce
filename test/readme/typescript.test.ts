import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../built-cli.js';
import { docBlocks } from './blocks.js';

// Every TypeScript block of the README compiles under tsc --strict, each as its own module, importing
// 'editgate' as a dependency resolves it: through node_modules/editgate (a link to this repository, as npm
// link or a file: dependency makes it), its package.json exports and the built .d.ts in dist/.

const run = promisify(execFile);
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * Names the README's snippets use for the reader's own code (the Options block shows `root`, `approve`
 * and a linter, a display and a progress bar of the reader's): declared with the types the snippets need.
 */
const PLACEHOLDERS = `declare const root: string;
declare const approve: import('editgate').Approver;
declare function runLinter(path: string): Promise<string>;
declare function show(text: string): void;
declare const bar: { update(fraction: number): void };
`;

/** Packages the snippets import besides editgate, resolved from this repository's install. */
const SNIPPET_DEPENDENCIES = ['@anthropic-ai/sdk', 'openai', 'ai', '@types/node'];

let project: string;

beforeAll(async () => {
  await ensureBuilt();
  project = mkdtempSync(join(tmpdir(), 'editgate-readme-ts-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'readme-snippets', type: 'module' }));
  const link = (name: string, target: string) => {
    mkdirSync(dirname(join(project, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(project, 'node_modules', name), 'dir');
  };
  link('editgate', REPO);
  for (const name of SNIPPET_DEPENDENCIES) link(name, join(REPO, 'node_modules', name));
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the docs’ TypeScript', () => {
  const blocks = docBlocks().filter((block) => block.lang === 'ts' || block.lang === 'typescript');

  it('has blocks to check (the library, its options, an adapter)', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  it('compiles, every block, under tsc --strict', async () => {
    const files = blocks.map((block, index) => {
      const name = `block-${index + 1}.ts`;
      // Each block is a module of its own (its imports make it one; export {} makes sure).
      writeFileSync(join(project, name), `${block.text}\nexport {};\n`);
      return { name, block };
    });
    writeFileSync(join(project, 'placeholders.d.ts'), PLACEHOLDERS);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'node16',
          moduleResolution: 'node16',
          types: ['node'],
          skipLibCheck: true,
        },
        files: ['placeholders.d.ts', ...files.map((file) => file.name)],
      }),
    );
    const output = await run(process.execPath, [TSC, '-p', project], { cwd: project }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // Errors point at README lines: "block-2.ts(5,3)" becomes "docs/library.md:118:3".
    const located = output.replace(/block-(\d+)\.ts\((\d+),(\d+)\)/g, (_all, index, line, column) => {
      const block = files[Number(index) - 1]!.block;
      return `${block.file}:${block.line + Number(line) - 1}:${column} (${block.section})`;
    });
    expect(located).toBe('');
  }, 120_000);
});
