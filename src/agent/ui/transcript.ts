import { type Cell, cellsWidth, toCells, wrapCells } from '../../terminal/cells.js';
import { type ColorLevel, paint, type Style } from '../../terminal/colors.js';
import type { Palette } from '../../terminal/palette.js';
import { cut } from './live-screen.js';
import { sanitizeOutput } from './sanitize.js';

/**
 * The transcript's lines, as pure functions of what happened and the width: each returns rows that fit
 * `width` columns exactly as given (the live screen never re-wraps them), with SGR codes only when colour
 * is on. Text from the model, files and commands passes through the cell renderer, which shows control
 * characters as symbols: no escape sequence of theirs reaches the screen.
 */
export interface Look {
  width: number;
  level: ColorLevel;
  palette: Palette;
}

const DIM: Style = { dim: true };
const BOLD: Style = { bold: true };
const WARNING: Style = { fg: { rgb: [230, 180, 60], ansi16: 3 }, bold: true };

function rows(text: string, width: number, prose: boolean): string[] {
  const limit = Math.max(1, width);
  if (PRINTABLE_ASCII.test(text))
    return asciiRows(text, limit, prose).map(([start, end]) => text.slice(start, end));
  return wrapCells(toCells(text), limit, prose).map((row) => row.map((cell) => cell.text).join(''));
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The rows wrapCells would make of printable ASCII (one column per character), as [start, end) offsets,
 * without a cell per character: most of a reply is such text, and this is where streaming spends its time.
 */
function asciiRows(text: string, limit: number, atSpaces: boolean): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  while (text.length - start > limit) {
    let end = start + limit;
    if (atSpaces && text[end] !== ' ') {
      const space = text.lastIndexOf(' ', end - 1);
      if (space > start) end = space + 1;
    }
    out.push([start, end]);
    start = end;
  }
  out.push([start, text.length]);
  return out;
}

/**
 * Text laid out after a prefix on the first row and an indent on the others. Prefixes are given painted,
 * with their width in columns.
 */
function block(
  text: string,
  look: Look,
  prefix: { first: string; rest: string; width: number },
  style?: Style,
  prose = true,
): string[] {
  const out: string[] = [];
  let head = true;
  for (const line of text.split('\n')) {
    for (const row of rows(line, look.width - prefix.width, prose)) {
      out.push(`${head ? prefix.first : prefix.rest}${style ? paint(row, style, look.level) : row}`);
      head = false;
    }
  }
  return out;
}

function marked(mark: string, look: Look, style: Style): { first: string; rest: string; width: number } {
  return { first: `${paint(mark, style, look.level)} `, rest: '  ', width: 2 };
}

/** The person's message: a blank row, then `› ` before its first row. */
export function promptLines(text: string, look: Look): string[] {
  return ['', ...block(text, look, marked('›', look, look.palette.key), BOLD)];
}

/**
 * The model's text is never mistaken for editgate's own lines: every row of it, wrapped and empty ones
 * included, starts with this gutter, which no line of editgate's starts with (they start with ✓ ✗ ! · ⚙ ›
 * or a space). So `✓ applied (you: this file)` written by a model reads `▎ ✓ applied (you: this file)`,
 * with colour or without (--no-color).
 */
export const REPLY_GUTTER = '▎ ';
/** Columns the gutter takes: the reply's text has the width less these. */
export const REPLY_GUTTER_WIDTH = 2;

/** One row of the reply's text (already fitted to the width less the gutter), after the gutter. */
export function replyRow(row: string, look: Look): string {
  return `${paint(REPLY_GUTTER, DIM, look.level)}${row}`;
}

/** Finished lines of the model's reply (the text may hold several), each row after the gutter. */
export function replyLines(text: string, look: Look): string[] {
  return text
    .split('\n')
    .flatMap((line) => rows(line, look.width - REPLY_GUTTER_WIDTH, true))
    .map((row) => replyRow(row, look));
}

