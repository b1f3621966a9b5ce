import { describe, expect, it } from 'vitest';
import { applyLineEdits, applyStringEdits } from '../../src/core/edit.js';
import { EditgateError, type ErrorCode } from '../../src/core/errors.js';

function failure(run: () => unknown): EditgateError {
  try {
    run();
  } catch (error) {
    if (error instanceof EditgateError) return error;
    throw error;
  }
  throw new Error('expected an EditgateError');
}

function expectCode(run: () => unknown, code: ErrorCode): EditgateError {
  const error = failure(run);
  expect(error.code).toBe(code);
  return error;
}

const one = (text: string, oldText: string, newText: string, replaceAll?: boolean) =>
  applyStringEdits(text, [{ oldText, newText, replaceAll }]);

describe('applyStringEdits: basics', () => {
  it('replaces a single occurrence and reports tier and lines', () => {
    const result = one('a\nb\nc\n', 'b', 'B1\nB2');
    expect(result).toEqual({
      text: 'a\nB1\nB2\nc\n',
      replacements: 1,
      edits: [{ tier: 'exact', lines: [[2, 3]] }],
    });
  });

  it('replaces every occurrence with replaceAll', () => {
    const result = one('x = 1; x = 2;\nx\n', 'x', 'y', true);
    expect(result.text).toBe('y = 1; y = 2;\ny\n');
    expect(result.replacements).toBe(3);
    expect(result.edits[0]?.lines).toEqual([
      [1, 1],
      [1, 1],
      [2, 2],
    ]);
  });

  it('reports lines in the text after the edit when replacements change the line count', () => {
    const result = one('k\nk\nk\n', 'k\n', 'a\nb\n', true);
    expect(result.text).toBe('a\nb\na\nb\na\nb\n');
    expect(result.edits[0]?.lines).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    const deleted = one('a\nb\nc\n', 'b\n', '');
    expect(deleted.edits[0]?.lines).toEqual([[2, 2]]);
    const atEnd = one('a\nb\n', '\nb\n', '\n');
    expect(atEnd.text).toBe('a\n');
    expect(one('a\nb', 'b', '').edits[0]?.lines).toEqual([[1, 1]]);
  });

  it('refuses two occurrences without replaceAll, with the count and each line', () => {
    const error = expectCode(() => one('foo\nbar\nfoo\n', 'foo', 'baz'), 'AMBIGUOUS');
    expect(error.message).toContain('2 places');
    expect(error.message).toContain('lines 1 and 3');
    expect(error.message).toContain('replace_all');
    expect(error.message).toMatch(/surrounding/);
    expect(error.details).toMatchObject({ count: 2, lines: [1, 3], tier: 'exact' });
  });

  it('counts overlapping occurrences, and replaceAll replaces them left to right without overlap', () => {
    const error = expectCode(() => one('aaa', 'aa', 'b'), 'AMBIGUOUS');
    expect(error.details).toMatchObject({ count: 2, lines: [1, 1] });
    expect(error.message).toContain('line 1 (2 matches)');
    expect(one('aaa', 'aa', 'b', true)).toMatchObject({ text: 'ba', replacements: 1 });
    expect(one('aaaa', 'aa', 'b', true)).toMatchObject({ text: 'bb', replacements: 2 });
  });

  it('inserts $ sequences literally', () => {
    for (const newText of ['$&', '$1', '$$', "$'", '$`', '$<name>']) {
      expect(one('x(foo)y', 'foo', newText).text).toBe(`x(${newText})y`);
    }
  });

  it('refuses identical strings with NO_CHANGE', () => {
    const error = expectCode(() => one('abc', 'b', 'b'), 'NO_CHANGE');
    expect(error.message).toContain('identical');
  });

  it('refuses an edit that would leave the text as it is', () => {
    expectCode(() => one('a\r\nb', 'a\r\n', 'a\n'), 'NO_CHANGE');
  });

  it('refuses an empty oldText on a non-empty text, and fills an empty text', () => {
    const error = expectCode(() => one('abc', '', 'x'), 'INVALID_INPUT');
    expect(error.message).toContain('write_file');
    expect(one('', '', 'hello\nworld\n')).toEqual({
      text: 'hello\nworld\n',
      replacements: 1,
      edits: [{ tier: 'exact', lines: [[1, 2]] }],
    });
  });

  it('refuses malformed input', () => {
    expectCode(() => applyStringEdits('a', []), 'INVALID_INPUT');
    expectCode(() => applyStringEdits('a', [{ oldText: 1, newText: 'b' } as never]), 'INVALID_INPUT');
    expectCode(
      () => applyStringEdits('a', [{ oldText: 'a', newText: 'b', replaceAll: 'yes' } as never]),
      'INVALID_INPUT',
    );
    expectCode(
      () => applyStringEdits('a', [{ oldText: 'a', newText: 'b' }], { matching: 'fuzzy' } as never),
      'INVALID_INPUT',
    );
  });
});

