/**
 * The line-diff engine, on interned line ids. It follows git's xdiff (xdiffi.c, xprepare.c), whose speed and
 * bounds are well proven: trim the common ends, set aside lines that have no partner in the other side
 * (they are changed whatever happens), run Myers' O(ND) search with a linear-space middle-snake split, and cap
 * the cost of each split: past 256 edits it cuts at the furthest-reaching points instead of the optimal one,
 * so pathological inputs (shuffled lines, unrelated files) stay fast and still yield a correct, if not
 * minimal, edit script. Two additions: small boxes where Myers turns out expensive are solved exactly by
 * bit-parallel LCS (`lcs-bits.ts`), and a capped split keeps both the forward and the backward cut. Finally
 * changed groups slide to where a person expects them (`diff-slide.ts`).
 */

import { type LineShape, slideGroups } from './diff-slide.js';
import { createLcsScratch, type LcsScratch, lcsByBits } from './lcs-bits.js';

/** `removed[i]` is 1 when line i of `a` is not kept; `added[j]` is 1 when line j of `b` is new. */
export interface ChangeMarks {
  removed: Uint8Array;
  added: Uint8Array;
}

/**
 * Edits a split may spend before cutting at the furthest-reaching point. git uses max(256, ~sqrt(N)), which
 * is 256 below ~32k lines per side; keeping 256 above that bounds hard regions of huge files at O(N * 256)
 * (2x faster on a reversed 200k-line file) for a diff that is at most slightly less minimal there.
 */
const MAX_COST = 256;
const MAX_EQLIMIT = 1024; // lines occurring more often than this (or sqrt(n)) are "multimatch"
const SIMSCAN_WINDOW = 100;
const KPDIS_RUN = 4;
const LINE_MAX = 0x3fffffff;
/**
 * Boxes up to this many cells, and this many old lines, may switch to bit-parallel LCS: its traceback keeps
 * area / 32 words, its match masks up to (old lines)^2 / 32.
 */
const BITS_MAX_AREA = 1 << 20;
const BITS_MAX_SIDE = 4096;
/** Switch once Myers has spent about as much as the bit-parallel pass would: ec^2 > area / BITS_COST. */
const BITS_COST = 16;
/** Regions up to this many lines (both sides) skip the cleanup. */
const SMALL_REGION = 256;

/**
 * `a` and `b` are line ids in `[0, idCount)`; equal ids mean equal lines. With `shape`, changed groups that
 * can slide are placed by git's indent heuristic.
 */
export function diffIds(a: Int32Array, b: Int32Array, idCount: number, shape?: LineShape): ChangeMarks {
  const n1 = a.length;
  const n2 = b.length;
  const removed = new Uint8Array(n1);
  const added = new Uint8Array(n2);

  let start = 0;
  while (start < n1 && start < n2 && a[start] === b[start]) start++;
  let end1 = n1;
  let end2 = n2;
  while (end1 > start && end2 > start && a[end1 - 1] === b[end2 - 1]) {
    end1--;
    end2--;
  }

  if (end1 - start + (end2 - start) <= SMALL_REGION) {
    // Small: the cleanup would cost more than it saves, and without it the result is minimal.
    compare(
      { ids: a, index: undefined, start, end: end1 },
      { ids: b, index: undefined, start, end: end2 },
      idCount,
      removed,
      added,
    );
  } else {
    compare(
      keepLines(a, b, idCount, start, end1, removed),
      keepLines(b, a, idCount, start, end2, added),
      idCount,
      removed,
      added,
    );
  }
  slideGroups(a, removed, added, 0, shape);
  slideGroups(b, added, removed, 1, shape);
  return { removed, added };
}

/** The lines the search works on: `ids[start, end)`. */
interface Kept {
  ids: Int32Array;
  /** Index in the full sequence of each kept line; undefined when `ids` is the full sequence. */
  index: Int32Array | undefined;
  start: number;
  end: number;
}

/**
 * git's xdl_cleanup_records: a line with no partner in `other` is changed for sure and marked right away; a
 * line with very many partners is set aside too when it sits in a run of such lines. What is left is usually
 * far smaller, which is where most of the speed on real files comes from.
 */
function keepLines(
  seq: Int32Array,
  other: Int32Array,
  idCount: number,
  start: number,
  end: number,
  marks: Uint8Array,
): Kept {
  const partners = new Int32Array(idCount);
  for (let i = 0; i < other.length; i++) partners[other[i]!]! += 1;
  const limit = Math.min(bogoSqrt(seq.length), MAX_EQLIMIT);
  // 0: no partner, 1: some, 2: many.
  const kind = new Uint8Array(end - start);
  for (let i = start; i < end; i++) {
    const count = partners[seq[i]!]!;
    kind[i - start] = count === 0 ? 0 : count >= limit ? 2 : 1;
  }
  const ids = new Int32Array(end - start);
  const index = new Int32Array(end - start);
  let size = 0;
  for (let i = 0; i < kind.length; i++) {
    const k = kind[i]!;
    if (k === 1 || (k === 2 && !isMultimatchNoise(kind, i))) {
      ids[size] = seq[start + i]!;
      index[size] = start + i;
      size++;
    } else marks[start + i] = 1;
  }
  return { ids, index, start: 0, end: size };
}

