import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyLineEdits, applyStringEdits, type LineEdit } from '../../src/core/edit.js';
import { EditgateError } from '../../src/core/errors.js';
import { type Eol, type Line, splitLines, summarizeEol } from '../../src/core/lines.js';
import { findMatches } from '../../src/core/match.js';

// Small alphabets so that matches, repeats, line endings and tolerated differences all happen often.
const char = fc.constantFrom('a', 'b', 'c', ' ', '\t', '\n', '\r\n', '\r', '$', '“', '"', '…', '.');
const text = fc.array(char, { maxLength: 40 }).map((parts) => parts.join(''));
const lineText = fc
  .array(fc.constantFrom('a', 'b', ' ', '$'), { maxLength: 5 })
  .map((parts) => parts.join(''));
const eol = fc.constantFrom<Eol>('\n', '\r\n', '\r');

const tiersSeen = new Set<string>();
const MATCH_TIERS = [
  'exact',
  'trailing-whitespace',
  'indentation',
  'typographic',
  'line-numbers',
  'unescaped',
  'blank-lines',
];
const perLine = (f: (line: string, i: number) => string) => (s: string) => s.split('\n').map(f).join('\n');
/** How models get old text slightly wrong: each maps to one tolerant tier (or to none). */
const distortion = fc.constantFrom<(s: string) => string>(
  (s) => s,
  perLine((line) => line.replace(/[ \t]+$/, '')),
  perLine((line) => `${line}  `),
  perLine((line) => `  ${line}`),
  perLine((line) => line.replace(/^[ \t]/, '')),
  (s) => s.replace(/[“”]/g, '"').replace(/…/g, '...'),
  (s) => s.replace(/"/g, '“'),
  perLine((line, i) => `${String(i + 1).padStart(6)}\t${line}`),
  (s) => s.replace(/\r?\n/g, '\\n').replace(/"/g, '\\"'),
);

/** Text with a single kind of line ending, so the expected line ending of inserted text is known. */
const uniformText = fc
  .tuple(fc.array(lineText, { maxLength: 8 }), eol, fc.boolean())
  .map(([lines, ending, final]) => lines.join(ending) + (final && lines.length > 0 ? ending : ''));

function attempt<T>(run: () => T): T | EditgateError {
  try {
    return run();
  } catch (error) {
    if (error instanceof EditgateError) return error;
    throw error;
  }
}

describe('string edits', () => {
  it('never change text outside the match', () => {
    fc.assert(
      fc.property(
        text,
        fc.nat(),
        fc.nat(),
        distortion,
        text,
        fc.boolean(),
        (file, a, b, distort, newText, replaceAll) => {
          // An old text taken from the file, maybe distorted the way models distort it, so every tier is hit.
          const from = a % (file.length + 1);
          const oldText = distort(file.slice(from, from + 1 + (b % 12)));
          const result = attempt(() => applyStringEdits(file, [{ oldText, newText, replaceAll }]));
          if (result instanceof EditgateError || oldText === '') return; // '' only fills an empty file
          const found = findMatches(file, oldText, { replaceAll });
          expect(found).not.toBeNull();
          const ranges = found!.ranges;
          expect(result.edits[0]?.tier).toBe(found!.tier);
          expect(result.replacements).toBe(ranges.length);
          const first = ranges[0]!;
          const last = ranges[ranges.length - 1]!;
          expect(result.text.startsWith(file.slice(0, first[0]))).toBe(true);
          expect(result.text.endsWith(file.slice(last[1]))).toBe(true);
          expect(result.text.length).toBeGreaterThanOrEqual(first[0] + file.length - last[1]);
          tiersSeen.add(found!.tier);
        },
      ),
      { numRuns: 4000 },
    );
    // The generator must reach every tier, or the property proves less than it claims.
    expect([...tiersSeen].sort()).toEqual([...MATCH_TIERS].sort());
  });

  it('put the new text, in the file’s line ending, exactly where the old text was', () => {
    fc.assert(
      fc.property(uniformText, fc.nat(), fc.nat(), text, fc.boolean(), (file, a, b, newText, replaceAll) => {
        const from = a % (file.length + 1);
        let oldText = file.slice(from, from + 1 + (b % 10));
        if (oldText.startsWith('\n') && file[from - 1] === '\r') oldText = oldText.slice(1); // not half a CRLF
        const result = attempt(() =>
          applyStringEdits(file, [{ oldText, newText, replaceAll }], { matching: 'exact' }),
        );
        if (result instanceof EditgateError) {
          expect(['AMBIGUOUS', 'NO_CHANGE', 'INVALID_INPUT', 'NOT_FOUND']).toContain(result.code);
          if (result.code === 'NOT_FOUND')
            expect(oldText.endsWith('\r') && file[from + oldText.length] === '\n').toBe(true);
          return;
        }
        if (oldText === '') return; // only fills an empty file
        const ending = summarizeEol(file).dominant;
        const inserted = newText.replace(/\r\n?/g, '\n').split('\n').join(ending);
        const ranges = findMatches(file, oldText, { matching: 'exact', replaceAll })!.ranges;
        // Rebuilt by hand: the gaps between matches as they were, the new text in each match.
        let expected = '';
        let at = 0;
        for (const [start, end] of ranges) {
          expected += file.slice(at, start) + inserted;
          at = end;
        }
        expected += file.slice(at);
        expect(result.text).toBe(expected);
        // Reported lines: where each replacement starts, counted in the result with universal newlines.
        const firstRange = ranges[0]!;
        const lineOfStart = splitLines(result.text.slice(0, firstRange[0])).length;
        const startsLine = firstRange[0] === 0 || /[\r\n]$/.test(result.text.slice(0, firstRange[0]));
        const expectedFirst = inserted === '' ? undefined : lineOfStart + (startsLine ? 1 : 0);
        if (expectedFirst !== undefined)
          expect(result.edits[0]?.lines[0]?.[0]).toBe(Math.max(1, expectedFirst));
      }),
      { numRuns: 3000 },
    );
  });

  it('leave the input as it was, whether they succeed or fail', () => {
    fc.assert(
      fc.property(
        text,
        fc.array(fc.record({ oldText: text, newText: text, replaceAll: fc.boolean() }), { maxLength: 3 }),
        (file, edits) => {
          const copy = structuredClone(edits);
          const frozen = Object.freeze(edits.map((edit) => Object.freeze(edit)));
          attempt(() => applyStringEdits(file, frozen));
          expect(edits).toEqual(copy);
        },
      ),
    );
  });
});

// ── line edits against a straightforward model on line arrays ───────────────────────────────────────────

/** The reference: splice line arrays bottom-up, then give every line but the last a line ending. */
function referenceLineEdits(file: string, edits: readonly LineEdit[]): string {
  const { dominant, finalNewline } = summarizeEol(file);
  const lines: Line[] = splitLines(file);
  const count = lines.length;
  for (let i = edits.length - 1; i >= 0; i--) {
    const { range, replacement } = edits[i]!;
    const added = splitLines(replacement).map((line) => ({
      text: line.text,
      eol: line.eol === '' ? '' : dominant,
    }));
    const last = added[added.length - 1];
    const endsFile = range[1] === count + 1 && i === edits.length - 1;
    if (last && last.eol === '' && !(endsFile && !finalNewline)) last.eol = dominant;
    lines.splice(range[0] - 1, range[1] - range[0], ...(added as Line[]));
  }
  return lines
    .map((line, i) => line.text + (line.eol === '' && i < lines.length - 1 ? dominant : line.eol))
    .join('');
}

const lineFile = fc
  .tuple(fc.array(lineText, { maxLength: 8 }), eol, fc.boolean())
  .map(([lines, ending, final]) => lines.join(ending) + (final && lines.length > 0 ? ending : ''));

/** Valid, sorted, non-overlapping ranges for a file of `count` lines. */
function lineEditsFor(count: number) {
  return fc
    .array(fc.tuple(fc.integer({ min: 1, max: count + 1 }), fc.integer({ min: 1, max: count + 1 }), text), {
      minLength: 1,
      maxLength: 4,
    })
    .map((raw) => {
      const bounds = [...raw.map(([a]) => a), ...raw.map(([, b]) => b)].sort((x, y) => x - y);
      return raw.map(
        ([, , replacement], i): LineEdit => ({
          range: [bounds[2 * i]!, bounds[2 * i + 1]!],
          replacement: replacement.replace(/\r\n?/g, '\n'),
        }),
      );
    });
}

describe('line edits', () => {
  it('equal the reference model on line arrays', () => {
    fc.assert(
      fc.property(
        lineFile.chain((file) => fc.tuple(fc.constant(file), lineEditsFor(splitLines(file).length))),
        ([file, edits]) => {
          expect(applyLineEdits(file, edits).text).toBe(referenceLineEdits(file, edits));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('refuse anything out of bounds, reversed or overlapping, and leave the input as it was', () => {
    fc.assert(
      fc.property(
        lineFile,
        fc.array(fc.tuple(fc.integer({ min: -1, max: 12 }), fc.integer({ min: -1, max: 12 })), {
          minLength: 1,
          maxLength: 3,
        }),
        (file, ranges) => {
          const count = splitLines(file).length;
          const edits = ranges.map((range): LineEdit => ({ range, replacement: 'x' }));
          const copy = structuredClone(edits);
          const valid = ranges.every(
            ([start, end], i) =>
              start >= 1 && start <= end && end <= count + 1 && start >= (ranges[i - 1]?.[1] ?? 1),
          );
          const result = attempt(() => applyLineEdits(file, edits));
          expect(result instanceof EditgateError).toBe(!valid);
          if (result instanceof EditgateError) expect(result.code).toBe('INVALID_RANGE');
          expect(edits).toEqual(copy);
        },
      ),
    );
  });
});
