import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/core/diff.js';
import { EditgateError } from '../../src/core/errors.js';
import { parsePatch } from '../../src/core/patch.js';
import { applyHunks } from '../../src/core/patch-apply.js';

/** The patch from `a` to `b` as a model would write it: the diff's hunks, three lines of context each. */
function patchFrom(a: string, b: string): string {
  const out = ['*** Begin Patch', '*** Update File: f.txt'];
  for (const hunk of diffLines(a, b).hunks) {
    out.push('@@');
    for (const line of hunk.lines)
      out.push(`${{ context: ' ', add: '+', remove: '-' }[line.kind]}${line.text}`);
  }
  out.push('*** End Patch');
  return out.join('\n');
}

function apply(a: string, b: string): string {
  const [operation] = parsePatch(patchFrom(a, b));
  if (operation?.type !== 'update') throw new Error('expected an update');
  return applyHunks(a, operation.hunks, { path: 'f.txt', matching: 'tolerant' }).text;
}

/** `a` and a text made from it by a few line edits (dropped, changed and added lines). */
function editedFrom(a: fc.Arbitrary<string>): fc.Arbitrary<readonly [string, string]> {
  return a.chain((before) =>
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('drop', 'change', 'add')), { maxLength: 6 }).map((edits) => {
      const lines = before === '' ? [] : before.slice(0, -1).split('\n');
      for (const [at, what] of edits) {
        const i = lines.length === 0 ? 0 : at % lines.length;
        if (what === 'add' || lines.length === 0) lines.splice(i, 0, `new ${at}`);
        else if (what === 'drop') lines.splice(i, 1);
        else lines[i] = `${lines[i]} changed`;
      }
      return [before, lines.map((line) => `${line}\n`).join('')] as const;
    }),
  );
}

describe('a patch made from a to b', () => {
  it('applies to a and gives b when every line of a is different', () => {
    const unique = fc
      .uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '(', ')', 'x'), maxLength: 6 }), {
        maxLength: 40,
      })
      .map((lines) => lines.map((line, i) => `${i}:${line}\n`).join(''));
    fc.assert(
      fc.property(editedFrom(unique), ([a, b]) => {
        fc.pre(a !== b);
        expect(apply(a, b)).toBe(b);
      }),
      { numRuns: 300 },
    );
  });

  it('gives b, or is refused as ambiguous, whatever the lines (never another text)', () => {
    const line = fc.constantFrom('x', 'x', 'x', 'x', 'x', 'y', '  }');
    const repeated = fc
      .array(line, { minLength: 8, maxLength: 30 })
      .map((lines) => lines.map((l) => `${l}\n`).join(''));
    let refused = 0;
    fc.assert(
      fc.property(editedFrom(repeated), ([a, b]) => {
        fc.pre(a !== b);
        try {
          expect(apply(a, b)).toBe(b);
        } catch (error) {
          if (!(error instanceof EditgateError)) throw error;
          expect(error.code).toBe('AMBIGUOUS');
          refused++;
        }
      }),
      { numRuns: 300 },
    );
    // The generator repeats lines on purpose: some patches must have been ambiguous.
    console.log(`[patch property] ${refused} of 300 patches refused as ambiguous`);
    expect(refused).toBeGreaterThan(0);
  });
});
