import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/agent/tools/bash.js';
import { CommandPolicy } from '../../src/agent/tools/command-policy.js';
import { editKit } from '../../src/agent/tools/edit-kit.js';
import { type FileChange, FileChangeTracker } from '../../src/agent/tools/file-changes.js';
import { IgnoreRules } from '../../src/agent/tools/gitignore.js';
import { globTool } from '../../src/agent/tools/glob.js';
import { grepTool, ripgrepAvailable } from '../../src/agent/tools/grep.js';
import { listDirTool } from '../../src/agent/tools/list-dir.js';
import { WorkspaceScope } from '../../src/agent/tools/scope.js';
import type { Decision } from '../../src/gate/approval.js';
import { createEditTools } from '../../src/tools/index.js';
import { DEFAULT_DENY } from '../../src/workspace/guard.js';

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) await rm(made.pop()!, { recursive: true, force: true });
});

async function workspace(files: Record<string, string>): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-agent-tools-')));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const signal = new AbortController().signal;

describe('.gitignore rules', () => {
  it('match names at any depth, anchored paths, folders only, and re-inclusion', () => {
    const rules = IgnoreRules.empty()
      .with('', 'node_modules/\n*.log\n!keep.log\n/build\n# comment\n')
      .with('src', 'gen/*.ts\n');
    expect(rules.ignores('node_modules', true)).toBe(true);
    expect(rules.ignores('a/node_modules', true)).toBe(true);
    expect(rules.ignores('node_modules', false)).toBe(false);
    expect(rules.ignores('x/debug.log', false)).toBe(true);
    expect(rules.ignores('x/keep.log', false)).toBe(false);
    expect(rules.ignores('build', true)).toBe(true);
    expect(rules.ignores('src/build', true)).toBe(false);
    expect(rules.ignores('src/gen/a.ts', false)).toBe(true);
    expect(rules.ignores('gen/a.ts', false)).toBe(false);
  });
});

