import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/core/diff.js';
import { isEditgateError } from '../../src/core/errors.js';
import { applyDiff, codeLines, random } from './diff-helpers.js';

const lines = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => `line ${i + from}\n`).join('');

function roundTrip(oldText: string, newText: string, context?: number) {
  const diff = diffLines(oldText, newText, context === undefined ? {} : { context });
  expect(applyDiff(oldText, diff)).toBe(newText);
  return diff;
}

describe('diffLines', () => {
  it('reports identical texts with no hunks', () => {
    expect(diffLines('a\nb\n', 'a\nb\n')).toEqual({ hunks: [], added: 0, removed: 0, identical: true });
    expect(diffLines('', '')).toEqual({ hunks: [], added: 0, removed: 0, identical: true });
  });

  it('numbers a one-line change with three lines of context', () => {
    const diff = roundTrip(lines(10), lines(10).replace('line 5\n', 'LINE 5\n'));
    expect(diff.added).toBe(1);
    expect(diff.removed).toBe(1);
    expect(diff.hunks).toHaveLength(1);
    const [hunk] = diff.hunks;
    expect(hunk).toMatchObject({ oldStart: 2, oldLines: 7, newStart: 2, newLines: 7 });
    expect(hunk!.lines.map((l) => [l.kind, l.oldLine, l.newLine, l.text])).toEqual([
      ['context', 2, 2, 'line 2'],
      ['context', 3, 3, 'line 3'],
      ['context', 4, 4, 'line 4'],
      ['remove', 5, undefined, 'line 5'],
      ['add', undefined, 5, 'LINE 5'],
      ['context', 6, 6, 'line 6'],
      ['context', 7, 7, 'line 7'],
      ['context', 8, 8, 'line 8'],
    ]);
    expect(hunk!.lines.every((l) => l.eol === '\n')).toBe(true);
  });

  it('gives a new file the header -0,0 and numbers every added line', () => {
    const diff = roundTrip('', 'a\nb\nc\n');
    expect(diff.hunks).toEqual([
      {
        oldStart: 0,
        oldLines: 0,
        newStart: 1,
        newLines: 3,
        lines: [
          { kind: 'add', newLine: 1, text: 'a', eol: '\n' },
          { kind: 'add', newLine: 2, text: 'b', eol: '\n' },
          { kind: 'add', newLine: 3, text: 'c', eol: '\n' },
        ],
      },
    ]);
    expect(diff).toMatchObject({ added: 3, removed: 0, identical: false });
  });

  it('gives a deleted file the header +0,0', () => {
    const diff = roundTrip('a\nb\n', '');
    expect(diff.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 2, newStart: 0, newLines: 0 });
    expect(diff.removed).toBe(2);
  });

  it('uses the line before as start for a pure insertion or deletion', () => {
    const inserted = roundTrip('a\nb\nc\nd\n', 'a\nb\nX\nc\nd\n', 0);
    expect(inserted.hunks[0]).toMatchObject({ oldStart: 2, oldLines: 0, newStart: 3, newLines: 1 });
    const atTop = roundTrip('a\nb\n', 'X\na\nb\n', 0);
    expect(atTop.hunks[0]).toMatchObject({ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1 });
    const deleted = roundTrip('a\nb\nc\nd\n', 'a\nb\nd\n', 0);
    expect(deleted.hunks[0]).toMatchObject({ oldStart: 3, oldLines: 1, newStart: 2, newLines: 0 });
  });

  it('treats a line whose terminator changed as changed', () => {
    const diff = roundTrip('a\r\nb\r\nc\r\n', 'a\r\nb\nc\r\n');
    expect(diff.added).toBe(1);
    expect(diff.removed).toBe(1);
    const changed = diff.hunks[0]!.lines.filter((l) => l.kind !== 'context');
    expect(changed).toEqual([
      { kind: 'remove', oldLine: 2, text: 'b', eol: '\r\n' },
      { kind: 'add', newLine: 2, text: 'b', eol: '\n' },
    ]);
  });

  it('treats adding or removing the final newline as a change of the last line', () => {
    const diff = roundTrip('a\nb', 'a\nb\n');
    expect(diff.hunks[0]!.lines).toEqual([
      { kind: 'context', oldLine: 1, newLine: 1, text: 'a', eol: '\n' },
      { kind: 'remove', oldLine: 2, text: 'b', eol: '' },
      { kind: 'add', newLine: 2, text: 'b', eol: '\n' },
    ]);
    roundTrip('a\nb\n', 'a\nb');
    roundTrip('a', 'b');
  });

  it('keeps mixed line endings exactly', () => {
    roundTrip('a\r\nb\nc\rd\r\ne', 'a\r\nB\nc\rd\r\ne\n');
    roundTrip('\r\n\n\r', '\n\r\n\r');
    roundTrip('\r', '\r\n');
    roundTrip('x\r', 'x\r\n');
  });

  it('splits at lone CR but keeps hunks on boundaries git also sees', () => {
    const oldText = 'a\rb\rc\rd\re\rf\rg\rh\ri\rj\r';
    const diff = roundTrip(oldText, oldText.replace('e', 'E'));
    expect(diff.added).toBe(1);
    expect(diff.removed).toBe(1);
    // No "\n" anywhere: for git the whole file is one line, so the hunk covers it.
    expect(diff.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 10, newStart: 1, newLines: 10 });
    const mixed = 'l1\nl2\nl3\nl4\na\rb\rc\n' + lines(10, 5);
    const mixedDiff = roundTrip(mixed, mixed.replace('line 5\n', 'LINE 5\n'), 1);
    // Context 1 would start at line 7 ("c\n"), inside the git line "a\rb\rc\n": the hunk starts at "a".
    expect(mixedDiff.hunks[0]).toMatchObject({ oldStart: 5, oldLines: 5, newStart: 5, newLines: 5 });
  });

  it('merges changes whose context touches and splits those further apart', () => {
    const base = lines(30);
    const twoChanges = (gap: number) => base.replace('line 5\n', 'X\n').replace(`line ${6 + gap}\n`, 'Y\n');
    expect(roundTrip(base, twoChanges(6)).hunks).toHaveLength(1);
    expect(roundTrip(base, twoChanges(7)).hunks).toHaveLength(2);
    expect(roundTrip(base, twoChanges(2), 1).hunks).toHaveLength(1);
    expect(roundTrip(base, twoChanges(3), 1).hunks).toHaveLength(2);
  });

  it('supports context 0 and context larger than the file', () => {
    const newText = lines(10).replace('line 3\n', 'X\n').replace('line 8\n', 'Y\n');
    const zero = roundTrip(lines(10), newText, 0);
    expect(zero.hunks).toHaveLength(2);
    expect(zero.hunks.every((h) => h.lines.every((l) => l.kind !== 'context'))).toBe(true);
    const all = roundTrip(lines(10), newText, 1000);
    expect(all.hunks).toHaveLength(1);
    expect(all.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 10 });
    roundTrip(lines(10), newText, Number.POSITIVE_INFINITY);
  });

  it('refuses a negative or non-numeric context', () => {
    expect(() => diffLines('a', 'b', { context: -1 })).toThrow(/context/);
    try {
      diffLines('a', 'b', { context: Number.NaN });
      expect.unreachable();
    } catch (error) {
      expect(isEditgateError(error, 'INVALID_INPUT')).toBe(true);
    }
  });

  it('lists removed lines before added lines within a change', () => {
    const diff = roundTrip('a\nb\nc\n', 'a\nX\nY\nc\n');
    expect(diff.hunks[0]!.lines.map((l) => l.kind)).toEqual(['context', 'remove', 'add', 'add', 'context']);
  });

  it('slides an inserted block to where a person expects it', () => {
    const oldText = 'function a() {\n  return 1;\n}\n\nfunction c() {\n  return 3;\n}\n';
    const newText =
      'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c() {\n  return 3;\n}\n';
    const diff = roundTrip(oldText, newText);
    const added = diff.hunks[0]!.lines.filter((l) => l.kind === 'add').map((l) => l.text);
    expect(added).toEqual(['function b() {', '  return 2;', '}', '']);
  });

  it('places a slidable change by indentation, as git does', () => {
    // The inserted pair could show right after line 1 or after line 2 ('' + '  if (x) {'); sliding down
    // alone picks the latter, git's indent heuristic (and editgate) the former.
    const oldText = '  }\n  if (x) {\n  z();\n    y();\n\nfunction f() {\n';
    const newText = '  }\n  if (x) {\n\n  if (x) {\n  z();\n    y();\n\nfunction f() {\n';
    const diff = roundTrip(oldText, newText);
    expect(diff.hunks[0]!.lines.slice(0, 4).map((l) => [l.kind, l.text])).toEqual([
      ['context', '  }'],
      ['add', '  if (x) {'],
      ['add', ''],
      ['context', '  if (x) {'],
    ]);
  });

  it('handles non-ASCII text and text UTF-8 cannot encode', () => {
    roundTrip('héllo\nwörld\n日本\n', 'héllo\nwörld!\n日本\n');
    roundTrip('a\n\uD800\nb\n', 'a\n\uDBFF\nb\n');
    roundTrip('😀\nx\n', '😀\ny\n');
    // Large enough for the UTF-8 byte path: multi-byte text with every kind of line end.
    const eols = ['\n', '\r\n', '\r'];
    const wide = Array.from({ length: 500 }, (_, i) => `héllo 日本 ${i % 7} 😀${eols[i % 3]}`);
    const edited = wide.map((line, i) => (i % 50 === 10 ? `ça ${line}` : line));
    const wideDiff = roundTrip(wide.join(''), edited.join(''));
    expect(wideDiff.added).toBe(10);
    // Lone surrogates that UTF-8 would turn into the same bytes must still count as different.
    const lone = Array.from({ length: 200 }, (_, i) => `line ${i}\n`);
    const loneOld = lone.map((line, i) => (i === 100 ? '\uD800\n' : line)).join('');
    const loneNew = lone.map((line, i) => (i === 100 ? '\uDBFF\n' : line)).join('');
    expect(roundTrip(loneOld, loneNew).added).toBe(1);
  });

  it('is correct on large inputs of every shape', () => {
    const next = random(42);
    const base = codeLines(200_000, next);
    const scattered = base.slice();
    for (let k = 0; k < 50; k++) {
      const at = Math.floor(next() * scattered.length);
      if (k % 3 === 0) scattered.splice(at, 2);
      else if (k % 3 === 1) scattered.splice(at, 0, 'inserted();', '');
      else scattered[at] = `changed(${k});`;
    }
    const oldText = `${base.join('\n')}\n`;
    const diff = roundTrip(oldText, `${scattered.join('\n')}\n`);
    expect(diff.hunks.length).toBeGreaterThan(10);

    const tenPercent = base.map((line, i) => (i % 10 === 3 ? `${line} // edited` : line));
    roundTrip(oldText, `${tenPercent.join('\n')}\n`);

    const small = codeLines(20_000, next);
    const unrelated = codeLines(20_000, next);
    roundTrip(`${small.join('\n')}\n`, `${unrelated.join('\n')}\n`);
    const shuffled = small.slice();
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    roundTrip(`${small.join('\n')}\n`, `${shuffled.join('\n')}\n`);
    const disjoint = small.map((line, i) => `other ${i} ${line}`);
    const none = roundTrip(`${small.join('\n')}\n`, `${disjoint.join('\r\n')}\r\n`);
    expect(none.removed).toBe(20_000);
    expect(none.added).toBe(20_000);
  });
});
