/**
 * Long lines in the terminal's diff view. A 10 MB line (a minified bundle, one-line JSON) would be wrapped
 * into hundreds of thousands of rows, word-diffed and painted cell by cell before the question shows (it
 * took seconds to minutes). The view shows each long line as a window instead: for a changed line paired
 * with its new version, the characters around where the two differ (the change itself, whole up to the
 * cap), else the line's start; every cut says how many characters it left out.
 */
import type { Diff, DiffLine, Hunk } from '../core/diff.js';

/** Characters of one line the view shows; longer lines are windowed. */
export const VIEW_LINE_CHARS = 4000;
/** Unchanged characters kept on each side of a change inside a long line. */
const MARGIN = 300;

/** The diff with every line longer than VIEW_LINE_CHARS replaced by a window of it (the same object if none). */
export function windowLongLines(diff: Diff): Diff {
  if (!diff.hunks.some((hunk) => hunk.lines.some((line) => line.text.length > VIEW_LINE_CHARS))) return diff;
  return { ...diff, hunks: diff.hunks.map(windowHunk) };
}

function windowHunk(hunk: Hunk): Hunk {
  const lines = hunk.lines.slice();
  // Pair each run of removed lines with the added lines after it, one for one, as the word diff does.
  for (let i = 0; i < lines.length; ) {
    if (lines[i]!.kind !== 'remove') {
      lines[i] = windowed(lines[i]!, undefined);
      i++;
      continue;
    }
    let removeEnd = i;
    while (removeEnd < lines.length && lines[removeEnd]!.kind === 'remove') removeEnd++;
    let addEnd = removeEnd;
    while (addEnd < lines.length && lines[addEnd]!.kind === 'add') addEnd++;
    const removed = removeEnd - i;
    const added = addEnd - removeEnd;
    for (let k = 0; k < Math.max(removed, added); k++) {
      const old = k < removed ? hunk.lines[i + k] : undefined;
      const next = k < added ? hunk.lines[removeEnd + k] : undefined;
      if (old) lines[i + k] = windowed(old, next);
      if (next) lines[removeEnd + k] = windowed(next, old);
    }
    i = addEnd;
  }
  return { ...hunk, lines };
}

/** The line, or a window of it: around where it differs from `partner` when there is one. */
function windowed(line: DiffLine, partner: DiffLine | undefined): DiffLine {
  const text = line.text;
  if (text.length <= VIEW_LINE_CHARS) return line;
  let from = 0;
  if (partner) {
    const other = partner.text;
    let prefix = 0;
    const limit = Math.min(text.length, other.length);
    while (prefix < limit && text.charCodeAt(prefix) === other.charCodeAt(prefix)) prefix++;
    from = Math.max(0, prefix - MARGIN);
  }
  let to = Math.min(text.length, from + VIEW_LINE_CHARS);
  // Never cut a surrogate pair in two.
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from--;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to--;
  const before = from > 0 ? `[… ${from} characters not shown] ` : '';
  const after = to < text.length ? ` [… ${text.length - to} more characters not shown]` : '';
  return { ...line, text: `${before}${text.slice(from, to)}${after}` };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
