/**
 * A file's diff as HTML table rows, rendered on the server from editgate's own diff model: the same hunks,
 * the same changed-word emphasis (core/word-diff) and the same highlight.js tokens (core/highlight) as the
 * terminal's diff view. Unified or side by side, old and new line numbers, unchanged regions between hunks
 * collapsed into rows the page can expand (from the texts the server holds), and huge diffs split into
 * pages of PAGE_LINES diff lines, each loaded on request: never truncated.
 */

import type { DiffLine, Hunk } from '../core/diff.js';
import { formatBytes } from '../core/format-bytes.js';
import { highlightHunk, type LineHighlighter, type ScopeSpan } from '../core/highlight.js';
import { type Line, splitLines } from '../core/lines.js';
import { pathInRoot } from '../core/root-named.js';
import { emphasizeHunk, type HunkEmphasis, type Span } from '../core/word-diff.js';
import { htmlText } from './html-text.js';
import type { ReviewFile } from './review-files.js';

export type DiffLayout = 'unified' | 'split';

/** Diff lines per page. */
export const PAGE_LINES = 500;
/** At most this many unchanged lines are shown per click on a collapsed region. */
export const EXPAND_LINES = 500;

const NO_SPANS: readonly Span[] = [];
const NO_SCOPES: readonly ScopeSpan[] = [];

/** What rendering a file needs beyond the diff, computed once per file and kept with the pending change. */
export class FileView {
  /** Index of each hunk's first line among all the file's diff lines. */
  private readonly starts: number[] = [];
  readonly lineCount: number;
  private readonly emphasis: Array<HunkEmphasis | undefined> = [];
  private readonly syntax: Array<ScopeSpan[][] | undefined> = [];
  private oldLines: Line[] | undefined;
  /** Whether the person may choose this file's hunks one by one (a checkbox per hunk). */
  readonly choosable: boolean;

  /**
   * `hunksChoosable: false`: the diff shown is not the proposal's (the person's own version, written whole),
   * so it offers no hunks to choose.
   */
  constructor(
    readonly file: ReviewFile,
    private readonly highlighter?: LineHighlighter,
    options: { hunksChoosable?: boolean } = {},
  ) {
    this.choosable =
      options.hunksChoosable !== false && !file.wholeOnly && !file.binary && file.diff.hunks.length > 0;
    let count = 0;
    for (const hunk of file.diff.hunks) {
      this.starts.push(count);
      count += hunk.lines.length;
    }
    this.lineCount = count;
  }

  get pageCount(): number {
    return Math.max(1, Math.ceil(this.lineCount / PAGE_LINES));
  }

  emphasisOf(index: number): HunkEmphasis {
    let found = this.emphasis[index];
    if (!found) {
      found = emphasizeHunk(this.file.diff.hunks[index]!.lines);
      this.emphasis[index] = found;
    }
    return found;
  }

  syntaxOf(index: number): ScopeSpan[][] | undefined {
    if (!this.highlighter) return undefined;
    let found = this.syntax[index];
    if (!found) {
      found = highlightHunk(this.file.diff.hunks[index]!, this.highlighter);
      this.syntax[index] = found;
    }
    return found;
  }

  /** Syntax scopes of some lines highlighted together (an expanded region); undefined without a highlighter. */
  highlight(lines: readonly string[]): ScopeSpan[][] | undefined {
    return this.highlighter?.(lines);
  }

  /** The old text's lines (unchanged regions are read from it); undefined when the text is not held. */
  unchangedLines(): Line[] | undefined {
    if (!this.file.texts) return undefined;
    this.oldLines ??= splitLines(this.file.texts.before);
    return this.oldLines;
  }

  /** The hunk holding diff line `flat` (an index among all the file's diff lines). */
  hunkAt(flat: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid]! <= flat) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  hunkStart(index: number): number {
    return this.starts[index]!;
  }
}

/**
 * The table a file's row groups go in (renderPage: a `<tbody>` per hunk, and one per collapsed region). Its
 * columns are fixed here, not by the first row (often a collapsed region or a hunk header spanning them
 * all): numbers and markers narrow, text taking the rest. The table scrolls sideways inside its own box
 * when it cannot be narrower (side by side on a phone), never the page.
 */
export function diffTable(layout: DiffLayout, groups: string): string {
  const columns =
    layout === 'unified'
      ? '<col class="n"><col class="n"><col class="m"><col>'
      : '<col class="n"><col><col class="n"><col>';
  return `<div class="diff-box"><table class="diff ${layout}"><colgroup>${columns}</colgroup>${groups}</table></div>`;
}

