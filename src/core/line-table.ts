import type { Eol } from './lines.js';

/**
 * Where every line of a text starts, in the universal-newline model of `lines.ts` ("\r\n", "\n" or a lone
 * "\r" ends a line; the terminator belongs to the line). Line `i` spans `[starts[i], starts[i + 1])`,
 * terminator included; `starts[count]` is `text.length` (entries past it are unused). Offsets only, so a
 * million-line text costs one Int32Array instead of a million objects.
 */
export interface LineTable {
  text: string;
  starts: Int32Array;
  count: number;
  /** The text contains a "\r" (so line ends may differ from what "\n"-based tools see). */
  hasCr: boolean;
}

export function buildLineTable(text: string): LineTable {
  const length = text.length;
  let starts: Int32Array = new Int32Array((length >> 5) + 16);
  let size = 1;
  // indexOf runs natively and is an order of magnitude faster than a charCodeAt loop on large texts.
  let lf = text.indexOf('\n');
  let cr = text.indexOf('\r');
  const hasCr = cr !== -1;
  while (lf !== -1 || cr !== -1) {
    let next: number;
    if (cr === -1 || (lf !== -1 && lf < cr)) {
      next = lf + 1;
      lf = text.indexOf('\n', next);
    } else {
      if (lf === cr + 1) {
        next = lf + 1;
        lf = text.indexOf('\n', next);
      } else next = cr + 1;
      cr = text.indexOf('\r', next);
    }
    if (size === starts.length) starts = grow(starts);
    starts[size++] = next;
  }
  if (starts[size - 1] !== length) {
    if (size === starts.length) starts = grow(starts);
    starts[size++] = length;
  }
  // No subarray: `starts` may be longer than needed, `count` says how much is used.
  return { text, starts, count: size - 1, hasCr };
}

function grow(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

export function eolLength(table: LineTable, index: number): number {
  const { text, starts } = table;
  const end = starts[index + 1]!;
  const last = text.charCodeAt(end - 1);
  if (last === 13) return 1;
  if (last !== 10) return 0;
  return end - 2 >= starts[index]! && text.charCodeAt(end - 2) === 13 ? 2 : 1;
}

export function lineEol(table: LineTable, index: number): Eol | '' {
  const length = eolLength(table, index);
  if (length === 2) return '\r\n';
  if (length === 0) return '';
  return table.text.charCodeAt(table.starts[index + 1]! - 1) === 13 ? '\r' : '\n';
}

/** Line `index` without its terminator. */
export function lineText(table: LineTable, index: number): string {
  return table.text.slice(table.starts[index], table.starts[index + 1]! - eolLength(table, index));
}

/**
 * True when a "\n"-based tool (git, patch) also sees a line boundary before line `index`: at either end of
 * the text, or after a line ending in "\n" or "\r\n". A lone "\r" is not a line end for those tools.
 */
export function isLfBoundary(table: LineTable, index: number): boolean {
  return index === 0 || index === table.count || table.text.charCodeAt(table.starts[index]! - 1) !== 13;
}