describe('exploration tools', () => {
  async function tools(files: Record<string, string>) {
    const root = await workspace(files);
    const scope = await WorkspaceScope.create(root, [...DEFAULT_DENY, 'secrets/**']);
    return {
      root,
      scope,
      list: listDirTool(scope),
      glob: globTool(scope),
      grep: grepTool(scope, { ripgrep: false }),
    };
  }

  it('list_dir lists folders with /, counts ignored entries, never lists denied ones', async () => {
    const { list, root } = await tools({
      '.gitignore': 'dist/\n',
      'src/a.ts': 'a',
      'dist/a.js': 'x',
      'README.md': 'r',
      'secrets/key': 'k',
      '.git/config': 'c',
    });
    await symlink('/etc', join(root, 'etc-link'));
    const result = await list.run({}, { signal });
    expect(result.ok).toBe(true);
    expect(result.message).toBe(
      './\n.gitignore\nREADME.md\nsrc/\netc-link@ (symbolic link)\n(1 entries ignored by .gitignore are not listed.)',
    );
    expect((await list.run({ path: '../' }, { signal })).code).toBe('OUTSIDE_ROOT');
    expect((await list.run({ path: 'secrets' }, { signal })).code).toBe('DENIED_POLICY');
    expect((await list.run({ path: 'etc-link' }, { signal })).code).toBe('OUTSIDE_ROOT');
    expect((await list.run({ path: 'nope' }, { signal })).code).toBe('FILE_NOT_FOUND');
  });

  it('glob finds files by pattern, skipping ignored and denied ones, paged', async () => {
    const files: Record<string, string> = { '.gitignore': 'gen\n', 'gen/x.ts': '', 'secrets/s.ts': '' };
    for (let i = 0; i < 205; i++) files[`src/f${String(i).padStart(3, '0')}.ts`] = '';
    const { glob } = await tools(files);
    const first = await glob.run({ pattern: '**/*.ts' }, { signal });
    expect(first.summary).toBe('205 files');
    expect(first.message.split('\n')[0]).toBe('src/f000.ts');
    expect(first.message).toContain('Next: glob with offset=200.');
    expect(first.message).not.toContain('gen/');
    expect(first.message).not.toContain('secrets');
    const second = await glob.run({ pattern: '**/*.ts', offset: 200 }, { signal });
    expect(second.message.split('\n')).toEqual([
      'src/f200.ts',
      'src/f201.ts',
      'src/f202.ts',
      'src/f203.ts',
      'src/f204.ts',
    ]);
  });

  it.each(ripgrepAvailable() ? ['ripgrep', 'JavaScript'] : ['JavaScript'])(
    'grep (%s) answers path:line: text, skips binary, ignored and denied files, and refuses a bad pattern',
    async (engine) => {
      const { root, scope } = await tools({
        '.gitignore': '*.min.js\n',
        'a.ts': 'const x = 1;\nlet y = x;\n',
        'b.min.js': 'x',
        'sub/c.ts': 'x\n',
        'secrets/s.ts': 'x\n',
        '.hidden.ts': 'nothing here\n',
      });
      await writeFile(join(root, 'bin.dat'), Buffer.from([0x78, 0, 1, 2]));
      const grep = grepTool(scope, { ripgrep: engine === 'ripgrep' });
      const result = await grep.run({ pattern: '\\bx\\b' }, { signal });
      expect(result.message).toBe('a.ts:1: const x = 1;\na.ts:2: let y = x;\nsub/c.ts:1: x');
      expect(result.summary).toBe('3 matches');
      expect((await grep.run({ pattern: 'x', glob: 'sub/**' }, { signal })).message).toBe('sub/c.ts:1: x');
      expect((await grep.run({ pattern: 'here' }, { signal })).message).toBe('.hidden.ts:1: nothing here');
      expect((await grep.run({ pattern: '(' }, { signal })).code).toBe('INVALID_INPUT');
      expect((await grep.run({ pattern: 'zzz' }, { signal })).message).toBe('No matches for zzz.');
    },
  );

  it('grep without ripgrep answers a pattern built to backtrack at once (issue #26, tried again)', async () => {
    // JavaScript's RegExp took minutes for `(a|a)*b` against this line, and Esc could not stop it.
    const { scope } = await tools({ 'hostile.txt': `${'a'.repeat(60)}\n`, 'ok.txt': 'aab\n' });
    const grep = grepTool(scope, { ripgrep: false });
    expect((await grep.run({ pattern: '(a|a)*b' }, { signal })).message).toBe('ok.txt:1: aab');
    expect((await grep.run({ pattern: '(a+)+$' }, { signal })).summary).toBe('1 match');
    expect((await grep.run({ pattern: 'A+B', ignore_case: true }, { signal })).message).toBe('ok.txt:1: aab');
    expect((await grep.run({ pattern: '(a)\\1' }, { signal })).code).toBe('INVALID_INPUT');
  });
});