describe('applyStringEdits: blank lines at the ends of old_string', () => {
  const file = 'a();\nb();\n\nc();\nb();\n';

  it('matches without them when that finds exactly one place, and leaves them out of the new text', () => {
    expect(one(file, '\nc();\n\n\n', '\nd();\n\n\n')).toMatchObject({
      text: 'a();\nb();\n\nd();\nb();\n',
      edits: [{ tier: 'blank-lines' }],
    });
    expect(one(file, 'a();\n\n\n', 'z();\n')).toMatchObject({ text: 'z();\nb();\n\nc();\nb();\n' });
  });

  it('decides nothing when the rest is in the file more than once', () => {
    expectCode(() => one(file, 'b();\n\n\n\n', 'x'), 'NOT_FOUND');
  });
});

describe('applyStringEdits: NOT_FOUND', () => {
  const file = [
    'function add(a, b) {',
    '  return a + b;',
    '}',
    '',
    'function sub(a, b) {',
    '  return a - b;',
    '}',
    '',
  ].join('\n');

  it('names the closest region with lines, similarity and an excerpt', () => {
    const error = expectCode(() => one(file, 'function sub(a, b) {\n  return a * b;\n}', 'x'), 'NOT_FOUND');
    expect(error.message).toContain('lines 5-7');
    expect(error.message).toContain('     6\t  return a - b;');
    expect(error.message).toMatch(/read_file/);
    expect(error.details).toMatchObject({
      closest: { startLine: 5, endLine: 7, whitespaceOnly: false },
    });
    const similarity = (error.details.closest as { similarity: number }).similarity;
    expect(similarity).toBeGreaterThan(0.8);
    expect(similarity).toBeLessThan(1);
  });

  it('says when the difference is only whitespace', () => {
    const error = expectCode(() => one(file, 'function  sub(a,b) {\n  return a - b;\n}', 'x'), 'NOT_FOUND');
    expect(error.details).toMatchObject({ closest: { startLine: 5, whitespaceOnly: true } });
    expect(error.message).toContain('only in whitespace');
  });

  it('ignores blank lines at the ends of old_string when naming the closest region', () => {
    for (const old of [
      '\n\nfunction sub(a, b) {\n  return a * b;\n}',
      'function sub(a, b) {\n  return a * b;\n}\n\n\n',
    ]) {
      const error = expectCode(() => one(file, old, 'x'), 'NOT_FOUND');
      expect(error.details).toMatchObject({ closest: { startLine: 5, endLine: 7 } });
    }
  });

  it('says when nothing resembles the old text', () => {
    const error = expectCode(() => one(file, 'zzzzqqqq', 'x'), 'NOT_FOUND');
    expect(error.details.closest).toBeNull();
    expect(error.message).toContain('Nothing in the file resembles it');
  });

  it('finds the closest region in a large file through literal anchors', () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `const value${i} = compute(${i});`);
    const error = expectCode(
      () => one(lines.join('\n'), 'const value41234 = compute(41234);\nconst value41235 = compute(9);', 'x'),
      'NOT_FOUND',
    );
    expect(error.details).toMatchObject({ closest: { startLine: 41235, endLine: 41236 } });
  });
});

