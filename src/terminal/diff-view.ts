import type { Diff, DiffLine } from '../core/diff.js';
import { formatUnifiedDiff } from '../core/diff.js';
import { formatBytes } from '../core/format-bytes.js';
import { highlightHunk, type LineHighlighter, type ScopeSpan } from '../core/highlight.js';
import { emphasizeHunk, type Span } from '../core/word-diff.js';
import { type Cell, toCells, wrapCells } from './cells.js';
import { type ColorLevel, mergeStyles, paint, SGR_RESET, type Style, sgrOpen } from './colors.js';
import { windowLongLines } from './long-lines.js';
import { type Palette, paletteFor, type Theme } from './palette.js';

/**
 * The diff as a person reads it in a terminal: pure, data in and lines out (each a string with SGR codes
 * when colour is on, none at all when it is off), so the prompt, the pager and a later ink front end all
 * show the same thing.
 */

export interface RenderableChange {
  path: string;
  kind: 'create' | 'modify' | 'delete' | 'noop';
  diff: Diff;
  /** A binary file: described by its sizes, never dumped. */
  binary?: boolean | { oldSize?: number; newSize?: number };
}

export interface DiffViewOptions {
  /** Columns available; long lines wrap to it. Default 80. */
  width?: number;
  /** Default 0: plain text. */
  color?: ColorLevel;
  theme?: Theme;
  tabWidth?: number;
  /** From `loadHighlighter`; used only at 256 colours and up, where tints and token colours can mix. */
  highlighter?: LineHighlighter;
  /** Emphasise changed words in paired lines. Default true. */
  wordDiff?: boolean;
}

export const NO_CHANGES_MESSAGE = 'No changes: the new content is identical.';

/** Narrower than this, text would wrap a few characters a row; the terminal's own wrapping is kinder. */
const MIN_TEXT_WIDTH = 10;

export function renderDiff(change: RenderableChange, options: DiffViewOptions = {}): string[] {
  const width = Math.max(1, Math.floor(options.width ?? 80));
  const level = options.color ?? 0;
  const palette = paletteFor(options.theme ?? 'dark');
  const out: string[] = [];
  // Long lines as windows around their change: wrapping a 10 MB line would take minutes (long-lines.ts).
  const diff = windowLongLines(change.diff);

  if (change.binary) {
    out.push(...wrapStyled(headerSegments(change, palette), width, level));
    out.push(...wrapStyled([[binaryDescription(change), palette.note]], width, level));
    return out;
  }
  // Creating or deleting an empty file diffs '' against '': identical text, but not "no changes".
  if (change.kind === 'noop' || (diff.identical && change.kind === 'modify')) {
    out.push(...wrapStyled([[`${change.path}  unchanged`, palette.header]], width, level));
    out.push(...wrapStyled([[NO_CHANGES_MESSAGE, palette.note]], width, level));
    return out;
  }

  out.push(...wrapStyled(headerSegments(change, palette), width, level));
  if (diff.hunks.length === 0) {
    const note = change.kind === 'delete' ? 'The file was empty.' : 'An empty file.';
    out.push(...wrapStyled([[note, palette.note]], width, level));
    return out;
  }

  const gutter = gutterLayout(change, diff);
  const textWidth = Math.max(MIN_TEXT_WIDTH, width - gutter.width);
  const useSyntax = level >= 2 ? options.highlighter : undefined;
  const finalNewlineChanged = endsWithoutNewline(diff, 'add') !== endsWithoutNewline(diff, 'remove');
  for (const hunk of diff.hunks) {
    const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
    out.push(...wrapStyled([[header, palette.hunk]], width, level));
    const emphasis =
      options.wordDiff === false
        ? { spans: new Map<number, Span[]>(), partner: new Map<number, number>() }
        : emphasizeHunk(hunk.lines);
    const syntax = useSyntax ? highlightHunk(hunk, useSyntax) : undefined;
    hunk.lines.forEach((line, index) => {
      const partner = emphasis.partner.get(index);
      const partnerLine = partner === undefined ? undefined : hunk.lines[partner];
      out.push(
        ...renderLine(line, {
          gutter,
          textWidth,
          level,
          palette,
          tabWidth: options.tabWidth ?? 4,
          emphasis: emphasis.spans.get(index) ?? [],
          syntax: syntax?.[index] ?? [],
          // Same text, different terminator: say which, or the pair would look like no change at all.
          // A final newline added or taken away is said on the bare line, as the plain diff's
          // `\ No newline at end of file` does: nothing else on screen would show it.
          eolNote:
            partnerLine && partnerLine.text === line.text && partnerLine.eol !== line.eol
              ? eolLabel(line.eol)
              : finalNewlineChanged && line.kind !== 'context' && line.eol === ''
                ? eolLabel(line.eol)
                : undefined,
        }),
      );
    });
  }
  return out;
}

/**
 * The unified diff text (`--- a/path`, `+++ b/path`, hunks), for output that is not a terminal: what
 * `git apply` and `patch` read. Identical content gives '' (as diff(1) prints nothing); a binary file gives
 * the one line git prints for one.
 */
