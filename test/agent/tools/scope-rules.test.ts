import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { globTool } from '../../../src/agent/tools/glob.js';
import { grepTool, ripgrepAvailable } from '../../../src/agent/tools/grep.js';
import { listDirTool } from '../../../src/agent/tools/list-dir.js';
import { WorkspaceScope } from '../../../src/agent/tools/scope.js';

// Issue #26: what list_dir, glob and grep may see, with a config that brings its own deny list and with
// globs a hostile repository wrote.

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) await rm(made.pop()!, { recursive: true, force: true });
});

const signal = new AbortController().signal;
const engines = ripgrepAvailable() ? ['ripgrep', 'JavaScript'] : ['JavaScript'];

async function workspace(files: Record<string, string>): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-scope-rules-')));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe('a config with its own deny list (no .git in it)', () => {
  const files = {
    '.git/config': '[remote "origin"] token = SECRET\n',
    'vendor/lib/.git/HEAD': 'SECRET\n',
    'editgate.config.json': '{"deny": ["secrets/**"]}\n',
    'secrets/key': 'SECRET\n',
    'src/a.ts': 'export const SECRET_NAME = 1;\n',
  };

  it('list_dir shows neither .git nor editgate.config.json, and refuses to list .git', async () => {
    const scope = await WorkspaceScope.create(await workspace(files), ['secrets/**']);
    const list = listDirTool(scope);
    expect((await list.run({}, { signal })).message).toBe('./\nsrc/\nvendor/');
    expect((await list.run({ path: 'vendor/lib' }, { signal })).message).toBe('vendor/lib/\n(empty)');
    expect((await list.run({ path: '.git' }, { signal })).code).toBe('DENIED_POLICY');
    expect((await list.run({ path: 'vendor/lib/.git' }, { signal })).code).toBe('DENIED_POLICY');
  });

  it.each(engines)('grep (%s) finds nothing in .git, at any depth', async (engine) => {
    const scope = await WorkspaceScope.create(await workspace(files), ['secrets/**']);
    const grep = grepTool(scope, { ripgrep: engine === 'ripgrep' });
    expect((await grep.run({ pattern: 'SECRET' }, { signal })).message).toBe(
      'src/a.ts:1: export const SECRET_NAME = 1;',
    );
    expect((await grep.run({ pattern: 'deny' }, { signal })).message).toBe('No matches for deny.');
  });

  it('glob lists no file of .git', async () => {
    const scope = await WorkspaceScope.create(await workspace(files), ['secrets/**']);
    expect((await globTool(scope).run({ pattern: '**' }, { signal })).message).toBe('src/a.ts');
  });
});

describe('globs a hostile repository wrote', () => {
  const hostile = '*a*a*a*a*a*a*a*a*b';
  const long = 'a'.repeat(60);

  it('a .gitignore line does not stall list_dir, glob or grep, and still answers right', async () => {
    const root = await workspace({
      '.gitignore': `${hostile}\n${'*a'.repeat(20)}c\n`,
      [long]: 'needle\n',
      [`${long}b`]: 'needle\n',
    });
    const scope = await WorkspaceScope.create(root, []);
    const listed = await listDirTool(scope).run({}, { signal });
    expect(listed.message).toBe(`./\n.gitignore\n${long}\n(1 entries ignored by .gitignore are not listed.)`);
    const globbed = await globTool(scope).run({ pattern: hostile.replace(/b$/, 'a') }, { signal });
    expect(globbed.message).toBe(long);
    const grep = grepTool(scope, { ripgrep: false });
    expect((await grep.run({ pattern: 'needle', glob: `${'*a'.repeat(25)}` }, { signal })).message).toBe(
      `${long}:1: needle`,
    );
  });

  it('a deny glob does not stall the scope', async () => {
    const root = await workspace({ [long]: 'x\n', [`${long}b`]: 'x\n' });
    const scope = await WorkspaceScope.create(root, [hostile]);
    expect((await listDirTool(scope).run({}, { signal })).message).toBe(`./\n${long}`);
  });
});