/** A plain sentence instead of a diff (binary, no change, empty file), or undefined when there is a diff. */
export function plainMessage(file: ReviewFile): string | undefined {
  if (file.binary) {
    const sizes = typeof file.binary === 'object' ? file.binary : {};
    const size = (bytes: number | undefined) =>
      bytes === undefined ? undefined : formatBytes(bytes, 'compact');
    const [oldSize, newSize] = [size(sizes.oldSize), size(sizes.newSize)];
    if (file.kind === 'create')
      return `Binary file${newSize ? ` (${newSize})` : ''}; its bytes are not shown.`;
    if (file.kind === 'delete')
      return `Binary file${oldSize ? ` (${oldSize})` : ''}; its bytes are not shown.`;
    return `Binary file changes${oldSize && newSize ? ` (${oldSize} → ${newSize})` : ''}; its bytes are not shown.`;
  }
  if (file.diff.identical && file.kind === 'modify') return 'No changes: the new content is identical.';
  if (file.diff.hunks.length === 0) return file.kind === 'delete' ? 'The file was empty.' : 'An empty file.';
  return undefined;
}

/**
 * One page of a file's diff: each hunk's rows in a `<tbody class="hunk">` (a hunk cut by a page boundary
 * goes on in the next page's), its header with a checkbox when its hunks can be chosen, and the expandable
 * regions around the hunks, each in a `<tbody>` of its own.
 */
export function renderPage(view: FileView, fileIndex: number, page: number, layout: DiffLayout): string {
  const out: string[] = [];
  const hunks = view.file.diff.hunks;
  if (hunks.length === 0) return '';
  const from = page * PAGE_LINES;
  const to = Math.min(view.lineCount, from + PAGE_LINES);
  const columns = 4;
  for (let h = view.hunkAt(from); h < hunks.length && view.hunkStart(h) < to; h++) {
    const hunk = hunks[h]!;
    const start = view.hunkStart(h);
    const first = Math.max(from, start) - start;
    const last = Math.min(to, start + hunk.lines.length) - start;
    if (first === 0) {
      const previous = h > 0 ? hunks[h - 1] : undefined;
      out.push(group(gapRow(view, fileIndex, lastLines(previous), firstOldLine(hunk), layout)));
    }
    out.push(`<tbody class="hunk" data-hunk="${h}">`);
    if (first === 0) out.push(hunkHeader(view, fileIndex, h, columns));
    const slice: HunkSlice = { hunk, first, last, emphasis: view.emphasisOf(h), syntax: view.syntaxOf(h) };
    if (layout === 'unified') unifiedRows(slice, out);
    else splitRows(slice, out);
    out.push('</tbody>');
    if (h === hunks.length - 1 && last === hunk.lines.length) {
      const lines = view.unchangedLines();
      if (lines) {
        const end = lastLines(hunk);
        out.push(group(gapRow(view, fileIndex, end, lines.length + 1, layout)));
      }
    }
  }
  return out.join('');
}

/** Rows in a group of their own, or '' for no rows. */
function group(rows: string): string {
  return rows ? `<tbody>${rows}</tbody>` : '';
}

/**
 * A hunk's header: its place in the old and new text and, when the file's hunks can be chosen, a checkbox
 * (checked: written) and the box for why it is left out (the page's script shows it when unchecked). The
 * page numbers hunks from 1; the decision's `hunks` (data-hunk) from 0, as the library does.
 */
function hunkHeader(view: FileView, fileIndex: number, index: number, columns: number): string {
  const hunk = view.file.diff.hunks[index]!;
  const range = `<span class="at">@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@</span>`;
  if (!view.choosable) return `<tr class="hk"><td colspan="${columns}">${range}</td></tr>`;
  const total = view.file.diff.hunks.length;
  const name = `hunk ${index + 1} of ${total}`;
  const data = `data-file="${fileIndex}" data-hunk="${index}"`;
  return `<tr class="hk"><td colspan="${columns}"><label class="pick"><input type="checkbox" class="hunk" ${data} checked> ${name}</label> ${range}<input type="text" class="why" ${data} maxlength="2000" placeholder="Why not? The agent reads this (optional)" aria-label="Why ${name} is left out" hidden></td></tr>`;
}

/** The row (in its own group) that loads the next page, or '' on the last page. */
export function nextPageRow(view: FileView, fileIndex: number, page: number): string {
  if (page + 1 >= view.pageCount) return '';
  const from = (page + 1) * PAGE_LINES + 1;
  const to = Math.min(view.lineCount, (page + 2) * PAGE_LINES);
  return `<tbody><tr class="more"><td colspan="4"><button type="button" class="page" data-file="${fileIndex}" data-page="${page + 1}">Show diff lines ${from.toLocaleString('en')}–${to.toLocaleString('en')} of ${view.lineCount.toLocaleString('en')}</button></td></tr></tbody>`;
}