/**
 * A reply line still arriving: its rows that are decided (all but the last: a row is final once the next
 * one has started) and the text of the last, still open, row. `width` is the text's (the screen's less
 * REPLY_GUTTER_WIDTH); each row is shown with replyRow.
 */
export function splitOpenRow(text: string, width: number): { done: string[]; rest: string } {
  if (PRINTABLE_ASCII.test(text)) {
    const spans = asciiRows(text, Math.max(1, width), true);
    const open = spans.at(-1)!;
    return {
      done: spans.slice(0, -1).map(([start, end]) => text.slice(start, end)),
      rest: text.slice(open[0]),
    };
  }
  const all = wrapCells(toCells(text), Math.max(1, width), true);
  if (all.length <= 1) return { done: [], rest: text };
  const last = all.at(-1)!;
  const start = last[0]?.offset ?? text.length;
  return {
    done: all.slice(0, -1).map((row) => row.map((cell) => cell.text).join('')),
    rest: text.slice(start),
  };
}

/** `⚙ read_file src/api.ts · 120 lines`, fitted to one row (the target is shortened first). */
export function toolLine(
  name: string,
  target: string,
  summary: string | undefined,
  look: Look,
  failed = false,
): string {
  const gear = paint('⚙', look.palette.header, look.level);
  const tail = summary ? ` · ${summary}` : '';
  // The gear counts as two columns: string-width (and some terminals) draw it as an emoji.
  const fixed = 3 + name.length + 1 + toCells(tail).length;
  const room = Math.max(4, look.width - fixed);
  const shown = fitText(oneLine(target), room);
  const painted = summary
    ? ` · ${paint(summary, failed ? look.palette.removedMarker : DIM, look.level)}`
    : '';
  // On a very narrow screen even the name and the summary may not fit: the row is cut, never wrapped.
  return cut(`${gear} ${paint(name, BOLD, look.level)}${shown ? ` ${shown}` : ''}${painted}`, look.width);
}

/** The one line a decided change leaves: `✓ applied (you: this file)`, `✗ denied (you): reason`. */
export function outcomeLine(ok: boolean, text: string, look: Look): string[] {
  return block(
    text,
    look,
    marked(ok ? '✓' : '✗', look, ok ? look.palette.addedMarker : look.palette.removedMarker),
  );
}

/** A dim, indented excerpt: a command's output (its last rows), or why a call failed. */
export function detailLines(text: string, look: Look, maxRows: number): string[] {
  const clean = sanitizeOutput(text).replace(/\n+$/, '');
  if (clean === '') return [];
  const all = clean.split('\n').flatMap((line) => rows(line, look.width - 4, false));
  const shown = all.length > maxRows ? all.slice(-maxRows) : all;
  const out = shown.map((row) => `  ${paint('│', DIM, look.level)} ${paint(row, DIM, look.level)}`);
  if (all.length > maxRows) {
    out.unshift(
      cut(`  ${paint(`│ … ${all.length - maxRows} more lines above`, DIM, look.level)}`, look.width),
    );
  }
  return out;
}

export function noteLines(text: string, look: Look, kind: 'info' | 'warning' | 'error' = 'info'): string[] {
  const prefix =
    kind === 'error'
      ? marked('✗', look, look.palette.removedMarker)
      : kind === 'warning'
        ? marked('!', look, WARNING)
        : marked('·', look, DIM);
  return block(text, look, prefix, kind === 'info' ? DIM : undefined);
}

/** Text on one row: newlines and tabs as spaces, control characters as symbols. */
export function oneLine(text: string): string {
  return toCells(text.replace(/[\r\n\t]+/g, ' '))
    .map((cell) => cell.text)
    .join('');
}

/** `text` cut to `width` columns, with … when cut. */
export function fitText(text: string, width: number): string {
  const cells = toCells(text);
  if (cellsWidth(cells) <= width) return text;
  const kept: Cell[] = [];
  let used = 0;
  for (const cell of cells) {
    if (used + cell.width > width - 1) break;
    kept.push(cell);
    used += cell.width;
  }
  return `${kept.map((cell) => cell.text).join('')}…`;
}
