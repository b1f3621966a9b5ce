import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyStringEdits } from '../../src/core/edit.js';
import { isOverEscaped, unescapeText } from '../../src/core/tolerant.js';

// Characters that escaping touches, so every kind of backslash sequence turns up.
const piece = fc.constantFrom('a', 'b', ' ', '\\', '"', "'", 'n', 't', '`', '$', '{');
const line = fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
const lines = (min: number) => fc.array(line, { minLength: min, maxLength: 5 });

/** A text encoded as a JSON string once too often, as a model sometimes sends it (without the quotes). */
const overEscape = (text: string) => JSON.stringify(text).slice(1, -1);

describe('the over-escape rule', () => {
  it('writes a new_string holding a real line break literally, whatever the old text matched by', () => {
    fc.assert(
      fc.property(lines(1), lines(2), lines(2), lines(0), (before, region, replacement, after) => {
        const head = before.map((l) => `head ${l}\n`).join('');
        const target = region.join('\n');
        const tail = after.map((l) => `\ntail ${l}`).join('');
        const text = `${head}${target}${tail}`;
        const newText = replacement.join('\n');
        const old = overEscape(target);
        fc.pre(old !== target && newText !== old);
        let result: ReturnType<typeof applyStringEdits>;
        try {
          result = applyStringEdits(text, [{ oldText: old, newText }]);
        } catch {
          return; // not found or ambiguous: nothing is written, which is never wrong
        }
        const at = result.text.indexOf(newText);
        expect(at).toBeGreaterThanOrEqual(0);
        expect(result.text).toContain(newText);
        if (result.edits[0]!.tier === 'unescaped' && text.indexOf(target) === text.lastIndexOf(target)) {
          const start = text.indexOf(target);
          expect(result.text).toBe(text.slice(0, start) + newText + text.slice(start + target.length));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never calls a text with a real line break over-escaped', () => {
    fc.assert(
      fc.property(lines(2), fc.string(), (parts, old) => {
        expect(isOverEscaped(parts.join('\n'), old)).toBe(false);
        expect(isOverEscaped(parts.join('\r\n'), old, { template: true })).toBe(false);
      }),
    );
  });

  it('unescapes a new_string that is itself a text encoded once too often, back to that text', () => {
    fc.assert(
      fc.property(lines(2), (parts) => {
        const text = parts.join('\n');
        const encoded = overEscape(text);
        // JSON writes control characters and `\u` forms the tier does not know; the pieces above have none.
        expect(isOverEscaped(encoded, encoded)).toBe(true);
        expect(unescapeText(encoded)).toBe(text);
      }),
    );
  });
});
