/**
 * The line diff a person approves: hunks with old and new line numbers, in editgate's line model (`lines.ts`:
 * "\r\n", "\n" and a lone "\r" end a line, and the terminator is part of the line, so a line whose only
 * change is CRLF -> LF is a changed line).
 *
 * Speed comes from doing as little as possible per line: the common prefix and suffix are found with native
 * string compares and never split or hashed; only the differing middle (plus a small margin, so changes can
 * slide to a natural place) is interned to integer ids and handed to the engine in `diff-algorithm.ts`.
 */
import { commonPrefixLength, commonSuffixLength } from './common-affix.js';
import { diffIds } from './diff-algorithm.js';
import type { LineShape } from './diff-slide.js';
import { EditgateError } from './errors.js';
import { internLines } from './line-interner.js';
import { buildLineTable, isLfBoundary, type LineTable, lineEol, lineText } from './line-table.js';
import { countNewlines, type Eol } from './lines.js';

export { formatUnifiedDiff } from './unified.js';

export interface DiffLine {
  kind: 'context' | 'add' | 'remove';
  /** 1-based line number in the old text (context and remove lines). */
  oldLine?: number;
  /** 1-based line number in the new text (context and add lines). */
  newLine?: number;
  /** The line without its terminator. */
  text: string;
  /** The line's terminator; '' for a last line without one. */
  eol: Eol | '';
}

export interface Hunk {
  /** 1-based first old line; for a hunk with no old lines, the line before it (0 at the top). */
  oldStart: number;
  oldLines: number;
  /** 1-based first new line; for a hunk with no new lines, the line before it (0 at the top). */
  newStart: number;
  newLines: number;
  /** Context, then for each change its removed lines before its added lines. */
  lines: DiffLine[];
}

export interface Diff {
  hunks: Hunk[];
  added: number;
  removed: number;
  identical: boolean;
}

const DEFAULT_CONTEXT = 3;
/** Lines of the common prefix and suffix given to the engine so a change can slide to its natural place. */
const SLIDE_MARGIN = 64;

/** One run of changed lines: old lines `[os, oe)` were replaced by new lines `[ns, ne)` (0-based). */
interface Change {
  os: number;
  oe: number;
  ns: number;
  ne: number;
}

/**
 * Diff two texts line by line. `context` (default 3) is the number of unchanged lines kept around each
 * change; changes whose context would touch or overlap share a hunk. A hunk never starts or ends inside what
 * git and patch see as one line (lines joined by lone "\r"), so `formatUnifiedDiff` can always express it.
 */
export function diffLines(oldText: string, newText: string, options: { context?: number } = {}): Diff {
  const context = options.context ?? DEFAULT_CONTEXT;
  if (!(context >= 0)) {
    const message = `context must be a number of lines, 0 or more (got ${context}).`;
    throw new EditgateError('INVALID_INPUT', message, { context });
  }
  if (oldText === newText) return { hunks: [], added: 0, removed: 0, identical: true };
  const window = changedWindow(oldText, newText, Math.floor(context));
  if (!window) return diffWhole(oldText, newText, context);
  const inner = diffWhole(
    oldText.slice(window.start, window.oldEnd),
    newText.slice(window.start, window.newEnd),
    context,
  );
  return shiftLines(inner, window.linesBefore);
}

/** diffLines over the whole of both texts, however little of them differs (the reference for the window). */
export function diffWhole(oldText: string, newText: string, context = DEFAULT_CONTEXT): Diff {
  const a = buildLineTable(oldText);
  const b = buildLineTable(newText);
  const changes = findChanges(a, b);
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    removed += change.oe - change.os;
    added += change.ne - change.ns;
  }
  const hunks = buildHunks(a, b, changes, Math.min(Math.floor(context), a.count + b.count));
  return { hunks, added, removed, identical: false };
}

/** Texts shorter than this are diffed whole: the window would save nothing worth its scans. */
const WINDOW_MIN_CHARS = 8192;

/**
 * Where two texts differ, as whole lines common to both ends cut away: the texts are the same before
 * `start` and from `oldEnd` / `newEnd` on, `start` has `linesBefore` lines before it, and at least
 * SLIDE_MARGIN + context lines stay on each side of the differing lines, so the engine and the hunks see
 * exactly what they would see in the whole texts (an edit of one line of a 2,000-line file diffs about
 * 140 lines, not 4,000). Cuts are made after a "\n" only; text with a lone "\r" (a line end git and patch do
 * not see, which can stretch a hunk) is diffed whole. Null when cutting would save nothing.
 */
