import stringWidth from 'string-width';
import { markOf, mustMark } from '../core/invisible.js';

/**
 * Text as a terminal shows it: a sequence of cells, one per grapheme, each with its display width and the
 * offset of its source in the original string (so styles computed on the text, like word-diff spans and
 * syntax tokens, can be laid over the cells after tabs are expanded and the line is wrapped).
 *
 * File content never reaches the terminal raw: control characters (an ESC in a file could move the cursor
 * or recolour the screen) become visible symbols, and invisible characters that change how code reads
 * (bidirectional marks and overrides, zero-width and tag characters, fillers: core/invisible.ts has the
 * rule) are spelled out as <U+XXXX>, even inside a grapheme they would otherwise hide in.
 */
export interface Cell {
  text: string;
  width: number;
  /** UTF-16 offset of the source grapheme in the original text. */
  offset: number;
  /** A control or invisible character shown as a symbol; rendered in the control style. */
  control?: boolean;
}

let segmenter: Intl.Segmenter | undefined;

function graphemes(text: string): Iterable<{ segment: string; index: number }> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(text);
}

/** UTF-16 offsets of the characters of `text` that must be shown by a stand-in (core/invisible.ts). */
function markedOffsets(text: string): Set<number> {
  const marked = new Set<number>();
  const codes: { code: number; index: number }[] = [];
  for (let index = 0; index < text.length; ) {
    const code = text.codePointAt(index)!;
    codes.push({ code, index });
    index += code > 0xffff ? 2 : 1;
  }
  codes.forEach(({ code, index }, i) => {
    // A line is laid out alone: a newline inside one is a character to show (␊), like any control.
    if (code === 0x0a || (code !== 0x09 && mustMark(code, codes[i - 1]?.code, codes[i + 1]?.code)))
      marked.add(index);
  });
  return marked;
}

/**
 * Cells for one line of text. Tabs expand to the next multiple of `tabWidth` (counted from `startColumn`),
 * one cell per column so a tab can wrap like spaces do.
 */
export function toCells(text: string, tabWidth = 4, startColumn = 0): Cell[] {
  const cells: Cell[] = [];
  let column = startColumn;
  // Fast path for the common case: printable ASCII is one cell per character.
  const ascii = /^[\x20-\x7e\t]*$/.test(text);
  const marked = ascii ? undefined : markedOffsets(text);
  const pieces = ascii ? asciiPieces(text) : graphemes(text);
  for (const { segment, index } of pieces) {
    if (segment === '\t') {
      const spaces = tabWidth - (column % tabWidth);
      for (let i = 0; i < spaces; i++) cells.push({ text: ' ', width: 1, offset: index });
      column += spaces;
      continue;
    }
    if (ascii || marked === undefined) {
      cells.push({ text: segment, width: 1, offset: index });
      column += 1;
      continue;
    }
    if (!hasMarked(marked, index, segment.length)) {
      const width = stringWidth(segment);
      cells.push({ text: segment, width, offset: index });
      column += width;
      continue;
    }
    // A grapheme holding a marked character (a letter with a variation selector or tag characters after
    // it): its visible parts and a stand-in for each marked one, so nothing hides inside the cluster.
    let run = '';
    let runStart = index;
    const flush = () => {
      if (run === '') return;
      const width = stringWidth(run);
      cells.push({ text: run, width, offset: runStart });
      column += width;
      run = '';
    };
    for (let at = index; at < index + segment.length; ) {
      const code = text.codePointAt(at)!;
      const size = code > 0xffff ? 2 : 1;
      if (marked.has(at)) {
        flush();
        const visible = markOf(code);
        const width = stringWidth(visible);
        cells.push({ text: visible, width, offset: at, control: true });
        column += width;
      } else {
        if (run === '') runStart = at;
        run += text.slice(at, at + size);
      }
      at += size;
    }
    flush();
  }
  return cells;
}

function hasMarked(marked: ReadonlySet<number>, from: number, length: number): boolean {
  if (marked.size === 0) return false;
  for (let at = from; at < from + length; at++) if (marked.has(at)) return true;
  return false;
}

function* asciiPieces(text: string): Iterable<{ segment: string; index: number }> {
  for (let i = 0; i < text.length; i++) yield { segment: text[i]!, index: i };
}

export function cellsWidth(cells: readonly Cell[]): number {
  let width = 0;
  for (const cell of cells) width += cell.width;
  return width;
}

/**
 * Rows of at most `width` columns; nothing dropped. A wide character that does not fit at the end of a row
 * moves to the next one; a cell wider than the whole row (possible only for tiny widths) gets a row alone.
 * An empty line is one empty row. With `atSpaces` (prose, not code) a row breaks after its last space when
 * it has one, so words stay whole.
 */
export function wrapCells<T extends Cell>(cells: readonly T[], width: number, atSpaces = false): T[][] {
  const limit = Math.max(1, Math.floor(width));
  const rows: T[][] = [];
  let row: T[] = [];
  let used = 0;
  for (const cell of cells) {
    if (used + cell.width > limit && row.length > 0) {
      let carry: T[] = [];
      if (atSpaces && cell.text !== ' ') {
        const space = row.findLastIndex((c) => c.text === ' ');
        if (space > 0) carry = row.splice(space + 1);
      }
      rows.push(row);
      row = carry;
      used = cellsWidth(carry);
    }
    row.push(cell);
    used += cell.width;
  }
  rows.push(row);
  return rows;
}

/** Display width of a string that holds no escape codes (prompt text, paths). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** `text` with control and invisible characters made visible (for paths and other one-line text). */
export function visibleText(text: string): string {
  return toCells(text)
    .map((cell) => cell.text)
    .join('');
}

/** `text` without its last grapheme (Backspace in a line editor: one press, one visible character). */
export function dropLastGrapheme(text: string): string {
  let last = 0;
  for (const { index } of graphemes(text)) last = index;
  return text.slice(0, last);
}