describe('applyStringEdits: line endings', () => {
  it('edits a CRLF file with LF text: CRLF kept everywhere, new lines CRLF', () => {
    const result = one('one\r\ntwo\r\nthree\r\n', 'two\nthree', 'TWO\nTWO AND A HALF\nTHREE');
    expect(result.text).toBe('one\r\nTWO\r\nTWO AND A HALF\r\nTHREE\r\n');
    expect(result.edits[0]?.lines).toEqual([[2, 4]]);
  });

  it('edits an LF file with CRLF text: new lines LF', () => {
    expect(one('a\nb\nc\n', 'a\r\nb', 'x\r\ny\r\nz').text).toBe('x\ny\nz\nc\n');
  });

  it('in a mixed file, new lines take the line ending of the region they replace', () => {
    const text = 'a\r\nb\r\nc\r\nd\ne\n';
    expect(one(text, 'd\ne', 'D1\nD2\nE').text).toBe('a\r\nb\r\nc\r\nD1\nD2\nE\n');
    expect(one(text, 'a\nb', 'A\nX\nB').text).toBe('A\r\nX\r\nB\r\nc\r\nd\ne\n');
  });

  it('works on a lone-CR file', () => {
    const result = one('one\rtwo\rthree\r', 'two\n', 'TWO\nMORE\n');
    expect(result.text).toBe('one\rTWO\rMORE\rthree\r');
    expect(result.edits[0]?.lines).toEqual([[2, 3]]);
  });

  it('keeps a missing final newline', () => {
    expect(one('a\nb', 'b', 'c').text).toBe('a\nc');
    expect(one('a\r\nb', 'b', 'c\nd').text).toBe('a\r\nc\r\nd');
  });
});

describe('applyStringEdits: tolerant tiers', () => {
  it('names the tier that matched', () => {
    expect(one('a  \nb\n', 'a\nb', 'A\nb').edits[0]?.tier).toBe('trailing-whitespace');
    expect(one('  a\n  b\n', 'a\nb', 'a\nc').text).toBe('  a\n  c\n');
    expect(one('say “hi”\n', 'say "hi"', 'say "bye"')).toMatchObject({
      text: 'say "bye"\n',
      edits: [{ tier: 'typographic' }],
    });
    expect(one('x\ny\n', '     2\ty', '     2\tz')).toMatchObject({
      text: 'x\nz\n',
      edits: [{ tier: 'line-numbers' }],
    });
    expect(one('a\nb\n', 'a\\nb', 'a\\nc')).toMatchObject({ text: 'a\nc\n', edits: [{ tier: 'unescaped' }] });
  });

  it('re-indents new text in a CRLF file and gives it CRLF', () => {
    const text = 'if (x) {\r\n\tfoo();\r\n}\r\n';
    const result = one(text, '    foo();', '    foo();\n    bar();');
    expect(result.text).toBe('if (x) {\r\n\tfoo();\r\n\tbar();\r\n}\r\n');
    expect(result.edits[0]?.tier).toBe('indentation');
  });

  it('is AMBIGUOUS with the tier named when a tier matches twice', () => {
    const error = expectCode(() => one('  a\n  b\n\n  a\n  b\n', 'a\nb', 'c'), 'AMBIGUOUS');
    expect(error.details).toMatchObject({ count: 2, lines: [1, 4], tier: 'indentation' });
    expect(error.message).toContain('indentation');
  });

  it('replaces every match of a tier with replaceAll', () => {
    const result = one('  a\n  b\n\n  a\n  b\n', 'a\nb', 'c', true);
    expect(result).toMatchObject({ text: '  c\n\n  c\n', replacements: 2, edits: [{ tier: 'indentation' }] });
  });

  it('runs no tier in exact mode', () => {
    const error = expectCode(
      () => applyStringEdits('a  \nb\n', [{ oldText: 'a\nb', newText: 'x' }], { matching: 'exact' }),
      'NOT_FOUND',
    );
    expect(error.message).toContain('exact matching');
    expect(error.details).toMatchObject({ closest: { startLine: 1, whitespaceOnly: true } });
  });

  it('never uses a tier when exact finds the text', () => {
    expect(one('a\na  \n', 'a\n', 'b\n').edits[0]?.tier).toBe('exact');
  });
});

