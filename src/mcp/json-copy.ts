/** Thrown inside copyPlain: the value holds something only JSON.stringify itself handles exactly. */
const NOT_PLAIN = Symbol('not plain data');

/** Deeper than this, the copy is left to JSON's own round trip (so a cycle fails with JSON's error). */
const MAX_DEPTH = 200;

/**
 * `JSON.parse(JSON.stringify(value))`, without writing the text and reading it back: what a tool result's
 * structuredContent must be (undefined fields dropped, NaN and Infinity as null, -0 as 0). Plain data
 * (objects of Object.prototype or none, arrays, strings, finite numbers, booleans, null) is copied directly;
 * anything else in it (a Date or another object with toJSON, a class instance, a boxed value, a bigint,
 * a __proto__ key, a structure deeper than MAX_DEPTH or a cycle) makes the whole value take the round
 * trip, so the result, or the error, is always exactly JSON's.
 */
export function jsonCopy(value: unknown): unknown {
  try {
    return copyPlain(value, 0);
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
  }
  return JSON.parse(JSON.stringify(value) as string);
}

/** What JSON leaves out of an object, and writes as null in an array. */
function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function copyPlain(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // -0 is written as 0; NaN and the infinities as null.
      return Number.isFinite(value) ? value + 0 : null;
    case 'object':
      break;
    default:
      throw NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_PLAIN;
    const out: unknown[] = [];
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      out.push(isSkipped(item) ? null : copyPlain(item, depth + 1));
    }
    return out;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (isSkipped(item)) continue;
    // An own __proto__ key: assigning it would set the copy's prototype instead (JSON.parse defines it).
    if (key === '__proto__') throw NOT_PLAIN;
    out[key] = copyPlain(item, depth + 1);
  }
  return out;
}
