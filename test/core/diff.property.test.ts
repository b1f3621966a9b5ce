import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/core/diff.js';
import { diffIds } from '../../src/core/diff-algorithm.js';
import { createLcsScratch, lcsByBits } from '../../src/core/lcs-bits.js';
import { buildLineTable } from '../../src/core/line-table.js';
import { splitLines } from '../../src/core/lines.js';
import { applyDiff } from './diff-helpers.js';

/** Text from a tiny alphabet, so lines repeat and every kind of terminator (and none) shows up. */
const rawText = fc.string({
  unit: fc.constantFrom('a', 'b', 'c', '\n', '\r', '\r\n', 'é', '😀'),
  maxLength: 60,
});
const lineText = fc
  .array(
    fc.record({
      text: fc.constantFrom('', 'x', 'y', 'z', '}', 'return;', 'x '),
      eol: fc.constantFrom('\n', '\n', '\n', '\r\n', '\r', ''),
    }),
    { maxLength: 40 },
  )
  .map((lines) => lines.map((l) => l.text + l.eol).join(''));
/** A text and an edited copy: deletions, insertions and replacements of whole lines. */
const editedPair = fc
  .tuple(
    lineText,
    fc.array(
      fc.tuple(fc.nat(), fc.nat(3), fc.array(fc.constantFrom('x\n', 'q\n', 'y\r\n', 'w'), { maxLength: 3 })),
    ),
  )
  .map(([text, edits]) => {
    const lines = splitLines(text).map((l) => l.text + l.eol);
    for (const [at, remove, insert] of edits) lines.splice(at % (lines.length + 1), remove, ...insert);
    return [text, lines.join('')] as const;
  });

describe('diffLines properties', () => {
  it('applying the diff to the old text gives the new text, for arbitrary texts', () => {
    fc.assert(
      fc.property(rawText, rawText, fc.integer({ min: 0, max: 4 }), (a, b, context) => {
        expect(applyDiff(a, diffLines(a, b, { context }))).toBe(b);
      }),
      { numRuns: 2000 },
    );
  });

  it('applying the diff to the old text gives the new text, for edited texts', () => {
    fc.assert(
      fc.property(editedPair, fc.integer({ min: 0, max: 4 }), ([a, b], context) => {
        const diff = diffLines(a, b, { context });
        expect(applyDiff(a, diff)).toBe(b);
        expect(diff.identical).toBe(a === b);
        // Kept lines are as many on both sides.
        const oldCount = splitLines(a).length;
        const newCount = splitLines(b).length;
        expect(oldCount - diff.removed).toBe(newCount - diff.added);
      }),
      { numRuns: 2000 },
    );
  });

  it('applying the diff to the old text gives the new text, for longer texts (byte interning path)', () => {
    // ASCII texts (byte and char offsets agree) and texts with multi-byte characters (they do not).
    const ascii = fc.constantFrom('', 'x', 'y', '}', '  z');
    const wide = fc.constantFrom('', 'x', '}', 'héllo', '😀', 'ü');
    const longText = fc
      .constantFrom(ascii, wide)
      .chain((text) =>
        fc.array(fc.record({ text, eol: fc.constantFrom('\n', '\n', '\r\n', '\r', '') }), {
          minLength: 40,
          maxLength: 160,
        }),
      )
      .map((lines) => lines.map((l) => l.text + l.eol).join(''));
    fc.assert(
      fc.property(longText, longText, fc.integer({ min: 0, max: 3 }), (a, b, context) => {
        expect(applyDiff(a, diffLines(a, b, { context }))).toBe(b);
        expect(applyDiff(a, diffLines(a, a + b, { context }))).toBe(a + b);
      }),
      { numRuns: 500 },
    );
  });

  it('line tables agree with splitLines', () => {
    fc.assert(
      fc.property(rawText, (text) => {
        const table = buildLineTable(text);
        const lines = splitLines(text);
        expect(table.count).toBe(lines.length);
        for (let i = 0; i < lines.length; i++) {
          expect(text.slice(table.starts[i], table.starts[i + 1])).toBe(lines[i]!.text + lines[i]!.eol);
        }
      }),
    );
  });
});

/** LCS length by the textbook table, the reference for the engine. */
function lcsLength(a: number[], b: number[]): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const next = [0];
    for (let j = 0; j < b.length; j++) next.push(x === b[j] ? row[j]! + 1 : Math.max(row[j + 1]!, next[j]!));
    row = next;
  }
  return row[b.length]!;
}

/** The lines both sides keep must be the same sequence; returns its length. */
function keptLength(a: number[], b: number[], removed: ArrayLike<number>, added: ArrayLike<number>): number {
  const keptA = a.filter((_, i) => removed[i] === 0);
  const keptB = b.filter((_, j) => added[j] === 0);
  expect(keptA).toEqual(keptB);
  return keptA.length;
}

describe('diff engine', () => {
  const ids = (max: number, length: number) => fc.array(fc.integer({ min: 0, max }), { maxLength: length });

  it('keeps a longest common subsequence on small inputs', () => {
    fc.assert(
      fc.property(ids(12, 50), ids(12, 50), (a, b) => {
        const { removed, added } = diffIds(Int32Array.from(a), Int32Array.from(b), 13);
        const kept = keptLength(a, b, removed, added);
        // Up to 256 lines the engine skips git's cleanup (which may set aside lines with many partners), so
        // the result is a longest common subsequence.
        expect(kept).toBe(lcsLength(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps a common subsequence on large hard inputs (cost cap and bit-parallel paths)', () => {
    fc.assert(
      fc.property(ids(40, 3000), ids(40, 3000), (a, b) => {
        const { removed, added } = diffIds(Int32Array.from(a), Int32Array.from(b), 41);
        keptLength(a, b, removed, added);
      }),
      { numRuns: 30 },
    );
  });

  it('bit-parallel LCS is a longest common subsequence', () => {
    fc.assert(
      fc.property(ids(6, 90), ids(6, 90), (a, b) => {
        const removed = new Uint8Array(a.length);
        const added = new Uint8Array(b.length);
        lcsByBits(
          Int32Array.from(a),
          0,
          a.length,
          Int32Array.from(b),
          0,
          b.length,
          createLcsScratch(7),
          (i) => {
            removed[i] = 1;
          },
          (j) => {
            added[j] = 1;
          },
        );
        expect(keptLength(a, b, removed, added)).toBe(lcsLength(a, b));
      }),
      { numRuns: 1000 },
    );
  });
});
