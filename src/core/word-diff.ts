import type { DiffLine } from '../core/diff.js';

/**
 * Word-level emphasis inside changed lines. Within each block of removed and added lines, a removed line is
 * paired with a similar added line (in order), and the tokens that differ between the two are marked, so a
 * one-character change stands out in a long line.
 */

/** A half-open range [start, end) of UTF-16 offsets in a line's text. */
export interface Span {
  start: number;
  end: number;
}

export interface TokenDiff {
  removed: Span[];
  added: Span[];
  /** 2 x (characters in common) / (characters in both), from 0 (nothing shared) to 1 (identical). */
  similarity: number;
}

export interface HunkEmphasis {
  /** Spans to emphasise, by index into the hunk's lines. */
  spans: Map<number, Span[]>;
  /** The paired line of each paired removed/added line, both ways, by index into the hunk's lines. */
  partner: Map<number, number>;
}

/** Lines at least this similar are paired. Below it, emphasis would mark most of both lines: only noise. */
export const PAIR_THRESHOLD = 0.5;

// Words (letters, digits, marks, _), single CJK characters (they are written without spaces), runs of
// whitespace, and any other single character (punctuation, symbols, emoji parts).
const TOKEN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}\p{M}_]+|\s+|./gsu;

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

// Above this many cells the middle of two lines is compared as one changed run: bounded time and memory
// for minified or generated lines.
const MAX_TABLE = 40_000;

export function diffTokens(oldText: string, newText: string): TokenDiff {
  if (oldText === newText) return { removed: [], added: [], similarity: 1 };
  const a = tokenize(oldText);
  const b = tokenize(newText);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  const aMid = a.slice(prefix, a.length - suffix);
  const bMid = b.slice(prefix, b.length - suffix);
  // keepA[i] / keepB[j]: token i of aMid / j of bMid is shared.
  const keepA = new Array<boolean>(aMid.length).fill(false);
  const keepB = new Array<boolean>(bMid.length).fill(false);
  if (aMid.length > 0 && bMid.length > 0 && aMid.length * bMid.length <= MAX_TABLE) {
    longestCommonSubsequence(aMid, bMid, keepA, keepB);
  }
  absorbLoneWhitespace(aMid, keepA);
  absorbLoneWhitespace(bMid, keepB);

  let shared = 0;
  const sharedLength = (tokens: string[], from: number, to: number) => {
    for (let i = from; i < to; i++) shared += tokens[i]!.length;
  };
  sharedLength(a, 0, prefix);
  sharedLength(a, a.length - suffix, a.length);
  shared *= 2;
  aMid.forEach((t, i) => {
    if (keepA[i]) shared += t.length;
  });
  bMid.forEach((t, j) => {
    if (keepB[j]) shared += t.length;
  });
  const total = oldText.length + newText.length;
  return {
    removed: changedSpans(a, prefix, keepA),
    added: changedSpans(b, prefix, keepB),
    similarity: total === 0 ? 1 : shared / total,
  };
}

function longestCommonSubsequence(a: string[], b: string[], keepA: boolean[], keepB: boolean[]): void {
  const n = a.length;
  const m = b.length;
  // lengths[i * (m + 1) + j] = LCS length of a[i..] and b[j..]
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * (m + 1) + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      keepA[i++] = true;
      keepB[j++] = true;
    } else if (lengths[(i + 1) * (m + 1) + j]! >= lengths[i * (m + 1) + j + 1]!) i++;
    else j++;
  }
}

/** A lone shared space between two changed words reads as part of one change: mark it too. */
function absorbLoneWhitespace(tokens: string[], keep: boolean[]): void {
  for (let i = 1; i < tokens.length - 1; i++) {
    if (keep[i] && !keep[i - 1] && !keep[i + 1] && /^\s+$/.test(tokens[i]!)) keep[i] = false;
  }
}

function changedSpans(tokens: string[], prefix: number, keepMiddle: boolean[]): Span[] {
  const spans: Span[] = [];
  let offset = 0;
  for (let i = 0; i < prefix; i++) offset += tokens[i]!.length;
  for (let k = 0; k < keepMiddle.length; k++) {
    const length = tokens[prefix + k]!.length;
    if (!keepMiddle[k]) {
      const last = spans.at(-1);
      if (last && last.end === offset) last.end += length;
      else spans.push({ start: offset, end: offset + length });
    }
    offset += length;
  }
  return spans;
}

// Past this many candidate pairs in one block, lines are paired by position instead of by best match.
const MAX_PAIR_CANDIDATES = 400;

/**
 * Pairs (removed index, added index), both increasing, of lines at least `threshold` similar. Each removed
 * line takes the most similar added line after the previous pair, which keeps the pairing in reading order.
 */
export function pairLines(
  removed: readonly string[],
  added: readonly string[],
  threshold = PAIR_THRESHOLD,
): Array<[number, number, TokenDiff]> {
  const pairs: Array<[number, number, TokenDiff]> = [];
  if (removed.length * added.length > MAX_PAIR_CANDIDATES) {
    for (let i = 0; i < Math.min(removed.length, added.length); i++) {
      const d = diffTokens(removed[i]!, added[i]!);
      if (d.similarity >= threshold) pairs.push([i, i, d]);
    }
    return pairs;
  }
  let next = 0;
  for (let i = 0; i < removed.length && next < added.length; i++) {
    let best: [number, TokenDiff] | undefined;
    for (let j = next; j < added.length; j++) {
      const d = diffTokens(removed[i]!, added[j]!);
      if (d.similarity >= threshold && (!best || d.similarity > best[1].similarity)) best = [j, d];
      if (d.similarity === 1) break;
    }
    if (best) {
      pairs.push([i, best[0], best[1]]);
      next = best[0] + 1;
    }
  }
  return pairs;
}

/** Emphasis for every change block (a run of removed and added lines between context lines) of a hunk. */
export function emphasizeHunk(lines: readonly DiffLine[]): HunkEmphasis {
  const spans = new Map<number, Span[]>();
  const partner = new Map<number, number>();
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.kind === 'context') {
      i++;
      continue;
    }
    const removed: number[] = [];
    const added: number[] = [];
    while (i < lines.length && lines[i]!.kind !== 'context') {
      (lines[i]!.kind === 'remove' ? removed : added).push(i);
      i++;
    }
    if (removed.length === 0 || added.length === 0) continue;
    const pairs = pairLines(
      removed.map((k) => lines[k]!.text),
      added.map((k) => lines[k]!.text),
    );
    for (const [r, a, d] of pairs) {
      const ri = removed[r]!;
      const ai = added[a]!;
      partner.set(ri, ai);
      partner.set(ai, ri);
      if (!coversAll(d.removed, lines[ri]!.text)) spans.set(ri, d.removed);
      if (!coversAll(d.added, lines[ai]!.text)) spans.set(ai, d.added);
    }
  }
  return { spans, partner };
}

/** Emphasis over a whole line tells nothing that the line colour does not. */
function coversAll(spans: readonly Span[], text: string): boolean {
  return spans.length === 1 && spans[0]!.start === 0 && spans[0]!.end === text.length;
}
