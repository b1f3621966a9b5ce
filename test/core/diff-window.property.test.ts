/**
 * diffLines cuts away the lines both texts share at their ends before it diffs (an edit of one line of a
 * long file diffs a window of about 140 lines). The cut must never show: the diff of the window, numbered
 * as lines of the whole texts, is exactly the diff of the whole texts, hunk for hunk and line for line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changedWindow, diffLines, diffWhole } from '../../src/core/diff.js';

/** Long texts (past the window's minimum size) of short lines, with a few edits somewhere in them. */
const lineArb = fc.constantFrom('a', 'b', '}', '', '  x', 'const v = 1;', '\t\tdeep', '// note');
const eolArb = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r');
const textArb = fc
  .record({
    lines: fc.array(fc.tuple(lineArb, eolArb), { minLength: 1000, maxLength: 2000 }),
    crlf: fc.boolean(),
    lone: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  })
  .map(({ lines, crlf, lone }) =>
    lines
      .map(
        ([text, eol]) =>
          text + (eol === '\r' && !lone ? (crlf ? '\r\n' : '\n') : eol === '\r\n' && !crlf ? '\n' : eol),
      )
      .join(''),
  );

const editsArb = fc.array(
  fc.record({
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    remove: fc.integer({ min: 0, max: 20 }),
    insert: fc
      .array(fc.constantFrom('x', 'y', ' ', '\n', '\n', '\t', '\r\n', '}'), { maxLength: 12 })
      .map((chars) => chars.join('')),
  }),
  { minLength: 1, maxLength: 4 },
);

function applyEdits(text: string, edits: { at: number; remove: number; insert: string }[]): string {
  let out = text;
  for (const edit of edits) {
    const at = Math.floor(edit.at * out.length);
    out = out.slice(0, at) + edit.insert + out.slice(at + edit.remove);
  }
  return out;
}

describe('diffLines on a window', () => {
  it('gives exactly the diff of the whole texts', () => {
    let windowed = 0;
    fc.assert(
      fc.property(textArb, editsArb, fc.integer({ min: 0, max: 5 }), (old, edits, context) => {
        const next = applyEdits(old, edits);
        if (changedWindow(old, next, context)) windowed++;
        expect(diffLines(old, next, { context })).toEqual(
          old === next ? { hunks: [], added: 0, removed: 0, identical: true } : diffWhole(old, next, context),
        );
      }),
      // Shrinking texts of a thousand lines takes minutes; the first counterexample is reported as found.
      { numRuns: 300, endOnFailure: true },
    );
    // Most runs really diffed a window (the rest: a lone "\r", or changes near both ends).
    expect(windowed).toBeGreaterThan(100);
  });

  it('an edit of one line of a 2,000-line file is numbered where it is', () => {
    const old = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const next = old.replace('line 1500\n', 'line fifteen hundred\n');
    const diff = diffLines(old, next);
    expect(diff).toEqual(diffWhole(old, next));
    expect(diff.hunks).toHaveLength(1);
    expect(diff.hunks[0]).toMatchObject({ oldStart: 1497, oldLines: 7, newStart: 1497, newLines: 7 });
  });
});