describe('bash', () => {
  async function setup(
    files: Record<string, string>,
    ask: Decision = 'once',
    rules = [] as { tool?: string; path?: string; action: 'allow' | 'ask' | 'deny' }[],
  ) {
    const root = await workspace(files);
    const scope = await WorkspaceScope.create(root, [...DEFAULT_DENY]);
    const asked: string[] = [];
    const reported: FileChange[][] = [];
    const tool = bashTool({
      root,
      policy: new CommandPolicy(rules),
      ask: async (request) => {
        asked.push(request.command);
        return ask;
      },
      tracker: new FileChangeTracker(scope),
      onChanges: async (changes) => {
        reported.push(changes);
      },
    });
    return { root, tool, asked, reported };
  }

  it('asks, runs in the root, and reports the exit code and output', async () => {
    const { tool, asked } = await setup({});
    const result = await tool.run({ command: 'echo hi; echo err >&2; exit 3' }, { signal });
    expect(asked).toEqual(['echo hi; echo err >&2; exit 3']);
    expect(result).toMatchObject({ ok: false, code: 'EXIT_CODE', summary: 'exit 3' });
    expect(result.message).toMatch(/^Exit code 3 \(\d+\.\d s\)\.\nhi\nerr$/);
  });

  it('a denial with a reason reaches the model; nothing runs', async () => {
    const { tool, root } = await setup({}, { deny: 'use the Makefile' });
    const result = await tool.run({ command: 'touch made' }, { signal });
    expect(result.message).toBe(
      'bash failed (DENIED_USER): the user did not run this command: use the Makefile',
    );
    await expect(readFile(join(root, 'made'))).rejects.toThrow();
  });

  it('a policy rule runs a command without asking; a deny rule refuses it', async () => {
    const { tool, asked } = await setup({}, 'deny', [
      { tool: 'bash', path: 'echo', action: 'allow' },
      { tool: 'bash', path: 'rm', action: 'deny' },
    ]);
    expect((await tool.run({ command: 'echo ok' }, { signal })).ok).toBe(true);
    expect((await tool.run({ command: 'rm -f x' }, { signal })).code).toBe('DENIED_POLICY');
    expect(asked).toEqual([]);
  });

  it('reports the files the command created, changed and deleted, with their bytes before and after', async () => {
    const { tool, reported } = await setup({ 'a.txt': 'old\n', 'gone.txt': 'bye\n', 'same.txt': 's' });
    const result = await tool.run(
      { command: 'printf "new\\n" > a.txt; rm gone.txt; echo hi > made.txt; touch same.txt' },
      { signal },
    );
    expect(result.summary).toBe('exit 0 · 3 files changed');
    expect(result.message).toContain(
      'Files the command changed: a.txt (modified), gone.txt (deleted), made.txt (created).',
    );
    const changes = reported[0]!;
    expect(
      changes.map((c) => [c.relative, c.before?.toString() ?? c.before, c.after?.toString() ?? c.after]),
    ).toEqual([
      ['a.txt', 'old\n', 'new\n'],
      ['gone.txt', 'bye\n', null],
      ['made.txt', null, 'hi\n'],
    ]);
  });

  it('an interrupt ends the whole process group', async () => {
    const { tool } = await setup({});
    const controller = new AbortController();
    const started = tool.run({ command: 'sleep 30 & sleep 30; echo never' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const result = await started;
    expect(result).toMatchObject({ ok: false, code: 'CANCELLED', summary: 'interrupted' });
    expect(result.message).not.toContain('never');
  });

  it('a timeout ends the command', async () => {
    const { tool } = await setup({});
    const result = await tool.run({ command: 'sleep 30', timeout_ms: 100 }, { signal });
    expect(result).toMatchObject({ ok: false, code: 'TIMEOUT', summary: 'timed out' });
  });
});

describe("editgate's file tools in the chat (edit kit)", () => {
  const kit = (name: string) => {
    const tool = editKit(createEditTools({ root: tmpdir(), approve: 'deny' })).find((t) => t.name === name);
    if (!tool) throw new Error(`no ${name} in the kit`);
    return tool;
  };

  it("names a call's files as the tool describes them: a patch's every file, a move's both names (#27)", () => {
    const patch = kit('apply_patch');
    const input = {
      patch:
        '*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n*** Delete File: c.ts\n*** End Patch\n',
    };
    expect(patch.paths?.(input)).toEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(patch.target(input)).toBe('a.ts, b.ts, c.ts');
    expect(kit('edit_file').paths?.({ path: 'src/x.ts' })).toEqual(['src/x.ts']);
    expect(kit('read_file').target({ file_path: 'r.md' })).toBe('r.md');
  });

  it('names no file for input that names none, without throwing', () => {
    expect(kit('write_file').paths?.({ file_path: 3 })).toEqual([]);
    expect(kit('write_file').target({})).toBe('');
    expect(kit('apply_patch').paths?.({ patch: 'not a patch' })).toEqual([]);
  });
});
