/**
 * The delta between the errors of a file's old and new text (src/checks/syntax-delta.ts): errors already
 * in the file are not the change's, wherever the change moved them; an error the change added is, wherever
 * the parser reported it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addedErrors, changedLines, type ErrorSite, lineToShow } from '../../src/checks/syntax-delta.js';

const site = (row: number, column = 0, kind: ErrorSite['kind'] = 'error', endRow = row): ErrorSite => ({
  row,
  column,
  endRow,
  kind,
  type: kind === 'missing' ? '}' : 'ERROR',
  text: '',
});

describe('changedLines', () => {
  it('cuts the common lines at both ends, never overlapping', () => {
    expect(changedLines('a\nb\nc', 'a\nx\nc')).toEqual({
      prefix: 1,
      suffix: 1,
      beforeLines: 3,
      afterLines: 3,
    });
    expect(changedLines('a\na', 'a\na\na')).toEqual({ prefix: 2, suffix: 0, beforeLines: 2, afterLines: 3 });
    expect(changedLines('', 'x')).toEqual({ prefix: 0, suffix: 0, beforeLines: 1, afterLines: 1 });
  });
});

describe('addedErrors', () => {
  it('an error the old text had, at its place below the change (moved by the lines added), is not the change’s', () => {
    const lines = changedLines('a\nb\nbroken', 'a\nb1\nb2\nbroken');
    expect(addedErrors([site(2, 3)], [site(3, 3)], lines)).toEqual([]);
  });

  it('an error in the changed lines is the change’s', () => {
    const lines = changedLines('a\nb\nc', 'a\nb(\nc');
    expect(addedErrors([], [site(1, 1)], lines)).toEqual([site(1, 1)]);
  });

  it('an old error the parser now reports elsewhere is not counted twice: more unmatched new errors than old', () => {
    const lines = changedLines('x\na\nb\nc\nd', 'x\na\nB\nc\nd');
    // The old error at row 0 moved to row 1; the change added one at row 2.
    expect(addedErrors([site(0)], [site(1), site(2)], lines)).toEqual([site(2)]);
    // Only moved: nothing added.
    expect(addedErrors([site(0)], [site(1)], lines)).toEqual([]);
  });

  it('shows where an error that began above the change runs into it: the first changed line', () => {
    const lines = changedLines('f {\n  a\n}\n', 'f {\n  a\n');
    expect(lineToShow(site(0, 0, 'error', 2), lines)).toBe(3);
    // Above or below the change: the nearest changed line.
    expect(lineToShow(site(0, 0, 'error', 0), lines)).toBe(3);
    const middle = changedLines('a\nb\nc\nd\ne', 'a\nB\nc\nd\ne');
    expect(lineToShow(site(4), middle)).toBe(2);
    expect(lineToShow(site(1), middle)).toBe(2);
  });

  const rowsArb = fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 8 });
  const textArb = fc.array(fc.constantFrom('a', 'b', 'c', '}', ''), { minLength: 70, maxLength: 90 });

  it('property: the same errors in an unchanged text, or outside any change, add nothing', () => {
    fc.assert(
      fc.property(
        textArb,
        rowsArb,
        fc.integer({ min: 0, max: 69 }),
        fc.array(fc.constantFrom('x', 'y')),
        (lines, rows, at, inserted) => {
          const before = lines.join('\n');
          const after = [...lines.slice(0, at), ...inserted, ...lines.slice(at)].join('\n');
          const changed = changedLines(before, after);
          const beforeSites = rows.map((row) => site(row, 1));
          // The same errors, moved as the lines below the insertion moved.
          const afterSites = rows.map((row) =>
            site(
              row < changed.prefix
                ? row
                : row >= changed.beforeLines - changed.suffix
                  ? row + inserted.length
                  : row,
              1,
            ),
          );
          const untouched = rows.every(
            (row) => row < changed.prefix || row >= changed.beforeLines - changed.suffix,
          );
          if (untouched) expect(addedErrors(beforeSites, afterSites, changed)).toEqual([]);
          expect(addedErrors(beforeSites, beforeSites, changedLines(before, before))).toEqual([]);
        },
      ),
    );
  });

  it('property: a new text with more errors than the old always reports the difference', () => {
    fc.assert(
      fc.property(rowsArb, rowsArb, (old, now) => {
        const lines = changedLines('a\n'.repeat(70), `${'a\n'.repeat(30)}b\n${'a\n'.repeat(39)}`);
        const added = addedErrors(
          old.map((r) => site(r)),
          now.map((r) => site(r)),
          lines,
        );
        expect(added.length).toBeGreaterThanOrEqual(now.length - old.length);
        expect(added.length).toBeLessThanOrEqual(Math.max(0, now.length - old.length));
      }),
    );
  });
});