export function changedWindow(
  a: string,
  b: string,
  context: number,
): { start: number; oldEnd: number; newEnd: number; linesBefore: number } | null {
  if (a.length + b.length < WINDOW_MIN_CHARS || hasLoneCr(a) || hasLoneCr(b)) return null;
  const margin = SLIDE_MARGIN + context + 2;
  const prefix = commonPrefixLength(a, b);
  const suffix = commonSuffixLength(a, b, Math.min(a.length, b.length) - prefix);
  // Back from the first difference: `margin` whole lines before the line it is on.
  let start = 0;
  for (let at = prefix, lines = 0; at > 0; lines++) {
    const lf = a.lastIndexOf('\n', at - 1);
    if (lf === -1) break;
    if (lines > margin) {
      start = lf + 1;
      break;
    }
    at = lf;
  }
  // On from the common suffix: `margin` whole lines after the line it starts on.
  let oldEnd = a.length;
  for (let at = a.length - suffix, lines = 0; at < a.length; lines++) {
    const lf = a.indexOf('\n', at);
    if (lf === -1) break;
    if (lines > margin) {
      oldEnd = lf + 1;
      break;
    }
    at = lf + 1;
  }
  if (start === 0 && oldEnd === a.length) return null;
  return { start, oldEnd, newEnd: oldEnd + (b.length - a.length), linesBefore: countNewlines(a, 0, start) };
}

/** A "\r" not followed by "\n". */
function hasLoneCr(text: string): boolean {
  for (let at = text.indexOf('\r'); at !== -1; at = text.indexOf('\r', at + 1)) {
    if (text.charCodeAt(at + 1) !== 10) return true;
  }
  return false;
}

/** A diff of a window, renumbered as lines of the whole texts. */
function shiftLines(diff: Diff, lines: number): Diff {
  if (lines === 0) return diff;
  for (const hunk of diff.hunks) {
    hunk.oldStart += lines;
    hunk.newStart += lines;
    for (const line of hunk.lines) {
      if (line.oldLine !== undefined) line.oldLine += lines;
      if (line.newLine !== undefined) line.newLine += lines;
    }
  }
  return diff;
}

function findChanges(a: LineTable, b: LineTable): Change[] {
  // Whole lines common at the start: the char-level common prefix, cut back to a line end both sides share.
  const prefixChars = commonPrefixLength(a.text, b.text);
  let head = upperBound(a.starts, a.count, prefixChars);
  if (head > 0 && a.starts[head] === prefixChars && b.starts[head] !== prefixChars) head--;

  // Whole lines common at the end, not overlapping the head.
  const headChars = a.starts[head]!;
  const suffixChars = commonSuffixLength(a.text, b.text, Math.min(a.text.length, b.text.length) - headChars);
  const tailStartA = a.text.length - suffixChars;
  let tail = a.count - lowerBound(a.starts, a.count, tailStartA);
  if (tail > 0) {
    const firstA = a.count - tail;
    const firstB = b.count - tail;
    if (a.starts[firstA] === tailStartA && b.starts[firstB] !== b.text.length - suffixChars) tail--;
  }

  // Intern the middle (with a margin) to ids; equal strings, terminator included, get equal ids.
  const start = Math.max(0, head - SLIDE_MARGIN);
  const margin = Math.min(tail, SLIDE_MARGIN);
  const endA = a.count - tail + margin;
  const endB = b.count - tail + margin;
  const ids = internLines(a, start, endA, b, start, endB);
  const shape: LineShape = {
    indent: indentCache(a, b, start, endA - start, endB - start),
    first: -start,
    end: [a.count - start, b.count - start],
  };
  const { removed, added } = diffIds(ids.a, ids.b, ids.count, shape);

  const changes: Change[] = [];
  const n1 = removed.length;
  const n2 = added.length;
  let i = 0;
  let j = 0;
  while (i < n1 || j < n2) {
    if (i < n1 && j < n2 && removed[i] === 0 && added[j] === 0) {
      i++;
      j++;
      continue;
    }
    const os = i;
    const ns = j;
    while (i < n1 && removed[i] === 1) i++;
    while (j < n2 && added[j] === 1) j++;
    if (i === os && j === ns) throw new Error('diff: unchanged lines do not pair up');
    changes.push({ os: start + os, oe: start + i, ns: start + ns, ne: start + j });
  }
  return changes;
}

/** Indentation as git's indent heuristic measures it, computed on demand and cached for the diffed region. */
function indentCache(a: LineTable, b: LineTable, start: number, lengthA: number, lengthB: number) {
  const cache = [new Int16Array(lengthA).fill(-2), new Int16Array(lengthB).fill(-2)] as const;
  return (side: 0 | 1, index: number): number => {
    const table = side === 0 ? a : b;
    const cached = cache[side];
    if (index < 0 || index >= cached.length) return indentOf(table, start + index);
    let value = cached[index]!;
    if (value === -2) value = cached[index] = indentOf(table, start + index);
    return value;
  };
}

