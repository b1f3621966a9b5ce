import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileGlob, MAX_BRACE_DEPTH, MAX_RANGE } from '../../src/core/glob.js';

describe('compileGlob', () => {
  it.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['*', '.env', true],
    ['?.md', 'a.md', true],
    ['?', '/', false],
    ['a/**', 'a', true],
    ['a/**', 'a/b/c', true],
    ['a/**', 'ab', false],
    ['**', 'a/b', true],
    ['**', '', false],
    ['**/.git', '.git', true],
    ['**/.git', 'vendor/x/.git', true],
    ['**/.git/**', '.git/hooks/pre-commit', true],
    ['**/.git', 'a.git', false],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a**b', 'axyb', true],
    ['a**b', 'ax/yb', false],
    ['[!a]', '/', false],
    ['[^a-c]x', 'dx', true],
    ['[a-c]x', 'dx', false],
    ['[[:digit:]]', '7', true],
    ['[]]', ']', true],
    ['[a', '[a', true],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['*.{js,ts}', 'x.ts', true],
    ['*.{js,ts}', 'x.md', false],
    ['src/{a,b/c}/*.ts', 'src/b/c/x.ts', true],
    ['{a,{b,c}}', 'c', true],
    ['{a}', '{a}', true],
    ['{1..3}', '2', true],
    ['{a..c}', 'b', true],
    ['x{,.bak}', 'x', true],
    ['!*.md', 'a.ts', true],
    ['!*.md', 'a.md', false],
    ['./src/*', 'src/a', true],
    ['a(b|c)', 'a(b|c)', true],
  ] as const)('%j on %j is %s, as picomatch says', (glob, path, expected) => {
    expect(compileGlob(glob)(path)).toBe(expected);
    expect(picomatch(glob, { dot: true })(path)).toBe(expected);
  });

  it('[!a] is any character but a, as in git and bash (picomatch reads it as "! or a")', () => {
    expect(compileGlob('[!a]')('b')).toBe(true);
    expect(compileGlob('[!a]')('a')).toBe(false);
    expect(compileGlob('[!a]')('!')).toBe(true);
    expect(compileGlob('*.[!o]')('x.c')).toBe(true);
  });

  it('nocase matches either case, in letters and classes', () => {
    expect(compileGlob('**/.GIT/**', { nocase: true })('.git/config')).toBe(true);
    expect(compileGlob('[A-C]x', { nocase: true })('bX')).toBe(true);
    expect(compileGlob('**/.GIT/**')('.git/config')).toBe(false);
  });

  it('ranges past MAX_RANGE items in one pattern are literal text', () => {
    const half = Math.floor(MAX_RANGE / 2);
    const two = compileGlob(`{1..${half}}-{1..${half}}-{1..${half}}`);
    expect(two(`7-8-{1..${half}}`)).toBe(true);
    expect(two('7-8-9')).toBe(false);
    expect(compileGlob(`{1..${MAX_RANGE + 1}}`)('5')).toBe(false);
    expect(compileGlob(`{1..${MAX_RANGE + 1}}`)(`{1..${MAX_RANGE + 1}}`)).toBe(true);
  });

  it('a pattern with more state sets than a matcher remembers still answers right', () => {
    // `*a` then 12 characters: which of the last 13 were `a` is the state, 2^13 sets in all.
    const pattern = `*a${'?'.repeat(12)}`;
    const ours = compileGlob(pattern);
    const theirs = picomatch(pattern, { dot: true });
    let seed = 26;
    for (let n = 0; n < 400; n++) {
      let name = '';
      for (let i = 0; i < 40; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        name += seed % 2 === 0 ? 'a' : 'b';
      }
      expect(ours(name), name).toBe(theirs(name));
    }
  });

  it('a hostile pattern against a long name finishes with the right answer (issue #26)', () => {
    const name = 'a'.repeat(60);
    expect(compileGlob('*a*a*a*a*a*a*a*a*b')(name)).toBe(false);
    expect(compileGlob('*a*a*a*a*a*a*a*a*a')(name)).toBe(true);
    expect(compileGlob('**/*a*a*a*a*a*a*a*a*a*a*a*a*b')(`${'a/'.repeat(30)}${'a'.repeat(2000)}`)).toBe(false);
    expect(compileGlob(`${'{a,aa}'.repeat(30)}b`)('a'.repeat(500))).toBe(false);
    expect(compileGlob('**/**/**/**/**/**/**/**/x/y')(`${'d/'.repeat(500)}x/z`)).toBe(false);
  });

  it('a hostile pattern is read in time linear in its length (issue #26, tried again)', () => {
    // Each unclosed bracket scanned to the end of the line, and `[:` searched it again: 6,000
    // characters of `[[:` took 26 s to read, these would take hours.
    expect(compileGlob('[[:'.repeat(10_000))('[[:')).toBe(false);
    expect(compileGlob('[\\]'.repeat(20_000))('a')).toBe(false);
    expect(compileGlob(`{${'['.repeat(30_000)}`)('a')).toBe(false);
    expect(compileGlob('{'.repeat(30_000))('{'.repeat(30_000))).toBe(true);
    // Nesting past MAX_BRACE_DEPTH is literal text, never a stack overflow.
    const deep = `${'{a,'.repeat(MAX_BRACE_DEPTH + 1)}b${'}'.repeat(MAX_BRACE_DEPTH + 1)}`;
    expect(compileGlob(deep)('b')).toBe(false);
    expect(() => compileGlob(`${'{a,'.repeat(20_000)}b${'}'.repeat(20_000)}`)).not.toThrow();
    const legal = `${'{a,'.repeat(MAX_BRACE_DEPTH)}b${'}'.repeat(MAX_BRACE_DEPTH)}`;
    expect(compileGlob(legal)('b')).toBe(true);
    expect(compileGlob(`x[[:digit:]]{y,[a-c]}`)('x7b')).toBe(true);
  });
});
