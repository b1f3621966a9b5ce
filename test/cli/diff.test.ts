import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pty from '@lydell/node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, REPO } from '../built-cli.js';

beforeAll(async () => {
  await ensureBuilt();
});

const folders: string[] = [];
afterAll(() => {
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});

const ESC = '\x1b';
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
const strip = (text: string) => text.replace(ANSI, '');

/** A fresh folder (its real path) holding `files`. */
function folder(files: Record<string, string | Buffer> = {}): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-diff-')));
  folders.push(root);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  return root;
}

interface Run {
  code: number | null;
  stdout: Buffer;
  text: string;
  stderr: string;
}

/** This environment without colour settings (vitest may force colour), plus `env`. */
function environment(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.FORCE_COLOR;
  delete base.NO_COLOR;
  delete base.COLUMNS;
  return { ...base, ...env };
}

/** `editgate diff ...args` with pipes for stdio (no terminal), run in `cwd`. */
function diff(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; stdin?: string; nodeArgs?: string[] },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), MAIN, 'diff', ...args], {
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: environment(options.env),
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out);
      resolve({ code, stdout, text: stdout.toString('utf8'), stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

const hasGit = spawnSync('git', ['--version']).status === 0;

/**
 * Applies `patch` with `git apply` in a fresh repository holding `files`, and returns the repository's
 * folder; the patch must apply cleanly (git's own config and the user's are kept out).
 */
function gitApply(patch: Buffer, files: Record<string, Buffer | string>): string {
  const repo = folder(files);
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };
  const git = (args: string[]) =>
    spawnSync('git', ['-c', 'core.autocrlf=false', ...args], { cwd: repo, env, encoding: 'buffer' });
  expect(git(['init', '-q']).status).toBe(0);
  writeFileSync(join(repo, 'change.patch'), patch);
  const check = git(['apply', '--check', '--whitespace=nowarn', 'change.patch']);
  expect(check.status, check.stderr.toString()).toBe(0);
  const applied = git(['apply', '--whitespace=nowarn', 'change.patch']);
  expect(applied.status, applied.stderr.toString()).toBe(0);
  return repo;
}

describe('editgate diff, piped (unified text, exit codes as diff(1))', () => {
  it('identical files: exit 0 and no output', async () => {
    const cwd = folder({ 'a.txt': 'one\ntwo\n', 'b.txt': 'one\ntwo\n' });
    const run = await diff(['a.txt', 'b.txt'], { cwd });
    expect(run).toMatchObject({ code: 0, text: '', stderr: '' });
  });

  it('different files: exit 1 and unified text with a/ b/ paths as given', async () => {
    const cwd = folder({ 'old/app.ts': 'const a = 1;\nconst b = 2;\nexport { a, b };\n' });
    writeFileSync(join(cwd, 'app.ts'), 'const a = 1;\nconst b = 3;\nexport { a, b };\n');
    const run = await diff(['old/app.ts', 'app.ts'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.text).toBe(
      [
        '--- a/old/app.ts',
        '+++ b/app.ts',
        '@@ -1,3 +1,3 @@',
        ' const a = 1;',
        '-const b = 2;',
        '+const b = 3;',
        ' export { a, b };',
        '',
      ].join('\n'),
    );
    expect(run.text).not.toContain(ESC);
  });

  it('an absolute path loses its leading slash after the prefix, as git writes it', async () => {
    const cwd = folder({ 'x.txt': 'a\n', 'y.txt': 'b\n' });
    const run = await diff([join(cwd, 'x.txt'), 'y.txt'], { cwd });
    expect(run.text.split('\n')[0]).toBe(`--- a/${join(cwd, 'x.txt').replace(/^\/+/, '')}`);
  });

  // Each pair: the patch, applied by git to the old file's bytes, must give the new file's bytes exactly.
  const cases: Array<[string, string | Buffer, string | Buffer, string[]?]> = [
    ['a changed line', 'a\nb\nc\n', 'a\nB\nc\n'],
    ['no final newline on either side', 'a\nb\nc', 'a\nb\nC'],
    ['a final newline added', 'a\nb\nc', 'a\nb\nc\n'],
    ['the final newline removed', 'a\nb\nc\n', 'a\nb\nc'],
    ['CRLF lines', 'one\r\ntwo\r\nthree\r\n', 'one\r\nTWO\r\nthree\r\n'],
    ['LF to CRLF only', 'one\ntwo\n', 'one\r\ntwo\r\n'],
    ['mixed line endings', 'a\r\nb\nc\r\n', 'a\nb\r\nc\r\n'],
    ['lone CR line ends', 'a\rb\rc\rd\n', 'a\rB\rc\rd\n'],
    ['a UTF-8 byte-order mark kept', '\uFEFFa\nb\nc\n', '\uFEFFA\nb\nc\n'],
    ['a UTF-8 byte-order mark removed', '\uFEFFa\nb\n', 'a\nb\n'],
    ['a UTF-8 byte-order mark added', 'a\nb\n', '\uFEFFa\nb\n'],
    ['non-ASCII text', 'naïve café\n日本語\n', 'naïve café!\n日本語\n'],
    [
      'latin1 with --encoding',
      Buffer.from('caf\xe9\nx\n', 'latin1'),
      Buffer.from('caf\xe9\nna\xefve\n', 'latin1'),
      ['--encoding', 'latin1'],
    ],
  ];
  it.skipIf(!hasGit).each(cases)('git apply accepts it: %s', async (_name, before, after, extra = []) => {
    const cwd = folder({ 'old/file.txt': before, 'file.txt': after });
    const run = await diff([...extra, 'old/file.txt', 'file.txt'], { cwd });
    expect(run.code, run.stderr).toBe(1);
    expect(run.text.startsWith('--- a/old/file.txt\n+++ b/file.txt\n@@ ')).toBe(true);
    // git takes the shorter name (file.txt) as the file to patch.
    const repo = gitApply(run.stdout, { 'file.txt': before });
    expect(readFileSync(join(repo, 'file.txt')).equals(Buffer.from(after))).toBe(true);
  });

  it('no final newline: the "\\ No newline at end of file" marker', async () => {
    const cwd = folder({ 'a.txt': 'x\ny', 'b.txt': 'x\nz' });
    const run = await diff(['a.txt', 'b.txt'], { cwd });
    expect(run.text).toContain('-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n');
  });

  it('CRLF lines keep their CR in the patch', async () => {
    const cwd = folder({ 'a.txt': 'one\r\ntwo\r\n', 'b.txt': 'one\r\n2\r\n' });
    const run = await diff(['a.txt', 'b.txt'], { cwd });
    expect(run.text).toBe('--- a/a.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+2\r\n');
  });

  it.skipIf(!hasGit)('/dev/null as OLD: a new file, which git apply creates', async () => {
    const cwd = folder({ 'new.ts': 'export const x = 1;\n' });
    const run = await diff(['/dev/null', 'new.ts'], { cwd });
    expect(run.code).toBe(1);
    expect(run.text).toBe('--- /dev/null\n+++ b/new.ts\n@@ -0,0 +1 @@\n+export const x = 1;\n');
    const repo = gitApply(run.stdout, {});
    expect(readFileSync(join(repo, 'new.ts'), 'utf8')).toBe('export const x = 1;\n');
  });

  it('/dev/null as NEW: a deleted file; both /dev/null: equal', async () => {
    const cwd = folder({ 'gone.ts': 'a\n' });
    const run = await diff(['gone.ts', '/dev/null'], { cwd });
    expect(run.code).toBe(1);
    expect(run.text).toBe('--- a/gone.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n');
    expect((await diff(['/dev/null', '/dev/null'], { cwd })).code).toBe(0);
  });

  it('"-" reads one side from standard input', async () => {
    const cwd = folder({ 'b.txt': 'one\nTWO\n' });
    const run = await diff(['-', 'b.txt'], { cwd, stdin: 'one\ntwo\n' });
    expect(run.code).toBe(1);
    expect(run.text).toContain('-two\n+TWO\n');
  });

  it('binary files are described, not dumped (exit 1); equal binary files are equal (exit 0)', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
    const other = Buffer.from(png);
    other[14] = 9;
    const cwd = folder({ 'a.png': png, 'b.png': other, 'c.png': png });
    const run = await diff(['a.png', 'b.png'], { cwd });
    expect(run).toMatchObject({ code: 1, text: 'Binary files a/a.png and b/b.png differ\n', stderr: '' });
    expect((await diff(['a.png', 'c.png'], { cwd })).code).toBe(0);
    const colored = await diff(['a.png', 'b.png'], { cwd, env: { FORCE_COLOR: '1' } });
    expect(colored.code).toBe(1);
    expect(strip(colored.text)).toContain('Binary file changes (15 B → 15 B); its bytes are not shown.');
    expect(colored.text).not.toContain('PNG');
  });

  it('UTF-16 with a byte-order mark is decoded as text', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('one\ntwo\n', 'utf16le')]);
    const cwd = folder({ 'a.txt': utf16, 'b.txt': 'one\nTWO\n', 'c.txt': 'one\ntwo\n' });
    const run = await diff(['a.txt', 'b.txt'], { cwd });
    expect(run.code).toBe(1);
    expect(run.text).toBe('--- a/a.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n');
    const same = await diff(['a.txt', 'c.txt'], { cwd });
    expect(same).toMatchObject({ code: 1, text: expect.stringContaining('differ only in encoding') });
  });
});

