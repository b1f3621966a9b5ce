import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../built-cli.js';
import { docBlocks } from './blocks.js';

// The README's first library example is what a newcomer pastes first: it must not only compile
// (typescript.test.ts) but work as written. It runs here against a real project folder, with its
// placeholder root replaced, and must end in the edit it shows (a first edit without a read of the
// place answers NOT_READ, which is how the example failed before).

const run = promisify(execFile);
let project: string;

beforeAll(async () => {
  await ensureBuilt();
  project = mkdtempSync(join(tmpdir(), 'editgate-readme-run-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'readme-run', type: 'module' }));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(REPO, join(project, 'node_modules', 'editgate'), 'dir');
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the docs’ first library example', () => {
  it('runs as written and makes its edit', async () => {
    const block = docBlocks().find(
      (candidate) => candidate.section === 'The library' && candidate.lang === 'ts',
    );
    expect(block, 'the "The library" section has a ts block').toBeDefined();
    const projectRoot = join(project, 'app');
    mkdirSync(join(projectRoot, 'src'), { recursive: true });
    writeFileSync(join(projectRoot, 'src', 'app.ts'), 'const a = 1;\nconsole.log(a);\n');
    expect(block!.text).toContain("'/path/to/project'");
    const source = block!.text.replace("'/path/to/project'", JSON.stringify(projectRoot));
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(project, 'example.mjs'), outputText);
    const { stdout } = await run(process.execPath, ['example.mjs'], { cwd: project });
    expect(stdout).toMatch(/^true /m);
    expect(readFileSync(join(projectRoot, 'src', 'app.ts'), 'utf8')).toBe('const a = 2;\nconsole.log(a);\n');
  }, 120_000);
});
