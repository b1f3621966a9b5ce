import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffLines, formatUnifiedDiff } from '../../src/core/diff.js';
import { codeLines, random } from './diff-helpers.js';

const available = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
const hasGit = available('git');
const hasPatch = available('patch');
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };

const root = mkdtempSync(join(tmpdir(), 'editgate-unified-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function run(command: string, args: string[], cwd: string, input?: string) {
  const result = spawnSync(command, args, { cwd, env, input, encoding: 'latin1' });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/** A folder holding `path` with `content` (undefined: no file), a git repository when `git` is set. */
function workspace(path: string, content: string | undefined, git: boolean): string {
  const dir = join(root, `w${counter++}`);
  mkdirSync(dir);
  if (git) run('git', ['init', '-q'], dir);
  if (content !== undefined) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

function read(dir: string, path: string): string | undefined {
  const file = join(dir, path);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

interface Case {
  oldText: string | undefined; // undefined: the file does not exist (created)
  newText: string | undefined; // undefined: the file is deleted
  path?: string;
  context?: number;
}

function patchFor({ oldText, newText, path = 'src/file.txt', context }: Case): string {
  const diff = diffLines(oldText ?? '', newText ?? '', context === undefined ? {} : { context });
  return formatUnifiedDiff(diff, {
    oldPath: oldText === undefined ? '/dev/null' : path,
    newPath: newText === undefined ? '/dev/null' : path,
  });
}

/** `git apply --check`, then `git apply`, and compare the result byte for byte. */
function checkGitApply(testCase: Case): void {
  const path = testCase.path ?? 'src/file.txt';
  const patch = patchFor(testCase);
  const dir = workspace(path, testCase.oldText, true);
  writeFileSync(join(dir, 'change.patch'), patch);
  const flags = ['-c', 'core.autocrlf=false', 'apply', '--whitespace=nowarn'];
  if (testCase.context === 0) flags.push('--unidiff-zero');
  const check = run('git', [...flags, '--check', 'change.patch'], dir);
  expect(check.output, `git apply --check failed:\n${patch}`).toBe('');
  expect(check.ok).toBe(true);
  expect(run('git', [...flags, 'change.patch'], dir).ok).toBe(true);
  expect(read(dir, path)).toBe(testCase.newText);
}

/** `patch -p1 --dry-run`, then `patch -p1`, and compare the result byte for byte. */
function checkPatch(testCase: Case): void {
  const path = testCase.path ?? 'src/file.txt';
  const patch = patchFor(testCase);
  const dir = workspace(path, testCase.oldText, false);
  writeFileSync(join(dir, 'change.patch'), patch);
  const flags = ['-p1', '-s', '-f', '--no-backup-if-mismatch', '-i', 'change.patch'];
  const dry = run('patch', [...flags, '--dry-run'], dir);
  expect(dry.ok, `patch --dry-run failed: ${dry.output}\n${patch}`).toBe(true);
  const applied = run('patch', flags, dir);
  expect(applied.ok, applied.output).toBe(true);
  expect(read(dir, path)).toBe(testCase.newText);
}

const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`);
const text = (items: string[], eol = '\n', final = true) => items.join(eol) + (final ? eol : '');

const cases: Record<string, Case> = {
  'a one-line change': { oldText: text(lines(20)), newText: text(lines(20)).replace('line 9\n', 'nine\n') },
  'several hunks': {
    oldText: text(lines(60)),
    newText: text(lines(60))
      .replace('line 2\n', '')
      .replace('line 30\n', 'x\ny\n')
      .replace('line 59\n', 'z\n'),
  },
  'a new file': { oldText: undefined, newText: 'first\nsecond\n' },
  'a deleted file': { oldText: 'first\nsecond\n', newText: undefined },
  'a new file without final newline': { oldText: undefined, newText: 'only' },
  'removing the final newline': { oldText: 'a\nb\nc\n', newText: 'a\nb\nc' },
  'adding the final newline': { oldText: 'a\nb\nc', newText: 'a\nb\nc\n' },
  'changing a last line without newline': { oldText: 'a\nb\nc', newText: 'a\nb\nC' },
  'CRLF content': {
    oldText: text(lines(12), '\r\n'),
    newText: text(lines(12), '\r\n').replace('line 6\r\n', 'six\r\nsix more\r\n'),
  },
  'one CRLF line becoming LF': { oldText: 'a\r\nb\r\nc\r\n', newText: 'a\r\nb\nc\r\n' },
  'CRLF without final newline': { oldText: 'a\r\nb\r\nc', newText: 'a\r\nB\r\nc' },
  'mixed line endings': { oldText: 'a\nb\r\nc\nd\r\n', newText: 'a\r\nb\r\nC\nd\n' },
  'a lone-CR file': {
    oldText: text(lines(30), '\r'),
    newText: text(lines(30), '\r').replace('line 15', 'x'),
  },
  'a lone-CR file without final CR': { oldText: 'a\rb\rc', newText: 'a\rB\rc' },
  'stray lone CRs in an LF file': {
    oldText: `${text(lines(10))}a\rb\rc\n${text(lines(10))}`,
    newText: `${text(lines(10))}a\rB\rc\n${text(lines(10)).replace('line 2\n', 'two\n')}`,
  },
  'a CR line joined to the next by an insertion': { oldText: 'a\rb\n', newText: 'a\rX\nb\n' },
  'context 0': {
    oldText: text(lines(20)),
    newText: text(lines(20)).replace('line 5\n', 'five\n').replace('line 15\n', ''),
    context: 0,
  },
  'a path with a space': { oldText: 'a\n', newText: 'b\n', path: 'my dir/a file.txt' },
  'a path with a quote': { oldText: 'a\n', newText: 'b\n', path: 'say "hi".txt' },
  'non-ASCII content and path': { oldText: 'héllo\n日本\n', newText: 'héllo\n日本語\n', path: 'ünï.txt' },
};

describe('formatUnifiedDiff', () => {
  it('writes headers with a/ and b/ prefixes and /dev/null as is', () => {
    const patch = formatUnifiedDiff(diffLines('a\n', 'b\n'), { oldPath: 'src/x.ts', newPath: 'src/x.ts' });
    expect(patch).toBe('--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-a\n+b\n');
    const created = formatUnifiedDiff(diffLines('', 'a\nb\n'), { oldPath: '/dev/null', newPath: 'x.ts' });
    expect(created).toBe('--- /dev/null\n+++ b/x.ts\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    const deleted = formatUnifiedDiff(diffLines('a\n', ''), { oldPath: 'x.ts', newPath: '/dev/null' });
    expect(deleted).toBe('--- a/x.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n');
  });

  it('is empty for identical texts', () => {
    expect(formatUnifiedDiff(diffLines('a\n', 'a\n'), { oldPath: 'x', newPath: 'x' })).toBe('');
    expect(formatUnifiedDiff(diffLines('', ''), { oldPath: '/dev/null', newPath: 'x' })).toBe('');
  });

  it('marks a missing final newline and keeps CR in the lines', () => {
    const patch = formatUnifiedDiff(diffLines('a\r\nb', 'a\r\nc'), { oldPath: 'x', newPath: 'x' });
    expect(patch).toBe(
      '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\r\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n',
    );
  });

  it('writes lines joined by lone CR as the one line git sees', () => {
    const patch = formatUnifiedDiff(diffLines('a\rb\rc\n', 'a\rB\rc\n'), { oldPath: 'x', newPath: 'x' });
    expect(patch).toBe('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\rb\rc\n+a\rB\rc\n');
  });

  it('quotes paths the way git does', () => {
    const patch = formatUnifiedDiff(diffLines('a\n', 'b\n'), {
      oldPath: 'a b.txt',
      newPath: 'tab\there.txt',
    });
    expect(patch.split('\n').slice(0, 2)).toEqual(['--- a/a b.txt\t', '+++ "b/tab\\there.txt"']);
  });
});

describe.skipIf(!hasGit)(
  `git apply accepts the patch${hasGit ? '' : ' (skipped: git not found on PATH)'}`,
  () => {
    for (const [name, testCase] of Object.entries(cases)) it(name, () => checkGitApply(testCase));
  },
);

describe.skipIf(!hasPatch)(
  `patch -p1 accepts the patch${hasPatch ? '' : ' (skipped: patch not found on PATH)'}`,
  () => {
    for (const [name, testCase] of Object.entries(cases)) it(name, () => checkPatch(testCase));
  },
);

describe.skipIf(!hasGit || !hasPatch)('random edits round-trip through git apply and patch', () => {
  it('applies generated edits of generated files', () => {
    const next = random(7);
    const eols = ['\n', '\r\n', '\r'];
    for (let round = 0; round < 40; round++) {
      const base = codeLines(40 + Math.floor(next() * 200), next);
      const edited = base.slice();
      for (let k = 0; k < 1 + Math.floor(next() * 6); k++) {
        const at = Math.floor(next() * (edited.length + 1));
        edited.splice(at, Math.floor(next() * 3), ...codeLines(Math.floor(next() * 3), next));
      }
      // Mostly one line ending per file, sometimes a stray other one, sometimes no final newline.
      const eol = eols[round % 3 === 2 ? 1 : 0]!;
      const join = (items: string[]) =>
        items.map(
          (line, i) => line + (i === items.length - 1 && round % 4 === 3 ? '' : i % 17 === 5 ? eols[2] : eol),
        );
      const testCase = { oldText: join(base).join(''), newText: join(edited).join(''), context: round % 5 };
      if (testCase.context === 0) testCase.context = 3;
      if (testCase.oldText === testCase.newText) continue;
      checkGitApply(testCase);
      checkPatch(testCase);
    }
  });
});

describe.skipIf(!hasGit)('hunks match git diff', () => {
  /** git diff --no-index output without its header lines and the function names after @@. */
  function gitDiff(oldText: string, newText: string): string {
    const dir = workspace('x', undefined, false);
    writeFileSync(join(dir, 'old'), oldText);
    writeFileSync(join(dir, 'new'), newText);
    const result = spawnSync('git', ['diff', '--no-index', '--no-color', 'old', 'new'], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    return result.stdout
      .split('\n')
      .slice(4)
      .map((line) => (line.startsWith('@@') ? line.replace(/ @@.*/, ' @@') : line))
      .join('\n');
  }

  it('gives the same hunks as git (indent heuristic included) for typical code edits', () => {
    const next = random(3);
    const pick = (items: string[]) => items[Math.floor(next() * items.length)]!;
    const fn = (name: string) => {
      const body: string[] = [];
      for (let i = 0; i < 1 + Math.floor(next() * 4); i++) {
        if (next() < 0.3) body.push('  if (x) {', `    return ${pick(['a', 'b'])};`, '  }');
        else body.push(`  ${pick(['x++;', 'y = x;', 'call();', 'return;'])}`);
      }
      return [`function ${name}() {`, ...body, '}', ''];
    };
    let compared = 0;
    for (let round = 0; round < 40; round++) {
      const functions = Array.from({ length: 6 }, (_, i) => fn(`f${i}`));
      const edited = functions.map((lines) => lines.slice());
      const kind = round % 4;
      if (kind === 0) edited.splice(Math.floor(next() * edited.length), 0, fn('added'));
      else if (kind === 1) edited.splice(Math.floor(next() * edited.length), 1);
      else {
        const target = edited[Math.floor(next() * edited.length)]!;
        const at = 1 + Math.floor(next() * (target.length - 2));
        if (kind === 2) target.splice(at, 0, '  if (x) {', '    return b;', '  }');
        else target.splice(at, 1);
      }
      const oldText = `${functions.flat().join('\n')}\n`;
      const newText = `${edited.flat().join('\n')}\n`;
      if (oldText === newText) continue;
      const mine = formatUnifiedDiff(diffLines(oldText, newText), { oldPath: 'old', newPath: 'new' });
      expect(mine.split('\n').slice(2).join('\n')).toBe(gitDiff(oldText, newText));
      compared++;
    }
    expect(compared).toBeGreaterThan(30);
  });
});