/** git's xdl_clean_mmatch: is a many-partner line surrounded mostly by partnerless lines? */
function isMultimatchNoise(kind: Uint8Array, i: number): boolean {
  const s = Math.max(0, i - SIMSCAN_WINDOW);
  const e = Math.min(kind.length - 1, i + SIMSCAN_WINDOW);
  let noneBefore = 0;
  let manyBefore = 1;
  for (let r = 1; i - r >= s; r++) {
    const k = kind[i - r];
    if (k === 0) noneBefore++;
    else if (k === 2) manyBefore++;
    else break;
  }
  if (noneBefore === 0) return false;
  let noneAfter = 0;
  let manyAfter = 1;
  for (let r = 1; i + r <= e; r++) {
    const k = kind[i + r];
    if (k === 0) noneAfter++;
    else if (k === 2) manyAfter++;
    else break;
  }
  if (noneAfter === 0) return false;
  const none = noneBefore + noneAfter;
  const many = manyBefore + manyAfter;
  return many * KPDIS_RUN < many + none;
}

function bogoSqrt(n: number): number {
  let i = 1;
  for (let m = n; m > 0; m >>= 2) i <<= 1;
  return i;
}

/** Where to cut a box: at (i1, i2), and also at (j1, j2) when j1 >= 0 (that part then solved optimally). */
interface Split {
  i1: number;
  i2: number;
  j1: number;
  j2: number;
  minLo: boolean;
  minHi: boolean;
}

interface Env {
  ha1: Int32Array;
  ha2: Int32Array;
  kvdf: Int32Array;
  kvdb: Int32Array;
  /** Offset of diagonal 0 in kvdf / kvdb (diagonals run from -n2 to n1). */
  zero: number;
}

/** git's xdl_recs_cmp, with an explicit stack instead of recursion so that depth never matters. */
function compare(kept1: Kept, kept2: Kept, idCount: number, removed: Uint8Array, added: Uint8Array): void {
  const ha1 = kept1.ids;
  const ha2 = kept2.ids;
  const n1 = ha1.length;
  const n2 = ha2.length;
  // Sized for the full arrays so diagonal indexes need no shifting; allocation is cheap next to the search.
  const diagonals = n1 + n2 + 3;
  const env: Env = {
    ha1,
    ha2,
    kvdf: new Int32Array(diagonals + 2),
    kvdb: new Int32Array(diagonals + 2),
    zero: n2 + 1,
  };
  const split: Split = { i1: 0, i2: 0, j1: -1, j2: -1, minLo: false, minHi: false };
  let scratch: LcsScratch | undefined;
  const index1 = kept1.index;
  const index2 = kept2.index;
  const markRemoved = (i: number) => {
    removed[index1 ? index1[i]! : i] = 1;
  };
  const markAdded = (j: number) => {
    added[index2 ? index2[j]! : j] = 1;
  };
  // Boxes to solve, five numbers each: off1, lim1, off2, lim2, needMin.
  const stack: number[] = [kept1.start, kept1.end, kept2.start, kept2.end, 0];
  while (stack.length > 0) {
    const needMin = stack.pop() === 1;
    let lim2 = stack.pop()!;
    let off2 = stack.pop()!;
    let lim1 = stack.pop()!;
    let off1 = stack.pop()!;
    while (off1 < lim1 && off2 < lim2 && ha1[off1] === ha2[off2]) {
      off1++;
      off2++;
    }
    while (off1 < lim1 && off2 < lim2 && ha1[lim1 - 1] === ha2[lim2 - 1]) {
      lim1--;
      lim2--;
    }
    if (off1 === lim1) {
      for (let i = off2; i < lim2; i++) markAdded(i);
    } else if (off2 === lim2) {
      for (let i = off1; i < lim1; i++) markRemoved(i);
    } else {
      const area = (lim1 - off1) * (lim2 - off2);
      const small = area <= BITS_MAX_AREA && lim1 - off1 <= BITS_MAX_SIDE;
      const bitsAfter = small ? Math.ceil(Math.sqrt(area / BITS_COST)) : LINE_MAX;
      if (findSplit(env, off1, lim1, off2, lim2, needMin, bitsAfter, split)) {
        scratch ??= createLcsScratch(idCount);
        lcsByBits(ha1, off1, lim1, ha2, off2, lim2, scratch, markRemoved, markAdded);
        continue;
      }
      const { i1, i2, j1, j2, minLo, minHi } = split;
      if (j1 >= 0) {
        stack.push(j1, lim1, j2, lim2, 1);
        stack.push(i1, j1, i2, j2, 0);
      } else stack.push(i1, lim1, i2, lim2, minHi ? 1 : 0);
      stack.push(off1, i1, off2, i2, minLo ? 1 : 0);
    }
  }
}