export function renderPlainUnified(change: RenderableChange & { unifiedDiff?: string }): string {
  // formatUnifiedDiff adds the a/ and b/ prefixes itself.
  const oldPath = change.kind === 'create' ? '/dev/null' : change.path;
  const newPath = change.kind === 'delete' ? '/dev/null' : change.path;
  if (change.binary) {
    const prefixed = (path: string, prefix: string) => (path === '/dev/null' ? path : prefix + path);
    return `Binary files ${prefixed(oldPath, 'a/')} and ${prefixed(newPath, 'b/')} differ\n`;
  }
  if (change.kind === 'noop' || change.diff.identical) return '';
  return change.unifiedDiff ?? formatUnifiedDiff(change.diff, { oldPath, newPath });
}

type Segment = readonly [text: string, style: Style];

function headerSegments(change: RenderableChange, palette: Palette): Segment[] {
  const verbs = { create: 'created', modify: 'modified', delete: 'deleted', noop: 'unchanged' } as const;
  const verbStyle =
    change.kind === 'create'
      ? palette.created
      : change.kind === 'delete'
        ? palette.deleted
        : palette.modified;
  const target =
    change.kind === 'create'
      ? `/dev/null → ${change.path}`
      : change.kind === 'delete'
        ? `${change.path} → /dev/null`
        : change.path;
  const segments: Segment[] = [
    [target, palette.header],
    ['  ', {}],
    [verbs[change.kind], verbStyle],
    ['  ', {}],
  ];
  if (change.binary) segments.push(['binary', palette.note]);
  else {
    segments.push([`+${change.diff.added}`, palette.addedMarker]);
    segments.push([' ', {}]);
    segments.push([`-${change.diff.removed}`, palette.removedMarker]);
  }
  return segments;
}

function binaryDescription(change: RenderableChange): string {
  const sizes = typeof change.binary === 'object' ? change.binary : {};
  const size = (bytes: number | undefined) =>
    bytes === undefined ? undefined : formatBytes(bytes, 'compact');
  const oldSize = size(sizes.oldSize);
  const newSize = size(sizes.newSize);
  if (change.kind === 'create')
    return `Binary file${newSize ? ` (${newSize})` : ''}; its bytes are not shown.`;
  if (change.kind === 'delete')
    return `Binary file${oldSize ? ` (${oldSize})` : ''}; its bytes are not shown.`;
  const change_ = oldSize && newSize ? ` (${oldSize} → ${newSize})` : '';
  return `Binary file changes${change_}; its bytes are not shown.`;
}

interface GutterLayout {
  showOld: boolean;
  showNew: boolean;
  digits: number;
  /** Columns before the text: numbers, marker and the spaces between. */
  width: number;
}

/** A created file has no old numbers and a deleted one no new numbers: their column is left out. */
function gutterLayout(change: RenderableChange, diff: Diff): GutterLayout {
  const showOld = change.kind !== 'create';
  const showNew = change.kind !== 'delete';
  let highest = 1;
  for (const hunk of diff.hunks) {
    for (const line of hunk.lines) highest = Math.max(highest, line.oldLine ?? 0, line.newLine ?? 0);
  }
  const digits = String(highest).length;
  const columns = (showOld ? digits + 1 : 0) + (showNew ? digits + 1 : 0);
  return { showOld, showNew, digits, width: columns + 2 };
}

interface LineContext {
  gutter: GutterLayout;
  textWidth: number;
  level: ColorLevel;
  palette: Palette;
  tabWidth: number;
  emphasis: readonly Span[];
  syntax: readonly ScopeSpan[];
  eolNote: string | undefined;
}

