import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Diff, diffLines } from '../../src/core/diff.js';
import { applySomeHunks } from '../../src/core/diff-hunks.js';
import { lineStartOffsets, splitLines } from '../../src/core/lines.js';

/** Lines from a small alphabet with every terminator (and none at the end), so hunks repeat and meet. */
const lineText = fc
  .array(
    fc.record({
      text: fc.constantFrom('', 'x', 'y', 'z', '}', 'return;', 'é😀'),
      eol: fc.constantFrom('\n', '\n', '\n', '\r\n', '\r', ''),
    }),
    { maxLength: 60 },
  )
  .map((lines) => lines.map((l) => l.text + l.eol).join(''));
/** A text and an edited copy, edited in several far-apart places so the diff has several hunks. */
const editedPair = fc
  .tuple(
    lineText,
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.nat(3),
        fc.array(fc.constantFrom('x\n', 'q\n', 'y\r\n', 'w', 'new\n'), { maxLength: 3 }),
      ),
      { maxLength: 6 },
    ),
  )
  .map(([text, edits]) => {
    const lines = splitLines(text).map((l) => l.text + l.eol);
    for (const [at, remove, insert] of edits) lines.splice(at % (lines.length + 1), remove, ...insert);
    return [text, lines.join('')] as const;
  });

/**
 * The oracle, built another way: the taken hunks spliced into the old text by character offsets, last hunk
 * first so earlier offsets stay valid; a hunk's new side is its context and added lines.
 */
function oracle(before: string, diff: Diff, taken: ReadonlySet<number>): string {
  const starts = lineStartOffsets(before);
  const offsetOfLine = (index: number) => (index < starts.length ? starts[index]! : before.length);
  let text = before;
  for (let index = diff.hunks.length - 1; index >= 0; index--) {
    if (!taken.has(index)) continue;
    const hunk = diff.hunks[index]!;
    const first = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const newSide = hunk.lines
      .filter((line) => line.kind !== 'remove')
      .map((line) => line.text + line.eol)
      .join('');
    text = text.slice(0, offsetOfLine(first)) + newSide + text.slice(offsetOfLine(first + hunk.oldLines));
  }
  return text;
}

describe('applySomeHunks properties', () => {
  it('writes exactly the taken hunks, for random texts and random choices', () => {
    fc.assert(
      fc.property(editedPair, fc.array(fc.boolean(), { maxLength: 20 }), ([before, after], picks) => {
        const diff = diffLines(before, after, { context: 1 });
        const taken = new Set(diff.hunks.map((_, i) => i).filter((i) => picks[i] ?? false));
        const { text, placed } = applySomeHunks(before, diff, (i) => taken.has(i));
        expect(text).toBe(oracle(before, diff, taken));
        expect(placed.map((hunk) => hunk.taken)).toEqual(diff.hunks.map((_, i) => taken.has(i)));
        // What is left to do is exactly the rejected hunks: their lines, no more, no fewer.
        const rest = diffLines(text, after);
        const rejected = diff.hunks.filter((_, i) => !taken.has(i));
        const count = (kind: 'add' | 'remove') =>
          rejected.reduce((sum, hunk) => sum + hunk.lines.filter((line) => line.kind === kind).length, 0);
        expect([rest.added, rest.removed]).toEqual([count('add'), count('remove')]);
      }),
      { numRuns: 400 },
    );
  });

  it('taking every hunk gives the proposed text; taking none leaves the text unchanged', () => {
    fc.assert(
      fc.property(editedPair, ([before, after]) => {
        const diff = diffLines(before, after);
        expect(applySomeHunks(before, diff, () => true).text).toBe(after);
        expect(applySomeHunks(before, diff, () => false).text).toBe(before);
      }),
      { numRuns: 400 },
    );
  });

  it('places each hunk where its lines now stand in the result', () => {
    fc.assert(
      fc.property(editedPair, fc.array(fc.boolean(), { maxLength: 20 }), ([before, after], picks) => {
        // A lone "\r" that comes to stand before a "\n" makes one CRLF line of two: numbers shift there.
        fc.pre(!/\r(?!\n)/.test(before + after));
        const diff = diffLines(before, after, { context: 0 });
        const { text, placed } = applySomeHunks(before, diff, (i) => picks[i] ?? false);
        const lines = splitLines(text).map((l) => l.text + l.eol);
        placed.forEach((at, index) => {
          const hunk = diff.hunks[index]!;
          // With no context, a hunk's changed lines are one run: exactly its new or its old lines.
          const expected = hunk.lines
            .filter((line) => line.kind === (at.taken ? 'add' : 'remove'))
            .map((line) => line.text + line.eol);
          expect(lines.slice(at.start - 1, at.start - 1 + at.count)).toEqual(expected);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('applySomeHunks', () => {
  const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm'].join('\r\n');
  const after = before.replace('b', 'B').replace('g', 'G1\r\nG2').replace('\r\nm', '\r\nM\r\n');

  it('keeps CRLF and a missing final newline byte for byte, hunk 2 of 3 rejected', () => {
    const diff = diffLines(before, after, { context: 1 });
    expect(diff.hunks).toHaveLength(3);
    const { text, placed } = applySomeHunks(before, diff, (i) => i !== 1);
    expect(text).toBe(before.replace('b', 'B').replace('\r\nm', '\r\nM\r\n'));
    expect(placed).toEqual([
      { taken: true, start: 2, count: 1 },
      { taken: false, start: 7, count: 1 },
      { taken: true, start: 13, count: 1 },
    ]);
  });

  it('refuses a diff made from another text instead of guessing', () => {
    const diff = diffLines(before, after, { context: 1 });
    expect(() => applySomeHunks(before.replace('f', 'F'), diff, () => true)).toThrow(
      /hunk 1 of the diff does not match/,
    );
    expect(() => applySomeHunks('a\r\n', diff, () => false)).toThrow(/does not match/);
  });
});