describe('applyStringEdits: several edits', () => {
  it('applies edits in order, each to the previous result', () => {
    const result = applyStringEdits('a b c', [
      { oldText: 'a', newText: 'x' },
      { oldText: 'x b', newText: 'y' },
    ]);
    expect(result).toMatchObject({ text: 'y c', replacements: 2 });
    expect(result.edits).toHaveLength(2);
  });

  it('fails all when one fails, saying which edit', () => {
    const text = 'a b c';
    const error = expectCode(
      () =>
        applyStringEdits(text, [
          { oldText: 'a', newText: 'x' },
          { oldText: 'a', newText: 'y' },
        ]),
      'NOT_FOUND',
    );
    expect(error.message).toMatch(/^Edit 2 of 2 failed/);
    expect(error.message).toContain('apply in order');
    expect(error.details.edit).toBe(2);
    expect(text).toBe('a b c');
  });

  it('does not mutate its inputs', () => {
    const edits = [{ oldText: 'a', newText: 'b' }];
    const frozen = Object.freeze(edits.map((edit) => Object.freeze({ ...edit })));
    expect(applyStringEdits('a', frozen).text).toBe('b');
    expect(edits).toEqual([{ oldText: 'a', newText: 'b' }]);
  });
});

describe('applyStringEdits: size', () => {
  it('handles a 5 MB text with a unique edit near the end', () => {
    const line = 'the quick brown fox jumps over the lazy dog 0123456789\n';
    const lines = Array.from({ length: 95_000 }, () => line);
    lines[90_000] = 'UNIQUE MARKER\n';
    const text = lines.join('');
    const result = one(text, 'UNIQUE MARKER', 'changed');
    expect(result.edits[0]?.lines).toEqual([[90_001, 90_001]]);
    expect(result.text.length).toBe(text.length - 6);
  });
});