function renderLine(line: DiffLine, ctx: LineContext): string[] {
  const { gutter, level, palette } = ctx;
  const number = (n: number | undefined) => (n === undefined ? '' : String(n)).padStart(gutter.digits);
  let numbers = '';
  if (gutter.showOld) numbers += `${number(line.kind === 'add' ? undefined : line.oldLine)} `;
  if (gutter.showNew) numbers += `${number(line.kind === 'remove' ? undefined : line.newLine)} `;
  const marker = line.kind === 'add' ? '+' : line.kind === 'remove' ? '-' : ' ';

  const cells = toCells(line.text, ctx.tabWidth);
  const noteStart = cells.length;
  if (ctx.eolNote !== undefined) {
    for (const cell of toCells(` ${ctx.eolNote}`)) cells.push({ ...cell, offset: -1 });
  }
  const rows = wrapCells(cells, ctx.textWidth);

  const base =
    line.kind === 'add' ? palette.added : line.kind === 'remove' ? palette.removed : palette.context;
  const tint = line.kind === 'add' ? palette.addedLine : line.kind === 'remove' ? palette.removedLine : {};
  const emph = line.kind === 'add' ? palette.addedEmphasis : palette.removedEmphasis;
  const tinted = level >= 2 && line.kind !== 'context';
  const styleOf = (cell: Cell, index: number): Style => {
    if (index >= noteStart) return mergeStyles(palette.note, tinted ? tint : undefined);
    if (cell.control) return mergeStyles(tinted ? tint : undefined, palette.control);
    const scope = findScope(ctx.syntax, cell.offset);
    const fg = scope ? palette.syntax[scope] : base;
    const emphasised = ctx.emphasis.length > 0 && inSpans(ctx.emphasis, cell.offset);
    if (!emphasised) return mergeStyles(fg, tinted ? tint : undefined);
    // Without background tints (16 colours) reverse video marks the changed words.
    return level >= 2 ? mergeStyles(fg, emph) : mergeStyles(base, { bold: true, inverse: true });
  };
  // A line's cells fall into a few kinds (note, control, syntax scope, emphasised or not): each kind's escape
  // code is worked out once, not once per cell (a hunk's diff is drawn per key in the per-hunk walk).
  const opened = new Map<string, string>();
  const openOf = (cell: Cell, index: number): string => {
    const kind =
      index >= noteStart
        ? 'note'
        : cell.control
          ? 'control'
          : `${findScope(ctx.syntax, cell.offset) ?? ''}|${ctx.emphasis.length > 0 && inSpans(ctx.emphasis, cell.offset)}`;
    let open = opened.get(kind);
    if (open === undefined) {
      open = sgrOpen(styleOf(cell, index), level);
      opened.set(kind, open);
    }
    return open;
  };

  const markerStyle = line.kind === 'add' ? palette.addedMarker : palette.removedMarker;
  const out: string[] = [];
  let index = 0;
  rows.forEach((row, r) => {
    const gutterText = r === 0 ? paint(numbers, palette.lineNumber, level) : ' '.repeat(numbers.length);
    const markerText =
      r === 0 && line.kind !== 'context'
        ? paint(marker, mergeStyles(markerStyle, tinted ? tint : undefined), level)
        : tintedSpace(tint, tinted, level);
    const space = tintedSpace(tint, tinted, level);
    let text = '';
    let used = 0;
    let runStyle = '';
    let run = '';
    for (const cell of row) {
      const open = openOf(cell, index++);
      if (open !== runStyle) {
        text += closeRun(run, runStyle);
        run = '';
        runStyle = open;
      }
      run += cell.text;
      used += cell.width;
    }
    text += closeRun(run, runStyle);
    // Tinted rows fill the width, so a changed line reads as one band however short its text.
    if (tinted && used < ctx.textWidth) text += paint(' '.repeat(ctx.textWidth - used), tint, level);
    if (text === '' && !tinted) {
      // An empty line: no trailing spaces after the gutter or marker.
      const trimmed =
        line.kind === 'context' ? paint(numbers.trimEnd(), palette.lineNumber, level) : gutterText;
      out.push(line.kind === 'context' ? trimmed : trimmed + markerText);
    } else out.push(gutterText + markerText + space + text);
  });
  return out;
}

function tintedSpace(tint: Style, tinted: boolean, level: ColorLevel): string {
  return tinted ? paint(' ', tint, level) : ' ';
}

function closeRun(run: string, open: string): string {
  if (run === '') return '';
  return open === '' ? run : open + run + SGR_RESET;
}

function inSpans(spans: readonly Span[], offset: number): boolean {
  for (const span of spans) if (offset >= span.start && offset < span.end) return true;
  return false;
}

function findScope(spans: readonly ScopeSpan[], offset: number): ScopeSpan['scope'] | undefined {
  for (const span of spans) {
    if (offset < span.start) return undefined;
    if (offset < span.end) return span.scope;
  }
  return undefined;
}

/**
 * Whether the old text (`without: 'add'`: its context and removed lines) or the new text (`without:
 * 'remove'`) ends without a newline, as far as the hunks show: a changed last line is always in a hunk.
 */
function endsWithoutNewline(diff: Diff, without: 'add' | 'remove'): boolean {
  return diff.hunks.some((hunk) => hunk.lines.some((line) => line.kind !== without && line.eol === ''));
}

function eolLabel(eol: DiffLine['eol']): string {
  return eol === '\r\n' ? '[CRLF]' : eol === '\n' ? '[LF]' : eol === '\r' ? '[CR]' : '[no newline at end]';
}

/** Styled text (headers, notes) wrapped like diff text, so nothing is ever cut off. */
function wrapStyled(segments: readonly Segment[], width: number, level: ColorLevel): string[] {
  const cells: Array<Cell & { style: Style }> = [];
  let column = 0;
  for (const [text, style] of segments) {
    for (const cell of toCells(text, 4, column)) {
      cells.push({ ...cell, style: cell.control ? mergeStyles(style, CONTROL_MARK) : style });
      column += cell.width;
    }
  }
  return wrapCells(cells, width, true).map((row) => {
    let out = '';
    let run = '';
    let runStyle = '';
    for (const cell of row) {
      const open = sgrOpen(cell.style, level);
      if (open !== runStyle) {
        out += closeRun(run, runStyle);
        run = '';
        runStyle = open;
      }
      run += cell.text;
    }
    return out + closeRun(run, runStyle);
  });
}

const CONTROL_MARK: Style = { inverse: true };
