// jsonCopy is JSON.parse(JSON.stringify(value)) without the text: the same value, or the same error, always.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonCopy } from '../../src/mcp/json-copy.js';

/** The round trip jsonCopy replaces: its value, or the error it throws. */
function roundTrip(value: unknown): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(JSON.stringify(value) as string) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

function copied(value: unknown): { value: unknown } | { error: string } {
  try {
    return { value: jsonCopy(value) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** Equal as values (Object.is on numbers, so -0 differs from 0), with the same key order and prototypes. */
function expectSame(value: unknown): void {
  const expected = roundTrip(value);
  const actual = copied(value);
  expect(actual).toStrictEqual(expected);
  if ('value' in expected && 'value' in actual) {
    expect(JSON.stringify(actual.value)).toBe(JSON.stringify(expected.value));
  }
}

describe('jsonCopy', () => {
  it('gives what the JSON round trip gives, for any value', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withBoxedValues: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withObjectString: true,
          withSparseArray: true,
          withTypedArray: true,
          withUnicodeString: true,
          maxDepth: 4,
        }),
        (value) => expectSame({ ok: true, message: 'm', details: { value } }),
      ),
      { numRuns: 2000 },
    );
  });

  it('takes the JSON path for what plain data does not hold, with the same result or error', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y = undefined,
      ) {}
    }
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const deep: unknown[] = [];
    let cursor = deep;
    for (let i = 0; i < 500; i++) {
      const next: unknown[] = [];
      cursor.push(next);
      cursor = next;
    }
    const cases: unknown[] = [
      { n: -0, nan: Number.NaN, inf: -Infinity, u: undefined, f: () => 1, s: Symbol('s') },
      [undefined, () => 1, Symbol('s'), -0, Number.NaN, 3],
      // A sparse array: its hole is written as null.
      Object.assign(new Array(3), { 0: 'a', 2: 'c' }),
      { when: new Date(0), point: new Point(1), boxed: new String('s'), map: new Map([[1, 2]]) },
      { toJSON: () => ({ replaced: true }) },
      JSON.parse('{"__proto__": {"polluted": true}, "b": 1}'),
      Object.assign(Object.create(null), { a: 1, b: [Object.create(null)] }),
      { 2: 'b', 1: 'a', z: 'z', a: 'a' },
      { lone: '\ud800 \udc00 é \u2028 "\\' },
      deep,
      cyclic,
      { big: 1n },
      undefined,
      'text',
      null,
    ];
    for (const value of cases) expectSame(value);
    expect(() => jsonCopy(cyclic)).toThrow(TypeError);
  });
});