describe('applyLineEdits', () => {
  const text = 'l1\nl2\nl3\nl4\n';

  it('inserts, replaces, deletes and appends', () => {
    expect(applyLineEdits(text, [{ range: [2, 2], replacement: 'new' }]).text).toBe('l1\nnew\nl2\nl3\nl4\n');
    expect(applyLineEdits(text, [{ range: [2, 4], replacement: 'X\nY\nZ' }]).text).toBe('l1\nX\nY\nZ\nl4\n');
    expect(applyLineEdits(text, [{ range: [2, 3], replacement: '' }]).text).toBe('l1\nl3\nl4\n');
    expect(applyLineEdits(text, [{ range: [5, 5], replacement: 'l5' }]).text).toBe('l1\nl2\nl3\nl4\nl5\n');
  });

  it('applies several edits against the original numbering', () => {
    const result = applyLineEdits(text, [
      { range: [1, 2], replacement: 'A\nA2' },
      { range: [3, 3], replacement: 'ins' },
      { range: [3, 5], replacement: '' },
    ]);
    expect(result.text).toBe('A\nA2\nl2\nins\n');
  });

  it('lets ranges touch, and puts several inserts at one line in the order given', () => {
    expect(
      applyLineEdits(text, [
        { range: [2, 2], replacement: 'a' },
        { range: [2, 2], replacement: 'b' },
        { range: [2, 3], replacement: 'c' },
        { range: [3, 4], replacement: 'd' },
      ]).text,
    ).toBe('l1\na\nb\nc\nd\nl4\n');
  });

  it('keeps CRLF and gives new lines the file’s line ending', () => {
    expect(applyLineEdits('a\r\nb\r\n', [{ range: [2, 2], replacement: 'x\ny' }]).text).toBe(
      'a\r\nx\r\ny\r\nb\r\n',
    );
    expect(applyLineEdits('a\rb\r', [{ range: [3, 3], replacement: 'c' }]).text).toBe('a\rb\rc\r');
  });

  it('respects a file end without a final newline', () => {
    expect(applyLineEdits('a\nb', [{ range: [2, 3], replacement: 'B' }]).text).toBe('a\nB');
    expect(applyLineEdits('a\nb', [{ range: [3, 3], replacement: 'c' }]).text).toBe('a\nb\nc');
    expect(applyLineEdits('a\nb', [{ range: [1, 2], replacement: 'A' }]).text).toBe('A\nb');
    expect(
      applyLineEdits('a', [
        { range: [2, 2], replacement: 'b' },
        { range: [2, 2], replacement: 'c' },
      ]).text,
    ).toBe('a\nb\nc');
  });

  it('on an empty file, accepts only [1, 1]', () => {
    expect(applyLineEdits('', [{ range: [1, 1], replacement: 'x\n' }]).text).toBe('x\n');
    const error = expectCode(
      () => applyLineEdits('', [{ range: [1, 2], replacement: 'x' }]),
      'INVALID_RANGE',
    );
    expect(error.message).toContain('only valid range is [1, 1]');
  });

  it('refuses out-of-range, reversed, unsorted and overlapping ranges, saying which and what is valid', () => {
    const forty = Array.from({ length: 40 }, (_, i) => `line ${i + 1}\n`).join('');
    const out = expectCode(
      () => applyLineEdits(forty, [{ range: [41, 43], replacement: '' }]),
      'INVALID_RANGE',
    );
    expect(out.message).toContain('the file has 40 lines; ranges go from 1 to 41');
    expect(out.details).toMatchObject({ edit: 1, reason: 'out-of-bounds', lineCount: 40 });
    expectCode(() => applyLineEdits(forty, [{ range: [0, 1], replacement: '' }]), 'INVALID_RANGE');
    const reversed = expectCode(
      () => applyLineEdits(forty, [{ range: [5, 3], replacement: '' }]),
      'INVALID_RANGE',
    );
    expect(reversed.details.reason).toBe('reversed');
    const unsorted = failure(() =>
      applyLineEdits(forty, [
        { range: [10, 11], replacement: '' },
        { range: [2, 3], replacement: '' },
      ]),
    );
    expect(unsorted.details).toMatchObject({ edit: 2, reason: 'unsorted' });
    expect(unsorted.message).toMatch(/^Edit 2:/);
    const overlapping = failure(() =>
      applyLineEdits(forty, [
        { range: [3, 5], replacement: '' },
        { range: [4, 6], replacement: '' },
      ]),
    );
    expect(overlapping.details).toMatchObject({ edit: 2, reason: 'overlapping' });
    expectCode(() => applyLineEdits(forty, [{ range: [1.5, 2] as never, replacement: '' }]), 'INVALID_RANGE');
    expectCode(() => applyLineEdits(forty, [{ range: [1, 2], replacement: 3 as never }]), 'INVALID_INPUT');
    expectCode(() => applyLineEdits(forty, []), 'INVALID_INPUT');
  });

  it('returns the text unchanged when the edits change nothing', () => {
    expect(applyLineEdits(text, [{ range: [2, 3], replacement: 'l2' }]).text).toBe(text);
  });
});
