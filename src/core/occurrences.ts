/**
 * Every occurrence of a needle, overlapping ones included, in time linear in the text (plus the matches'
 * count): the matchers count every place an old text occurs, and on repetitive text (a file of equal lines,
 * an old_string of thousands of them) a naive "search again from the next character" costs file × old.
 * Strings use the engine's indexOf, stepping by the needle's period between overlapping matches; sequences
 * of line keys (the whitespace tiers) use Knuth–Morris–Pratt over interned numbers.
 */

/**
 * Knuth–Morris–Pratt failure function: fail[i] is the length of the longest proper border (prefix that is
 * also a suffix) of pattern[0..i].
 */
function failureOf(length: number, equal: (a: number, b: number) => boolean): Int32Array {
  const fail = new Int32Array(length);
  let k = 0;
  for (let i = 1; i < length; i++) {
    while (k > 0 && !equal(i, k)) k = fail[k - 1]!;
    if (equal(i, k)) k++;
    fail[i] = k;
  }
  return fail;
}

/** [start, end) of every occurrence of `needle` in `haystack`, overlapping ones included, ascending. */
export function indexAll(haystack: string, needle: string): [number, number][] {
  const ranges: [number, number][] = [];
  const m = needle.length;
  if (m === 0) return ranges;
  let p = haystack.indexOf(needle);
  if (p === -1) return ranges;
  // The smallest period: two overlapping matches are at least this far apart, and a match at p + period
  // needs only the period's characters beyond p + m checked.
  const fail = failureOf(m, (a, b) => needle.charCodeAt(a) === needle.charCodeAt(b));
  const period = m - fail[m - 1]!;
  const tail = needle.slice(m - period);
  while (p !== -1) {
    ranges.push([p, p + m]);
    if (period < m && haystack.startsWith(tail, p + m)) p += period;
    else p = haystack.indexOf(needle, p + period);
  }
  return ranges;
}

/** Interns line keys as small numbers, so sequences of lines compare as numbers. */
export class KeyTable {
  private readonly ids = new Map<string, number>();

  /** The key's number, adding it when new. */
  add(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
    }
    return id;
  }

  /** The key's number, or -1 when no pattern holds it (such a line matches nothing). */
  get(key: string): number {
    return this.ids.get(key) ?? -1;
  }
}

/**
 * Every start i where keys[i + j] === pattern[j] for all j (pattern entries ≥ 0), overlapping ones included,
 * ascending. O(keys + pattern).
 */
export function sequenceMatches(keys: Int32Array, pattern: Int32Array): number[] {
  const k = pattern.length;
  const starts: number[] = [];
  if (k === 0 || k > keys.length) return starts;
  const fail = failureOf(k, (a, b) => pattern[a] === pattern[b]);
  let q = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    while (q > 0 && pattern[q] !== key) q = fail[q - 1]!;
    if (pattern[q] === key) q++;
    if (q === k) {
      starts.push(i - k + 1);
      q = fail[q - 1]!;
    }
  }
  return starts;
}