interface Position {
  old: number;
  new: number;
}

/** The first old line number a hunk shows (for a hunk with no old lines, the line after oldStart). */
function firstOldLine(hunk: Hunk): number {
  return hunk.lines.find((line) => line.oldLine !== undefined)?.oldLine ?? hunk.oldStart + 1;
}

/** The last old and new line numbers shown before the region after `hunk` (0, 0 at the top). */
function lastLines(hunk: Hunk | undefined): Position {
  if (!hunk) return { old: 0, new: 0 };
  let old = hunk.oldStart;
  let next = hunk.newStart;
  for (const line of hunk.lines) {
    if (line.oldLine !== undefined) old = line.oldLine;
    if (line.newLine !== undefined) next = line.newLine;
  }
  return { old, new: next };
}

/** Unchanged lines after `after` and before old line `before`: a collapsed row, or '' when there are none. */
function gapRow(
  view: FileView,
  fileIndex: number,
  after: Position,
  before: number,
  layout: DiffLayout,
): string {
  const count = before - after.old - 1;
  if (count <= 0) return '';
  return collapsedRow(view, fileIndex, after.old + 1, after.new + 1, count, layout);
}

function collapsedRow(
  view: FileView,
  fileIndex: number,
  oldStart: number,
  newStart: number,
  count: number,
  layout: DiffLayout,
): string {
  const lines = `${count.toLocaleString('en')} unchanged line${count === 1 ? '' : 's'}`;
  if (!view.file.texts) {
    return `<tr class="gap"><td colspan="4">${lines} (not held in memory: this file is too large)</td></tr>`;
  }
  const label = count > EXPAND_LINES ? `Show ${EXPAND_LINES} of ${lines}` : `Show ${lines}`;
  return `<tr class="gap"><td colspan="4"><button type="button" class="expand" data-file="${fileIndex}" data-old="${oldStart}" data-new="${newStart}" data-count="${count}" data-layout="${layout}">${label}</button></td></tr>`;
}

/**
 * Rows for unchanged lines `count` from old line `oldStart` (new line `newStart`), at most EXPAND_LINES of
 * them, and a collapsed row for the rest. Undefined when the region is not one of the file's.
 */
export function expandRows(
  view: FileView,
  fileIndex: number,
  oldStart: number,
  newStart: number,
  count: number,
  layout: DiffLayout,
): string | undefined {
  const lines = view.unchangedLines();
  if (!lines || oldStart < 1 || count < 1 || oldStart + count - 1 > lines.length) return undefined;
  const shown = Math.min(count, EXPAND_LINES);
  const texts = lines.slice(oldStart - 1, oldStart - 1 + shown).map((line) => line.text);
  const syntax = view.highlight(texts);
  const out: string[] = [];
  for (let i = 0; i < shown; i++) {
    const code = styledText(texts[i]!, syntax?.[i] ?? NO_SCOPES, NO_SPANS);
    const old = oldStart + i;
    const next = newStart + i;
    out.push(contextRow(layout, old, next, code));
  }
  if (count > shown)
    out.push(collapsedRow(view, fileIndex, oldStart + shown, newStart + shown, count - shown, layout));
  return out.join('');
}

/** An unchanged line: its old and new numbers, its text once (unified) or on both sides. */
function contextRow(layout: DiffLayout, old: number, next: number, code: string): string {
  return layout === 'unified'
    ? `<tr class="c"><td class="ln">${old}</td><td class="ln">${next}</td><td class="mk"></td><td class="cd">${code}</td></tr>`
    : `<tr class="c"><td class="ln">${old}</td><td class="cd">${code}</td><td class="ln">${next}</td><td class="cd">${code}</td></tr>`;
}

/** Lines [first, last) of a hunk, with what rendering them needs. */
interface HunkSlice {
  hunk: Hunk;
  first: number;
  last: number;
  emphasis: HunkEmphasis;
  syntax: ScopeSpan[][] | undefined;
}

function unifiedRows({ hunk, first, last, emphasis, syntax }: HunkSlice, out: string[]): void {
  for (let i = first; i < last; i++) {
    const line = hunk.lines[i]!;
    const code = lineCode(hunk, i, emphasis, syntax);
    if (line.kind === 'context') out.push(contextRow('unified', line.oldLine!, line.newLine!, code));
    else if (line.kind === 'remove') {
      out.push(
        `<tr class="d"><td class="ln">${line.oldLine}</td><td class="ln"></td><td class="mk">-</td><td class="cd">${code}</td></tr>`,
      );
    } else {
      out.push(
        `<tr class="a"><td class="ln"></td><td class="ln">${line.newLine}</td><td class="mk">+</td><td class="cd">${code}</td></tr>`,
      );
    }
  }
}

