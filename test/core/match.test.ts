import { describe, expect, it } from 'vitest';
import { findMatches } from '../../src/core/match.js';
import { chooseEol, neutralView } from '../../src/core/neutral.js';
import {
  foldWithMap,
  indentShift,
  isOverEscaped,
  reindentLine,
  stripLineNumbers,
  stripLineNumbersLoose,
  unescapeText,
} from '../../src/core/tolerant.js';

describe('neutralView', () => {
  it('maps view offsets back through CRLF, lone CR and LF', () => {
    const text = 'a\r\nb\rc\nd\r\ne';
    const view = neutralView(text);
    expect(view.text).toBe('a\nb\nc\nd\ne');
    for (const [offset, original] of [
      [0, 0],
      [1, 1],
      [2, 3],
      [4, 5],
      [6, 7],
      [8, 10],
      [9, 11],
    ] as const) {
      expect(view.toOriginal(offset)).toBe(original);
    }
    expect(view.eol()).toEqual({ dominant: '\r\n', mixed: true });
    expect(view.lines()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('has no phantom line after a final newline and none for the empty text', () => {
    expect(neutralView('a\n').lines()).toEqual(['a']);
    expect(neutralView('').lines()).toEqual([]);
    expect(neutralView('a\n\n').lineStarts()).toEqual([0, 2]);
  });

  it('chooses the region’s own line ending in a mixed file, else its neighbours’', () => {
    const text = 'a\r\nb\r\nc\nd\ne\n';
    const profile = neutralView(text).eol();
    expect(profile.mixed).toBe(true);
    expect(chooseEol(text, 0, 6, profile)).toBe('\r\n'); // region "a\r\nb\r\n"
    expect(chooseEol(text, 8, 11, profile)).toBe('\n'); // region "\nd\n"
    expect(chooseEol(text, 0, 1, profile)).toBe('\r\n'); // "a": its line ends with CRLF
    expect(chooseEol('a\nb\r\n', 0, 1, neutralView('a\nb\r\n').eol())).toBe('\n');
  });
});

describe('findMatches: exact', () => {
  it('returns offsets in the original text', () => {
    const found = findMatches('one\r\ntwo\r\nthree', 'two\nthree');
    expect(found?.tier).toBe('exact');
    expect(found?.ranges).toEqual([[5, 15]]);
  });

  it('lists overlapping matches, and keeps the left-to-right non-overlapping ones for replaceAll', () => {
    expect(findMatches('aaa', 'aa')?.ranges).toEqual([
      [0, 2],
      [1, 3],
    ]);
    expect(findMatches('aaaa', 'aa', { replaceAll: true })?.ranges).toEqual([
      [0, 2],
      [2, 4],
    ]);
  });

  it('matches text written with CRLF against an LF file', () => {
    expect(findMatches('x\ny\n', 'x\r\ny')?.ranges).toEqual([[0, 3]]);
  });

  it('returns null when nothing matches, and exact mode runs no tier', () => {
    expect(findMatches('abc', 'xyz')).toBeNull();
    expect(findMatches('foo  \nbar', 'foo\nbar', { matching: 'exact' })).toBeNull();
    expect(findMatches('foo  \nbar', 'foo\nbar')?.tier).toBe('trailing-whitespace');
  });

  it('refuses an empty old text', () => {
    expect(() => findMatches('abc', '')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('tier: trailing-whitespace', () => {
  it('matches whole lines ignoring trailing spaces and tabs on either side', () => {
    const found = findMatches('a\nfoo \t\nbar\nz', 'foo\nbar   ');
    expect(found?.tier).toBe('trailing-whitespace');
    expect(found?.ranges).toEqual([[2, 11]]);
  });

  it('keeps the file’s trailing whitespace on lines the model left unchanged', () => {
    const found = findMatches('keep  \nold\n', 'keep\nold');
    expect(found?.rewrite('keep\nnew', 0)).toBe('keep  \nnew');
  });

  it('does not match part of a line', () => {
    expect(findMatches('x = foo;\n', 'foo;  ')).toBeNull();
  });

  it('needs a line break in the file where the old text has a final one', () => {
    expect(findMatches('a\nfoo  ', 'foo\n')).toBeNull();
    expect(findMatches('a\nfoo  \n', 'foo\n')?.ranges).toEqual([[2, 8]]);
  });
});

describe('tier: indentation', () => {
  it('re-indents new text by the prefix the model left out', () => {
    const text = 'class A {\n    run() {\n        go();\n    }\n}\n';
    const found = findMatches(text, 'run() {\n    go();\n}');
    expect(found?.tier).toBe('indentation');
    expect(found?.rewrite('run() {\n    stop();\n    go();\n}', 0)).toBe(
      '    run() {\n        stop();\n        go();\n    }',
    );
  });

  it('removes an indentation the model added', () => {
    const found = findMatches('def f():\n    return 1\n', '    def f():\n        return 1');
    expect(found?.tier).toBe('indentation');
    expect(found?.rewrite('    def f():\n        return 2', 0)).toBe('def f():\n    return 2');
  });

  it('maps spaces to the file’s tabs without mixing styles', () => {
    const text = 'func f() {\n\tif x {\n\t\ty()\n\t}\n}\n';
    const found = findMatches(text, '    if x {\n        y()\n    }');
    expect(found?.tier).toBe('indentation');
    expect(found?.rewrite('    if x {\n        y()\n        z()\n    }', 0)).toBe(
      '\tif x {\n\t\ty()\n\t\tz()\n\t}',
    );
  });

  it('does not match when the shift is not uniform', () => {
    expect(findMatches('  a\n      b\n', 'a\nb')).toBeNull();
  });

  it('does not match different content', () => {
    expect(findMatches('    foo(1)\n', 'foo(2)')).toBeNull();
  });

  it('indentShift and reindentLine follow the documented rules', () => {
    expect(indentShift(['  a', '', '    b'], ['a', '  ', '  b'])).toEqual({ kind: 'add', prefix: '  ' });
    expect(indentShift(['a'], ['a'])).toBeNull();
    expect(indentShift(['a', 'b'], ['a', ''])).toBeNull();
    expect(reindentLine('   ', { kind: 'add', prefix: '\t' })).toBe('   ');
    expect(reindentLine('  x', { kind: 'remove', prefix: '    ' })).toBe('x');
    expect(reindentLine('      x', { kind: 'columns', delta: 0, tabWidth: 4, style: 'tabs' })).toBe('\t  x');
    expect(reindentLine('\tx', { kind: 'columns', delta: 2, tabWidth: 4, style: 'spaces' })).toBe('      x');
  });
});

describe('tier: typographic', () => {
  it('matches straight quotes against curly ones and keeps unchanged lines as the file has them', () => {
    const text = 'title: “Hello”\nbody: it’s fine\n';
    const found = findMatches(text, 'title: "Hello"\nbody: it\'s fine');
    expect(found?.tier).toBe('typographic');
    expect(found?.ranges).toEqual([[0, 30]]);
    expect(found?.rewrite('title: "Hello"\nbody: it\'s great', 0)).toBe("title: “Hello”\nbody: it's great");
  });

  it('turns invented curly quotes into ASCII when the file has none there', () => {
    const found = findMatches("print('hi')\n", 'print(‘hi’)');
    expect(found?.tier).toBe('typographic');
    expect(found?.rewrite('print(‘hello’)', 0)).toBe("print('hello')");
  });

  it('handles dashes, no-break spaces and the ellipsis', () => {
    const text = 'wait… then go — now\u00a0please';
    const found = findMatches(text, 'wait... then go - now please');
    expect(found?.ranges).toEqual([[0, text.length]]);
  });

  it('never cuts through an ellipsis', () => {
    expect(findMatches('a…b', '..b')).toBeNull();
    const { folded, toSource } = foldWithMap('x…y');
    expect(folded).toBe('x...y');
    expect([toSource(1), toSource(2), toSource(4), toSource(5)]).toEqual([1, -1, 2, 3]);
  });

  it('reports every place when several match', () => {
    expect(findMatches('“a” and “a”', '"a"')?.ranges).toHaveLength(2);
  });
});

describe('tier: line-numbers', () => {
  const text = 'alpha\n  beta\ngamma\n';

  it('strips read_file prefixes from old and new text', () => {
    const found = findMatches(text, '     2\t  beta\n     3\tgamma');
    expect(found?.tier).toBe('line-numbers');
    expect(found?.ranges).toEqual([[6, 18]]);
    expect(found?.rewrite('     2\t  BETA\n     3\tgamma', 0)).toBe('  BETA\ngamma');
  });

  it('accepts the arrow and pipe styles', () => {
    expect(findMatches(text, '  2→  beta\n  3→gamma')?.tier).toBe('line-numbers');
    expect(findMatches(text, '  2 |   beta\n  3 | gamma')?.tier).toBe('line-numbers');
  });

  it('does nothing unless every line carries a consecutive number', () => {
    expect(findMatches(text, '     2\t  beta\ngamma')).toBeNull();
    expect(findMatches(text, '     2\t  beta\n     4\tgamma')).toBeNull();
    expect(stripLineNumbers(['  7', '  8'])).toBeNull(); // bare numbers alone could be content
    expect(stripLineNumbers(['     7\tx', '     8', '     9\ty'])).toEqual(['x', '', 'y']);
  });

  it('only matches whole lines', () => {
    expect(findMatches('xbeta\n', '1\tbeta')).toBeNull();
  });

  it('strips new-text prefixes only where present', () => {
    expect(stripLineNumbersLoose(['   3\ta', 'b', '    4'])).toEqual(['a', 'b', '']);
  });
});

/** Source text with a template interpolation, written `@{` here so no string literal holds a real one. */
const js = (text: string) => text.replaceAll('@{', String.fromCharCode(36, 123));

describe('tier: unescaped', () => {
  it('unescapes both old and new text', () => {
    const text = 'say("hi")\nnext\n';
    const found = findMatches(text, 'say(\\"hi\\")\\nnext');
    expect(found?.tier).toBe('unescaped');
    expect(found?.rewrite('say(\\"bye\\")\\n\\tnext', 0)).toBe('say("bye")\n\tnext');
  });

  it('writes a correct new text as written: real newlines mean it is not over-escaped', () => {
    const text = "x = r'a'\ny = 1\n";
    const found = findMatches(text, "x = r\\'a\\'\\ny = 1");
    expect(found?.tier).toBe('unescaped');
    // A Python raw string, a JS message builder and a shell quote keep every backslash.
    expect(found?.rewrite("x = r'a\\\\b'\ny = '\\n' + s\nz = 'it'\\''s'", 0)).toBe(
      "x = r'a\\\\b'\ny = '\\n' + s\nz = 'it'\\''s'",
    );
  });

  it('judges a one-line new text on its own', () => {
    expect(isOverEscaped('say(\\"bye\\")', 'x')).toBe(true); // \" and no bare quote
    expect(isOverEscaped('a\\nb', 'x')).toBe(true); // an escaped line break
    expect(isOverEscaped('say("bye\\n")', 'say(\\"hi\\")')).toBe(false); // a bare quote: written correctly
    expect(isOverEscaped('re = /\\d+\\n/', 'a\\nb')).toBe(false); // \d is code, not an escape
    expect(isOverEscaped("x = \\'b\\'", "x = \\'a\\'")).toBe(true); // the same kinds as the old text
    expect(isOverEscaped("x = 'a\\\\b'", "x = \\'a\\'")).toBe(false); // \\ alone, which the old text lacks
    expect(isOverEscaped('plain', 'a\\nb')).toBe(false);
  });

  it('unescapes \\` and \\$ only where that finds exactly one place', () => {
    const once = js('const s = `a @{b}`;\n');
    const found = findMatches(once, js('const s = \\`a \\@{b}\\`;'));
    expect(found?.tier).toBe('unescaped');
    expect(found?.rewrite(js('const s = \\`a \\@{c}\\`;'), 0)).toBe(js('const s = `a @{c}`;'));
    expect(found?.rewrite(js('const s = `a \\@{c}`;\nnext'), 0)).toBe(js('const s = `a \\@{c}`;\nnext'));
    expect(findMatches(once + once, js('const s = \\`a \\@{b}\\`;'))).toBeNull();
    // An escaped interpolation in the file is matched exactly: exact finds it, nothing is unescaped.
    expect(findMatches(js('t = `\\@{x}`'), js('`\\@{x}`'))?.tier).toBe('exact');
  });

  it('does not run without escapes and leaves other backslashes alone', () => {
    expect(findMatches('a\\d', 'a\\x')).toBeNull();
    expect(unescapeText("\\\\n \\d \\'")).toBe("\\n \\d '");
  });
});

describe('search on repetitive text', () => {
  // A file of equal lines and an old text of thousands of them: the case that was file × old.
  const file = (n: number) => '  x = 1;\n'.repeat(n);
  const old = (n: number, line = 'x = 1;') => Array.from({ length: n }, () => line).join('\n');

  it('finds nothing where nothing matches, and the right places where some do', () => {
    expect(findMatches(file(4000), `${old(2000)}\nnope`)).toBeNull();
    expect(findMatches(file(3), old(2))?.ranges).toEqual([
      [0, 17],
      [9, 26],
    ]);
    const trailing = findMatches(file(3), old(2, '  x = 1; '));
    expect(trailing?.tier).toBe('trailing-whitespace');
    expect(trailing?.ranges).toHaveLength(2);
  });

  it('stops with a clear error when the indentation tier would check too many overlapping windows', () => {
    let error: unknown;
    try {
      findMatches(file(4000), old(1000));
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'TOO_LARGE', details: { reason: 'search-budget' } });
    expect((error as Error).message).toMatch(/edit_lines|occurs once/);
    expect(findMatches(file(4000), old(1000), { matching: 'exact' })).toBeNull();
  });
});

describe('tier order', () => {
  it('stops at the first tier that finds anything, even when it finds several places', () => {
    const found = findMatches('x  \ny\nx\t\ny\n', 'x\ny');
    expect(found?.tier).toBe('trailing-whitespace');
    expect(found?.ranges).toHaveLength(2);
  });
});
