/**
 * The line-ending-neutral view of a text: every terminator ("\r\n", "\n", lone "\r") becomes "\n", so text
 * the model wrote with one convention matches a file that uses another. A "\r\n" is one view character, so
 * a view offset never falls inside one and maps back to exactly one original offset.
 */
import { countNewlines, type Eol, type EolProfile, eolProfileOf } from './lines.js';

export { countNewlines, type EolProfile };

export interface NeutralView {
  readonly original: string;
  /** The original with every terminator as "\n". */
  readonly text: string;
  /** Offset in `original` of a view offset. */
  toOriginal(offset: number): number;
  /** Dominant and mixed line endings of the original (counted on first use). */
  eol(): EolProfile;
  /** The view's lines without terminators; a final "\n" does not start another line; '' has none. */
  lines(): readonly string[];
  /** View offset of the first character of each of `lines()`. */
  lineStarts(): readonly number[];
}

/** Every terminator as "\n". */
export function toLf(text: string): string {
  return text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n');
}

export function neutralView(original: string): NeutralView {
  // View offsets of the "\n" that stand for a "\r\n" (each one shortens the view by one character).
  const crlf: number[] = [];
  let loneCr = 0;
  for (let p = original.indexOf('\r'); p !== -1; p = original.indexOf('\r', p + 1)) {
    if (original.charCodeAt(p + 1) === 10) crlf.push(p - crlf.length);
    else loneCr++;
  }
  const text = crlf.length === 0 && loneCr === 0 ? original : original.replace(/\r\n?/g, '\n');
  let profile: EolProfile | undefined;
  let lines: string[] | undefined;
  let starts: number[] | undefined;

  return {
    original,
    text,
    toOriginal(offset) {
      if (crlf.length === 0) return offset;
      let low = 0;
      let high = crlf.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (crlf[mid]! < offset) low = mid + 1;
        else high = mid;
      }
      return offset + low;
    },
    eol() {
      if (profile) return profile;
      if (crlf.length === 0 && loneCr === 0) return (profile = { dominant: '\n', mixed: false });
      const counts: Record<Eol, number> = {
        '\n': countNewlines(original),
        '\r\n': crlf.length,
        '\r': loneCr,
      };
      counts['\n'] -= crlf.length;
      return (profile = eolProfileOf(counts));
    },
    lines() {
      if (lines) return lines;
      lines = text === '' ? [] : text.split('\n');
      if (text.endsWith('\n')) lines.pop();
      return lines;
    },
    lineStarts() {
      if (starts) return starts;
      const all = this.lines();
      starts = new Array<number>(all.length);
      let offset = 0;
      for (let i = 0; i < all.length; i++) {
        starts[i] = offset;
        offset += all[i]!.length + 1;
      }
      return starts;
    },
  };
}

/**
 * The line ending for line breaks inserted in place of original[start, end). A file with one convention gets
 * it. In a mixed file the replaced region's own (most common) ending wins, else the ending of the line the
 * region sits on, else the line before it, else the dominant one: new lines look like their neighbours.
 */
export function chooseEol(original: string, start: number, end: number, profile: EolProfile): Eol {
  if (!profile.mixed) return profile.dominant;
  const counts: Record<Eol, number> = { '\n': 0, '\r\n': 0, '\r': 0 };
  let any = false;
  for (let i = start; i < end; i++) {
    const c = original.charCodeAt(i);
    if (c === 10) {
      counts['\n']++;
      any = true;
    } else if (c === 13) {
      any = true;
      if (i + 1 < end && original.charCodeAt(i + 1) === 10) {
        counts['\r\n']++;
        i++;
      } else counts['\r']++;
    }
  }
  if (any) {
    let best: Eol = profile.dominant;
    for (const eol of ['\r\n', '\n', '\r'] as const) if (counts[eol] > counts[best]) best = eol;
    return best;
  }
  const lf = original.indexOf('\n', end);
  const cr = original.indexOf('\r', end);
  if (cr !== -1 && (lf === -1 || cr < lf)) return original.charCodeAt(cr + 1) === 10 ? '\r\n' : '\r';
  if (lf !== -1) return '\n';
  const before = original.charCodeAt(start - 1);
  if (before === 10) return original.charCodeAt(start - 2) === 13 ? '\r\n' : '\n';
  if (before === 13) return '\r';
  return profile.dominant;
}