describe('editgate diff: trouble (exit 2, nothing on standard output)', () => {
  it('a missing file says so and how to diff against nothing', async () => {
    const cwd = folder({ 'a.txt': 'a\n' });
    const run = await diff(['a.txt', 'missing.txt'], { cwd });
    expect(run.code).toBe(2);
    expect(run.text).toBe('');
    expect(run.stderr).toBe(
      'editgate diff: cannot read missing.txt: no such file. For a file that does not exist, give /dev/null.\n',
    );
  });

  it('a folder is refused', async () => {
    const cwd = folder({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
    const run = await diff(['a.txt', 'sub'], { cwd });
    expect(run).toMatchObject({ code: 2, text: '' });
    expect(run.stderr).toContain('sub is a folder; editgate diff compares two files.');
  });

  it('a wrong command line points to --help', async () => {
    const cwd = folder({ 'a.txt': 'a\n' });
    for (const args of [
      [],
      ['a.txt'],
      ['a.txt', 'a.txt', 'a.txt'],
      ['--bogus', 'a.txt', 'a.txt'],
      ['-', '-'],
    ]) {
      const run = await diff(args, { cwd });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^editgate diff: .+ Run editgate diff --help for its options\.\n$/);
    }
    expect((await diff(['a.txt'], { cwd })).stderr).toContain('give two files, OLD and NEW (got a.txt).');
  });

  it('a file that is not valid UTF-8 asks for --encoding; an unknown encoding is refused', async () => {
    const cwd = folder({ 'a.txt': Buffer.from('caf\xe9\n', 'latin1'), 'b.txt': 'cafe\n' });
    const run = await diff(['a.txt', 'b.txt'], { cwd });
    expect(run).toMatchObject({ code: 2, text: '' });
    expect(run.stderr).toContain('a.txt is not valid UTF-8: byte 0xE9 at byte offset 3 (line 1)');
    expect(run.stderr).toContain('--encoding');
    const unknown = await diff(['--encoding', 'klingon', 'a.txt', 'b.txt'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown encoding "klingon"');
  });

  it('--help documents the command and its exit codes (exit 0)', async () => {
    const run = await diff(['--help'], { cwd: folder() });
    expect(run.code).toBe(0);
    expect(run.text).toContain('Usage: editgate diff OLD NEW');
    expect(run.text).toContain('git apply');
    expect(run.text).toMatch(/0 {2}the files are identical\n {2}1 {2}they differ\n {2}2 {2}trouble/);
  });
});

describe('editgate diff: colours', () => {
  const files = {
    'old.ts': 'const a = 1;\nconst b = 2;\nexport { a, b };\n',
    'new.ts': 'const a = 1;\nconst b = 3;\nexport { a, b };\n',
  };

  it('--no-color and NO_COLOR: no escape codes at all', async () => {
    const cwd = folder(files);
    for (const run of [
      await diff(['--no-color', 'old.ts', 'new.ts'], { cwd, env: { FORCE_COLOR: '3' } }),
      await diff(['old.ts', 'new.ts'], { cwd, env: { NO_COLOR: '1' } }),
      await diff(['old.ts', 'new.ts'], { cwd, env: { FORCE_COLOR: '0' } }),
    ]) {
      expect(run.code).toBe(1);
      expect(run.text).not.toContain(ESC);
      expect(run.text.startsWith('--- a/old.ts\n')).toBe(true);
    }
  });

  it('FORCE_COLOR: the coloured view with old and new line numbers, word emphasis and syntax colours', async () => {
    const cwd = folder(files);
    const run = await diff(['old.ts', 'new.ts'], { cwd, env: { FORCE_COLOR: '3', COLUMNS: '60' } });
    expect(run.code).toBe(1);
    expect(run.text).toContain(`${ESC}[`);
    const lines = strip(run.text)
      .split('\n')
      .map((line) => line.trimEnd());
    expect(lines).toEqual([
      'old.ts → new.ts  modified  +1 -1',
      '@@ -1,3 +1,3 @@',
      '1 1   const a = 1;',
      '2   - const b = 2;',
      '  2 + const b = 3;',
      '3 3   export { a, b };',
      '',
    ]);
    // Changed lines are tinted to the width (60 columns).
    expect(strip(run.text).split('\n')[3]).toHaveLength(60);
    expect(run.text).toContain(`${ESC}[38;2;198;120;221mconst`); // a keyword, highlighted (dark theme)
    const light = await diff(['--theme', 'light', 'old.ts', 'new.ts'], {
      cwd,
      env: { FORCE_COLOR: '3', COLUMNS: '60' },
    });
    expect(light.text).toContain(`${ESC}[38;2;166;38;164mconst`); // the light theme's keyword colour
    expect(strip(light.text)).toBe(strip(run.text));
  });

  it('16 colours: no syntax colours, changed words in reverse video', async () => {
    const cwd = folder(files);
    const run = await diff(['old.ts', 'new.ts'], { cwd, env: { FORCE_COLOR: '1' } });
    expect(run.code).toBe(1);
    expect(run.text).not.toMatch(/\x1b\[[0-9;]*38;[25];/);
    expect(run.text).toMatch(/\x1b\[1;7;91m2/); // the changed word, emphasised
  });

  it('a CRLF file is shown with its line endings where only they changed', async () => {
    const cwd = folder({ 'lf.txt': 'one\ntwo\n', 'crlf.txt': 'one\r\ntwo\r\n' });
    const run = await diff(['lf.txt', 'crlf.txt'], { cwd, env: { FORCE_COLOR: '1' } });
    expect(run.code).toBe(1);
    expect(strip(run.text).split('\n')).toEqual([
      'lf.txt → crlf.txt  modified  +2 -2',
      '@@ -1,2 +1,2 @@',
      '1   - one [LF]',
      '2   - two [LF]',
      '  1 + one [CRLF]',
      '  2 + two [CRLF]',
      '',
    ]);
  });

  it('a byte-order mark that only one side has shows as a change on line 1, with a note', async () => {
    const cwd = folder({ 'a.txt': 'one\ntwo\n', 'b.txt': '\uFEFFone\ntwo\n' });
    const run = await diff(['a.txt', 'b.txt'], { cwd, env: { FORCE_COLOR: '1' } });
    expect(strip(run.text)).toContain('  1 + <U+FEFF>one');
    expect(strip(run.text)).toContain('Encoding: UTF-8 → UTF-8 with BOM');
  });

  it('a new file from /dev/null has only new line numbers', async () => {
    const cwd = folder({ 'new.txt': 'x\ny\n' });
    const run = await diff(['/dev/null', 'new.txt'], { cwd, env: { FORCE_COLOR: '1' } });
    expect(strip(run.text).split('\n')).toEqual([
      '/dev/null → new.txt  created  +2 -0',
      '@@ -0,0 +1,2 @@',
      '1 + x',
      '2 + y',
      '',
    ]);
  });
});

describe('editgate diff on a terminal', () => {
  /** Runs `editgate diff ...args` in a pseudo-terminal of `rows` rows; `keys` typed once `when` is output. */
  function inTerminal(args: string[], cwd: string, rows: number, keys?: { when: string; type: string }) {
    return new Promise<{ code: number; output: string }>((resolve) => {
      const env: Record<string, string> = {};
      for (const [name, value] of Object.entries(
        environment({ TERM: 'xterm-256color', COLORTERM: 'truecolor' }),
      )) {
        if (value !== undefined) env[name] = value;
      }
      const child = pty.spawn(process.execPath, [MAIN, 'diff', ...args], { cols: 60, rows, cwd, env });
      let output = '';
      let typed = false;
      child.onData((data) => {
        output += data;
        if (keys && !typed && output.includes(keys.when)) {
          typed = true;
          child.write(keys.type);
        }
      });
      // A hang must fail the test, not leave the process behind.
      const timer = setTimeout(() => child.kill(), 20_000);
      child.onExit(({ exitCode }) => {
        clearTimeout(timer);
        resolve({ code: exitCode, output });
      });
    });
  }

  it('a diff that fits is printed; identical files are said to be so', async () => {
    const cwd = folder({ 'a.txt': 'one\ntwo\n', 'b.txt': 'one\nTWO\n', 'c.txt': 'one\ntwo\n' });
    const differ = await inTerminal(['a.txt', 'b.txt'], cwd, 24);
    expect(differ.code).toBe(1);
    expect(differ.output).not.toContain(`${ESC}[?1049h`);
    expect(strip(differ.output)).toContain('a.txt → b.txt  modified  +1 -1');
    const same = await inTerminal(['a.txt', 'c.txt'], cwd, 24);
    expect(same.code).toBe(0);
    expect(strip(same.output)).toContain('Files a.txt and c.txt are identical');
  });

  it('a diff taller than the screen opens the full-screen pager; q returns', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
    const changed = lines.map((line, i) => (i % 5 === 0 ? `${line} changed` : line));
    const cwd = folder({ 'a.txt': `${lines.join('\n')}\n`, 'b.txt': `${changed.join('\n')}\n` });
    const run = await inTerminal(['a.txt', 'b.txt'], cwd, 10, { when: 'q back', type: 'q' });
    expect(run.code).toBe(1);
    const enter = run.output.indexOf(`${ESC}[?1049h`);
    const leave = run.output.indexOf(`${ESC}[?1049l`);
    expect(enter).toBeGreaterThanOrEqual(0);
    expect(leave).toBeGreaterThan(enter);
    // The status line counts every line: nothing is cut off.
    expect(strip(run.output)).toMatch(/lines 1-9 of \d+/);
    // After the pager, the header stays on screen.
    expect(strip(run.output.slice(leave))).toContain('a.txt → b.txt  modified  +12 -12');
  });
});

describe('editgate diff start-up: loads only what it uses', () => {
  /**
   * The modules a run resolves (ESM import resolution, recorded by a module hook), as paths relative to the
   * repository; node: built-ins left out.
   */
  async function modulesLoaded(args: string[], env: Record<string, string> = {}): Promise<string[]> {
    const hooks = folder({
      'hooks.mjs': `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.EDITGATE_TEST_MODULE_LOG, result.url + '\\n');
  return result;
}
`,
    });
    writeFileSync(
      join(hooks, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(hooks, 'hooks.mjs')).href)});\n`,
    );
    const log = join(hooks, 'modules.log');
    writeFileSync(log, '');
    const cwd = folder({
      'old.ts': 'const a = 1;\nconst b = 2;\n',
      'new.ts': 'const a = 1;\nconst b = 3;\n',
      'old.txt': 'a\nb\n',
      'new.txt': 'a\nc\n',
    });
    const isHelp = args[0] === '--help';
    const child = spawnSync(
      process.execPath,
      ['--import', join(hooks, 'register.mjs'), MAIN, ...(isHelp ? [] : ['diff']), ...args],
      {
        cwd,
        env: environment({ ...env, EDITGATE_TEST_MODULE_LOG: log }),
        encoding: 'utf8',
      },
    );
    expect(child.stderr).toBe('');
    const root = pathToFileURL(REPO).href;
    return [...new Set(readFileSync(log, 'utf8').split('\n'))]
      .filter((url) => url.startsWith('file:'))
      .map((url) => (url.startsWith(root) ? url.slice(root.length + 1) : url))
      .sort();
  }

  /** Never on the diff path: the gate, tools and MCP layers, and their dependencies (zod, the MCP SDK...). */
  const NEVER =
    /node_modules\/(zod|@modelcontextprotocol|iconv-lite|proper-lockfile|picomatch)\/|^dist\/(gate|tools|mcp|workspace|adapters)\/|^dist\/cli\/(session|report|file-command)\.js$/;
  const HLJS = 'node_modules/highlight.js/';

  it('piped, on small UTF-8 files: the core diff only, no dependency at all', async () => {
    const loaded = await modulesLoaded(['old.ts', 'new.ts']);
    expect(loaded).toContain('dist/cli/commands/diff.js');
    expect(loaded).toContain('dist/core/diff.js');
    expect(loaded.filter((path) => path.includes('node_modules/'))).toEqual([]);
    expect(loaded.filter((path) => NEVER.test(path))).toEqual([]);
    const terminal = loaded.filter((path) => path.startsWith('dist/terminal/'));
    expect(terminal.sort()).toEqual([
      'dist/terminal/colors.js',
      'dist/terminal/display.js',
      'dist/terminal/palette.js',
    ]);
  });

  it('the coloured view loads highlight.js only at 256 colours and up, for a known file type', async () => {
    const view16 = await modulesLoaded(['old.ts', 'new.ts'], { FORCE_COLOR: '1' });
    expect(view16).toContain('dist/terminal/diff-view.js');
    expect(view16.filter((path) => path.includes(HLJS) || NEVER.test(path))).toEqual([]);
    const unknownType = await modulesLoaded(['old.txt', 'new.txt'], { FORCE_COLOR: '3' });
    expect(unknownType.filter((path) => path.includes(HLJS) || NEVER.test(path))).toEqual([]);
    // The hook does see dependencies: highlight.js (core and one grammar) for a TypeScript file in
    // truecolour. So the checks above would catch, say, an `import 'zod'` on the diff path.
    const highlighted = await modulesLoaded(['old.ts', 'new.ts'], { FORCE_COLOR: '3' });
    expect(highlighted).toContain('node_modules/highlight.js/es/languages/typescript.js');
    expect(highlighted.filter((path) => path.includes(`${HLJS}es/languages/`))).toHaveLength(1);
    expect(highlighted.filter((path) => NEVER.test(path))).toEqual([]);
  });

  it('editgate --help loads nothing but the entry point', async () => {
    expect(await modulesLoaded(['--help'])).toEqual(['dist/cli/main.js']);
  });
});