/** Leading whitespace width (tab to the next multiple of 8, capped at 200); -1 for a whitespace-only line. */
function indentOf(table: LineTable, line: number): number {
  const { text, starts } = table;
  let width = 0;
  for (let i = starts[line]!, end = starts[line + 1]!; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) width += 1;
    else if (c === 9) width += 8 - (width % 8);
    else if (c < 9 || c > 13) return width; // not whitespace (git's isspace: space, \t \n \v \f \r)
    if (width >= 200) return 200;
  }
  return -1;
}

/** Index of the line holding `offset`, i.e. how many lines end at or before it (`count` at the very end). */
function upperBound(starts: Int32Array, count: number, offset: number): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** First line index whose start is at or after `offset` (`count` when none). */
function lowerBound(starts: Int32Array, count: number, offset: number): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (starts[mid]! < offset) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Group changes into hunks with `context` lines around them. Between two changes every line is unchanged,
 * so walking into that gap is safe. Lone "\r" lines need more: git and patch split only at "\n", so a hunk
 * must start and end where they see a line boundary, and (counting their lines) must keep at least one
 * trailing context line and no fewer trailing than leading ones -- otherwise git and patch take the hunk
 * for one at the end of the file. With "\n" line ends all of this holds by construction.
 */
function buildHunks(a: LineTable, b: LineTable, changes: Change[], context: number): Hunk[] {
  const hunks: Hunk[] = [];
  // Without any "\r", every line end is one git sees too.
  const crFree = !a.hasCr && !b.hasCr;
  const boundary = (oldIndex: number, shift: number) =>
    crFree || (isLfBoundary(a, oldIndex) && isLfBoundary(b, oldIndex + shift));
  // Boundaries at old positions [from, to] of a run of unchanged lines (new = old + shift there).
  const boundaries = (from: number, to: number, shift: number) => {
    if (crFree) return Math.max(0, to - from + 1);
    let count = 0;
    for (let p = from; p <= to; p++) if (boundary(p, shift)) count++;
    return count;
  };
  // Where a hunk opening with `change` would start, not going back past `floor` (an old line index).
  const startOf = (change: Change, floor: number): number => {
    const shift = change.ns - change.os;
    let os = Math.max(floor, change.os - context);
    while (os > floor && !boundary(os, shift)) os--;
    return os;
  };

  let k = 0;
  let floor = 0;
  while (k < changes.length) {
    const first = k;
    const firstChange = changes[k]!;
    const os = startOf(firstChange, floor);
    const ns = os + (firstChange.ns - firstChange.os);
    const leading = boundaries(os + 1, firstChange.os, ns - os);
    let oe: number;
    let ne: number;
    for (;;) {
      const change = changes[k]!;
      const next = changes[k + 1];
      const cap = next ? next.os : a.count;
      const shift = change.ne - change.oe;
      oe = Math.min(cap, change.oe + context);
      while (oe < cap && !boundary(oe, shift)) oe++;
      if (context > 0) {
        const needed = Math.max(1, leading);
        while (oe < cap && Math.max(0, boundaries(change.oe, oe, shift) - 1) < needed) {
          oe++;
          while (oe < cap && !boundary(oe, shift)) oe++;
        }
      }
      ne = oe + shift;
      if (next && startOf(next, change.oe) <= oe) k++;
      else break;
    }
    hunks.push(materialize(a, b, changes, first, k, os, oe, ns, ne));
    floor = oe;
    k++;
  }
  return hunks;
}

function materialize(
  a: LineTable,
  b: LineTable,
  changes: Change[],
  first: number,
  last: number,
  os: number,
  oe: number,
  ns: number,
  ne: number,
): Hunk {
  const lines: DiffLine[] = [];
  let i = os;
  let j = ns;
  const contextUpTo = (end: number) => {
    for (; i < end; i++, j++) {
      lines.push({
        kind: 'context',
        oldLine: i + 1,
        newLine: j + 1,
        text: lineText(a, i),
        eol: lineEol(a, i),
      });
    }
  };
  for (let c = first; c <= last; c++) {
    const change = changes[c]!;
    contextUpTo(change.os);
    for (let r = change.os; r < change.oe; r++) {
      lines.push({ kind: 'remove', oldLine: r + 1, text: lineText(a, r), eol: lineEol(a, r) });
    }
    for (let r = change.ns; r < change.ne; r++) {
      lines.push({ kind: 'add', newLine: r + 1, text: lineText(b, r), eol: lineEol(b, r) });
    }
    i = change.oe;
    j = change.ne;
  }
  contextUpTo(oe);
  const oldLines = oe - os;
  const newLines = ne - ns;
  return {
    oldStart: oldLines > 0 ? os + 1 : os,
    oldLines,
    newStart: newLines > 0 ? ns + 1 : ns,
    newLines,
    lines,
  };
}
