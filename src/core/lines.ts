/**
 * Lines as editgate counts them, everywhere (read_file numbering, edit_lines ranges, diff line numbers):
 * a line ends at "\r\n", "\n" or a lone "\r" (universal newlines), and the terminator belongs to the line.
 * Text without a final terminator has a last line with `eol: ''`. The empty text has no lines.
 */
export type Eol = '\n' | '\r\n' | '\r';

export interface Line {
  text: string;
  eol: Eol | '';
}

export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lines.push({ text: text.slice(start, i), eol: '\n' });
      start = i + 1;
    } else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) {
        lines.push({ text: text.slice(start, i), eol: '\r\n' });
        i++;
      } else {
        lines.push({ text: text.slice(start, i), eol: '\r' });
      }
      start = i + 1;
    }
  }
  if (start < length) lines.push({ text: text.slice(start), eol: '' });
  return lines;
}

/** Offset of the first character of every line; `starts.length` is the line count. */
export function lineStartOffsets(text: string): number[] {
  const starts: number[] = text.length > 0 ? [0] : [];
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
    if ((c === 10 || c === 13) && i + 1 < length) starts.push(i + 1);
  }
  return starts;
}

/** 1-based number of the line holding `offset` (an offset at the very end belongs to the last line). */
export function lineNumberAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

/** What new line breaks in a text should look like: its most common terminator, and whether it mixes them. */
export interface EolProfile {
  /** The most common terminator; "\n" for text without any. */
  dominant: Eol;
  /** More than one kind of terminator occurs. */
  mixed: boolean;
}

export interface EolSummary extends EolProfile {
  counts: Record<Eol, number>;
  /** The text ends with a terminator. */
  finalNewline: boolean;
}

/** How many "\n" lie in text[from, to). indexOf-based: native speed on large texts. */
export function countNewlines(text: string, from = 0, to = text.length): number {
  let count = 0;
  for (let p = text.indexOf('\n', from); p !== -1 && p < to; p = text.indexOf('\n', p + 1)) count++;
  return count;
}

/**
 * Terminators by kind. Text without "\r" (most files) costs one native scan for "\r" and one count of "\n";
 * otherwise each "\r" is looked at once. No character-by-character walk: on every read of a file this ran
 * over all of it.
 */
export function summarizeEol(text: string): EolSummary {
  const counts: Record<Eol, number> = { '\n': countNewlines(text), '\r\n': 0, '\r': 0 };
  for (let p = text.indexOf('\r'); p !== -1; p = text.indexOf('\r', p + 1)) {
    if (text.charCodeAt(p + 1) === 10) counts['\r\n']++;
    else counts['\r']++;
  }
  counts['\n'] -= counts['\r\n'];
  const last = text.charCodeAt(text.length - 1);
  return { ...eolProfileOf(counts), counts, finalNewline: last === 10 || last === 13 };
}

/** Dominant and mixed from counts: "\n" wins ties, then "\r\n"; "\r" must win outright. */
export function eolProfileOf(counts: Record<Eol, number>): EolProfile {
  let dominant: Eol = '\n';
  if (counts['\r\n'] > counts[dominant]) dominant = '\r\n';
  if (counts['\r'] > counts[dominant]) dominant = '\r';
  const kinds = (counts['\n'] > 0 ? 1 : 0) + (counts['\r\n'] > 0 ? 1 : 0) + (counts['\r'] > 0 ? 1 : 0);
  return { dominant, mixed: kinds > 1 };
}

/**
 * The profile and final newline a codec records, without counting anything when the text has no "\r":
 * then every terminator is "\n" (one native scan decides it).
 */
export function eolOf(text: string): EolProfile & { finalNewline: boolean } {
  const last = text.charCodeAt(text.length - 1);
  const finalNewline = last === 10 || last === 13;
  if (text.indexOf('\r') === -1) return { dominant: '\n', mixed: false, finalNewline };
  const { dominant, mixed } = summarizeEol(text);
  return { dominant, mixed, finalNewline };
}

/**
 * Give text that uses only "\n" the line ending `eol`. Text that already contains "\r" is left as written:
 * the caller chose its line endings on purpose.
 */
export function adoptLineEnding(text: string, eol: Eol): string {
  if (eol === '\n' || text.includes('\r') || !text.includes('\n')) return text;
  return text.split('\n').join(eol);
}