/** Side by side: context on both sides; in each change block, removed lines beside added lines, in order. */
function splitRows({ hunk, first, last, emphasis, syntax }: HunkSlice, out: string[]): void {
  let i = first;
  while (i < last) {
    const line = hunk.lines[i]!;
    if (line.kind === 'context') {
      out.push(contextRow('split', line.oldLine!, line.newLine!, lineCode(hunk, i, emphasis, syntax)));
      i++;
      continue;
    }
    const removed: number[] = [];
    const added: number[] = [];
    while (i < last && hunk.lines[i]!.kind !== 'context') {
      (hunk.lines[i]!.kind === 'remove' ? removed : added).push(i);
      i++;
    }
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const left = removed[k];
      const right = added[k];
      const leftCells =
        left === undefined
          ? '<td class="ln e"></td><td class="cd e"></td>'
          : `<td class="ln d">${hunk.lines[left]!.oldLine}</td><td class="cd d">${lineCode(hunk, left, emphasis, syntax)}</td>`;
      const rightCells =
        right === undefined
          ? '<td class="ln e"></td><td class="cd e"></td>'
          : `<td class="ln a">${hunk.lines[right]!.newLine}</td><td class="cd a">${lineCode(hunk, right, emphasis, syntax)}</td>`;
      out.push(`<tr class="x">${leftCells}${rightCells}</tr>`);
    }
  }
}

/** A line's text with its syntax scopes and changed-word emphasis, and its terminator when that alone changed. */
function lineCode(
  hunk: Hunk,
  index: number,
  emphasis: HunkEmphasis,
  syntax: ScopeSpan[][] | undefined,
): string {
  const line = hunk.lines[index]!;
  let code = styledText(line.text, syntax?.[index] ?? NO_SCOPES, emphasis.spans.get(index) ?? NO_SPANS);
  const partner = emphasis.partner.get(index);
  const other = partner === undefined ? undefined : hunk.lines[partner];
  if (other && other.text === line.text && other.eol !== line.eol)
    code += `<span class="eol">${eolLabel(line.eol)}</span>`;
  return code;
}

function eolLabel(eol: DiffLine['eol']): string {
  return eol === '\r\n' ? '[CRLF]' : eol === '\n' ? '[LF]' : eol === '\r' ? '[CR]' : '[no newline at end]';
}

/** Text cut where a syntax scope or an emphasis span starts or ends, each piece in its classes. */
export function styledText(text: string, scopes: readonly ScopeSpan[], emphasis: readonly Span[]): string {
  if (scopes.length === 0 && emphasis.length === 0) return htmlText(text);
  const cuts = new Set<number>([0, text.length]);
  for (const span of scopes) cuts.add(span.start).add(span.end);
  for (const span of emphasis) cuts.add(span.start).add(span.end);
  const points = [...cuts].filter((point) => point >= 0 && point <= text.length).sort((x, y) => x - y);
  let out = '';
  let s = 0;
  let e = 0;
  for (let k = 0; k + 1 < points.length; k++) {
    const start = points[k]!;
    const end = points[k + 1]!;
    while (s < scopes.length && scopes[s]!.end <= start) s++;
    while (e < emphasis.length && emphasis[e]!.end <= start) e++;
    const scope = s < scopes.length && scopes[s]!.start <= start ? scopes[s]!.scope : undefined;
    const emphasised = e < emphasis.length && emphasis[e]!.start <= start;
    const piece = htmlText(text.slice(start, end));
    if (!scope && !emphasised) out += piece;
    else {
      const classes = `${scope ? `s-${scope}` : ''}${scope && emphasised ? ' ' : ''}${emphasised ? 'em' : ''}`;
      out += `<span class="${classes}">${piece}</span>`;
    }
  }
  return out;
}

/** The header of a file's section: its path, what happens to it, and its counts. */
export function fileHeading(file: ReviewFile): string {
  const verb = { create: 'created', modify: 'modified', delete: 'deleted' }[file.kind];
  const label = file.diff.identical && file.kind === 'modify' && !file.binary ? 'unchanged' : verb;
  const stats = file.binary
    ? '<span class="stat">binary</span>'
    : `<span class="stat add">+${file.stats.added}</span> <span class="stat del">-${file.stats.removed}</span>`;
  return `<span class="path">${htmlText(pathInRoot(file.path, file.root))}</span> <span class="kind k-${label}">${label}</span> ${stats}`;
}