/**
 * git's xdl_split: search forward from (off1, off2) and backward from (lim1, lim2) until the paths meet
 * (the middle snake). Unless `needMin`, give up past `MAX_COST` edits with a good-enough split at the
 * furthest-reaching point. (git's other early cut, at a long snake, needs a cost above 256 to start, which
 * git itself only allows in files over ~32k lines; with the cost capped at 256 it never applies.)
 * Returns true when the box should rather be solved by `lcsByBits` (it is small and turned out hard).
 */
function findSplit(
  env: Env,
  off1: number,
  lim1: number,
  off2: number,
  lim2: number,
  needMin: boolean,
  bitsAfter: number,
  out: Split,
): boolean {
  const { ha1, ha2, kvdf, kvdb, zero } = env;
  // Diagonal k (= i1 - i2) lives at index k + zero; all diagonal variables below hold that index.
  const dmin = off1 - lim2 + zero;
  const dmax = lim1 - off2 + zero;
  const fmid = off1 - off2 + zero;
  const bmid = lim1 - lim2 + zero;
  const odd = ((fmid - bmid) & 1) !== 0;
  let fmin = fmid;
  let fmax = fmid;
  let bmin = bmid;
  let bmax = bmid;

  kvdf[fmid] = off1;
  kvdb[bmid] = lim1;

  for (let ec = 1; ; ec++) {
    // Widen the forward diagonal range by one on each side, or shrink it where it would leave the box.
    if (fmin > dmin) kvdf[--fmin - 1] = -1;
    else ++fmin;
    if (fmax < dmax) kvdf[++fmax + 1] = -1;
    else --fmax;

    for (let d = fmax; d >= fmin; d -= 2) {
      const below = kvdf[d - 1]!;
      const above = kvdf[d + 1]!;
      let i1 = below >= above ? below + 1 : above;
      let i2 = i1 - d + zero;
      while (i1 < lim1 && i2 < lim2 && ha1[i1] === ha2[i2]) {
        i1++;
        i2++;
      }
      kvdf[d] = i1;
      if (odd && bmin <= d && d <= bmax && kvdb[d]! <= i1) {
        setSplit(out, i1, i2, true, true);
        return false;
      }
    }

    if (bmin > dmin) kvdb[--bmin - 1] = LINE_MAX;
    else ++bmin;
    if (bmax < dmax) kvdb[++bmax + 1] = LINE_MAX;
    else --bmax;

    for (let d = bmax; d >= bmin; d -= 2) {
      const below = kvdb[d - 1]!;
      const above = kvdb[d + 1]!;
      let i1 = below < above ? below : above - 1;
      let i2 = i1 - d + zero;
      while (i1 > off1 && i2 > off2 && ha1[i1 - 1] === ha2[i2 - 1]) {
        i1--;
        i2--;
      }
      kvdb[d] = i1;
      if (!odd && fmin <= d && d <= fmax && i1 <= kvdf[d]!) {
        setSplit(out, i1, i2, true, true);
        return false;
      }
    }

    if (ec >= bitsAfter) return true;
    if (needMin) continue;

    // Enough: cut at the furthest-reaching point of either search.
    if (ec >= MAX_COST) {
      let fbest = -1;
      let fbest1 = -1;
      for (let d = fmax; d >= fmin; d -= 2) {
        let i1 = Math.min(kvdf[d]!, lim1);
        let i2 = i1 - d + zero;
        if (lim2 < i2) {
          i1 = lim2 + d - zero;
          i2 = lim2;
        }
        if (fbest < i1 + i2) {
          fbest = i1 + i2;
          fbest1 = i1;
        }
      }
      let bbest = LINE_MAX;
      let bbest1 = LINE_MAX;
      for (let d = bmax; d >= bmin; d -= 2) {
        let i1 = Math.max(off1, kvdb[d]!);
        let i2 = i1 - d + zero;
        if (i2 < off2) {
          i1 = off2 + d - zero;
          i2 = off2;
        }
        if (i1 + i2 < bbest) {
          bbest = i1 + i2;
          bbest1 = i1;
        }
      }
      const fbest2 = fbest - fbest1;
      const bbest2 = bbest - bbest1;
      if (fbest1 <= bbest1 && fbest2 <= bbest2) {
        // Unlike git, keep both searches when they do not cross: the box splits in three, the middle one
        // still open. Otherwise the backward search, redone from the same end for every piece cut off the
        // front, would cost as much again on inputs with nothing in common.
        setSplit(out, fbest1, fbest2, true, false);
        out.j1 = bbest1;
        out.j2 = bbest2;
      } else if (lim1 + lim2 - bbest < fbest - (off1 + off2)) setSplit(out, fbest1, fbest2, true, false);
      else setSplit(out, bbest1, bbest2, false, true);
      return false;
    }
  }
}

function setSplit(out: Split, i1: number, i2: number, minLo: boolean, minHi: boolean): void {
  out.j1 = -1;
  out.i1 = i1;
  out.i2 = i2;
  out.minLo = minLo;
  out.minHi = minHi;
}
