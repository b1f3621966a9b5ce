/**
 * Longest common subsequence of two short id sequences by bit-parallel dynamic programming (Allison-Dix /
 * Hyyro): one row of the LCS table is a bit vector, updated 32 cells per operation. Cost is
 * rows x ceil(columns / 32) whatever the difference, which beats Myers' O((N+M)D) on small boxes where the
 * two sides have little in common (D close to N+M) -- exactly the boxes shuffled or unrelated text leaves.
 * The rows are kept for the traceback, so callers bound the area.
 */

/** Scratch space reused across calls: `slot` maps an id to its row in `peq` (-1: absent from `a`). */
export interface LcsScratch {
  slot: Int32Array;
}

export function createLcsScratch(idCount: number): LcsScratch {
  return { slot: new Int32Array(idCount).fill(-1) };
}

/**
 * Calls `removed(i)` for each index of `a[off1, lim1)` and `added(j)` for each index of `b[off2, lim2)` that
 * is not part of one longest common subsequence.
 */
export function lcsByBits(
  a: Int32Array,
  off1: number,
  lim1: number,
  b: Int32Array,
  off2: number,
  lim2: number,
  scratch: LcsScratch,
  removed: (i: number) => void,
  added: (j: number) => void,
): void {
  const m = lim1 - off1;
  const n = lim2 - off2;
  const words = (m + 31) >>> 5;
  const { slot } = scratch;

  let distinct = 0;
  for (let i = off1; i < lim1; i++) if (slot[a[i]!] === -1) slot[a[i]!] = distinct++;
  // peq[s * words ..]: where in `a` the s-th distinct id occurs.
  const peq = new Int32Array(distinct * words);
  for (let i = 0; i < m; i++) peq[slot[a[off1 + i]!]! * words + (i >>> 5)]! |= 1 << (i & 31);

  // rows[j * words ..]: bit i is 0 where LCS(a[..i+1], b[..j]) = LCS(a[..i], b[..j]) + 1.
  const rows = new Int32Array((n + 1) * words).fill(-1);
  for (let j = 0; j < n; j++) {
    const previous = j * words;
    const current = previous + words;
    const s = slot[b[off2 + j]!]!;
    if (s === -1) {
      rows.copyWithin(current, previous, current);
      continue;
    }
    const mask = s * words;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const v = rows[previous + w]! >>> 0;
      const u = (v & peq[mask + w]!) >>> 0;
      const sum = v + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      // (V + U) | (V - U); U is a subset of V, so V - U is V & ~U and never borrows.
      rows[current + w] = sum | (v & ~u);
    }
  }

  for (let i = 0; i < m; i++) slot[a[off1 + i]!] = -1;

  let i = m;
  let j = n;
  while (i > 0 && j > 0) {
    if (a[off1 + i - 1] === b[off2 + j - 1]) {
      i--;
      j--;
    } else if ((rows[j * words + ((i - 1) >>> 5)]! >>> ((i - 1) & 31)) & 1) {
      removed(off1 + --i);
    } else {
      added(off2 + --j);
    }
  }
  while (i > 0) removed(off1 + --i);
  while (j > 0) added(off2 + --j);
}
