import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/core/diff.js';
import { seenAfterChange, unseenLines } from '../../src/workspace/read-coverage.js';

const lines = (max: number) =>
  fc.array(fc.constantFrom('a', 'b', 'c', '}', ''), { minLength: 1, maxLength: max });
const text = (ls: readonly string[]) => ls.map((line) => `${line}\n`).join('');

/** Seen ranges: a random subset of 1..n as merged inclusive ranges. */
function rangesOf(flags: readonly boolean[]): [number, number][] {
  const ranges: [number, number][] = [];
  flags.forEach((seen, i) => {
    if (!seen) return;
    const last = ranges[ranges.length - 1];
    if (last && last[1] === i) last[1] = i + 1;
    else ranges.push([i + 1, i + 1]);
  });
  return ranges;
}

describe('the read-coverage rule', () => {
  it('allows a change only when every stretch of unseen lines is still in the new text, whole and in order', () => {
    fc.assert(
      fc.property(
        lines(12),
        lines(12),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        (old, next, flags) => {
          const seenFlags = flags.slice(0, old.length);
          const unseen = unseenLines(rangesOf(seenFlags), diffLines(text(old), text(next)));
          // Lines it asks for are never ones already seen.
          for (const [first, last] of unseen) {
            for (let line = first; line <= last; line++) expect(seenFlags[line - 1]).not.toBe(true);
          }
          if (unseen.length > 0) return;
          // Allowed: each maximal run of unseen old lines appears in the new text as a block, in order.
          let from = 0;
          let i = 0;
          while (i < old.length) {
            if (seenFlags[i]) {
              i++;
              continue;
            }
            let j = i;
            while (j < old.length && !seenFlags[j]) j++;
            const run = old.slice(i, j);
            let at = -1;
            for (let k = from; k + run.length <= next.length; k++) {
              if (run.every((line, r) => next[k + r] === line)) {
                at = k;
                break;
              }
            }
            expect(at, `unseen lines ${i + 1}-${j} kept`).toBeGreaterThanOrEqual(0);
            from = at + run.length;
            i = j;
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('allows any change when every line was seen', () => {
    fc.assert(
      fc.property(lines(10), lines(10), (old, next) => {
        expect(unseenLines([[1, old.length]], diffLines(text(old), text(next)))).toEqual([]);
      }),
    );
  });
});

describe('seenAfterChange', () => {
  it('keeps exactly the read lines the change kept, at their new numbers, and adds the written ones', () => {
    fc.assert(
      fc.property(
        lines(12),
        lines(12),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        (old, next, flags) => {
          const seenFlags = flags.slice(0, old.length);
          const diff = diffLines(text(old), text(next));
          const after = seenAfterChange(rangesOf(seenFlags), diff);
          const seenNew = new Set<number>();
          for (const [first, last] of after) for (let line = first; line <= last; line++) seenNew.add(line);
          // Every new line is either written by the change or a kept old line, seen exactly when it was seen.
          let oldLine = 1;
          let newLine = 1;
          const lines = diff.hunks.flatMap((hunk) => hunk.lines);
          const changedOld = new Set(lines.filter((l) => l.kind === 'remove').map((l) => l.oldLine));
          const addedNew = new Set(lines.filter((l) => l.kind === 'add').map((l) => l.newLine));
          while (oldLine <= old.length || newLine <= next.length) {
            if (changedOld.has(oldLine)) {
              oldLine++;
              continue;
            }
            if (addedNew.has(newLine)) {
              expect(seenNew.has(newLine)).toBe(true);
              newLine++;
              continue;
            }
            if (oldLine > old.length || newLine > next.length) break;
            expect(seenNew.has(newLine), `old ${oldLine} -> new ${newLine}`).toBe(
              seenFlags[oldLine - 1] === true,
            );
            oldLine++;
            newLine++;
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
