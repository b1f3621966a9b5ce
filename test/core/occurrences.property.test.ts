import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexAll, sequenceMatches } from '../../src/core/occurrences.js';

/** Every occurrence the slow, obvious way. */
function naiveStrings(haystack: string, needle: string): [number, number][] {
  const out: [number, number][] = [];
  for (let p = 0; p + needle.length <= haystack.length; p++) {
    if (haystack.startsWith(needle, p)) out.push([p, p + needle.length]);
  }
  return out;
}

function naiveSequence(keys: number[], pattern: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + pattern.length <= keys.length; i++) {
    if (pattern.every((key, j) => keys[i + j] === key)) out.push(i);
  }
  return out;
}

// Two or three letters: periodic needles and long runs of overlapping matches happen all the time.
const small = (letters: string[], max: number) =>
  fc.array(fc.constantFrom(...letters), { maxLength: max }).map((parts) => parts.join(''));

describe('indexAll', () => {
  it('finds every occurrence, overlapping ones included, as a naive scan does', () => {
    fc.assert(
      fc.property(small(['a', 'b'], 60), small(['a', 'b'], 6), (haystack, needle) => {
        fc.pre(needle !== '');
        expect(indexAll(haystack, needle)).toEqual(naiveStrings(haystack, needle));
      }),
      { numRuns: 2000 },
    );
  });

  it('handles periodic needles in a periodic text', () => {
    expect(indexAll('abababab', 'abab')).toEqual([
      [0, 4],
      [2, 6],
      [4, 8],
    ]);
    expect(indexAll('aaaa', 'aa')).toHaveLength(3);
    expect(indexAll('aaa', '')).toEqual([]);
  });
});

describe('sequenceMatches', () => {
  it('finds every start of the pattern, overlapping ones included, as a naive scan does', () => {
    const keys = fc.array(fc.integer({ min: -1, max: 2 }), { maxLength: 50 });
    const pattern = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(keys, pattern, (k, p) => {
        expect(sequenceMatches(Int32Array.from(k), Int32Array.from(p))).toEqual(naiveSequence(k, p));
      }),
      { numRuns: 2000 },
    );
  });
});
