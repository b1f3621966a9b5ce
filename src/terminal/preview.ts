import { findingsLines } from '../core/finding-words.js';
import { type LineHighlighter, loadHighlighter } from '../core/highlight.js';
import { pathInRoot } from '../core/root-named.js';
import type { ApprovalQuestion } from '../gate/approval.js';
import { visibleText } from './cells.js';
import { paint } from './colors.js';
import { renderDiff, renderPlainUnified } from './diff-view.js';
import { type Display, type DisplayOptions, resolveDisplay } from './display.js';
import { paletteFor } from './palette.js';

/**
 * Showing a proposed change without asking: the preview printed when a session grant or a policy rule
 * approves an edit (the diff is shown for every change, asked or not), and the parts the prompt shares with
 * it: the call on one line and the diff for a request.
 */

/**
 * `⚙ edit_file(path=src/app.ts)`: which tool, on which file (and, with several roots, in which root); a
 * change set's first file (its question names them all).
 */
export function formatCallLine(request: Pick<ApprovalQuestion, 'tool' | 'files'>, display?: Display): string {
  const first = request.files[0]!;
  const text = `⚙ ${visibleText(request.tool)}(path=${visibleText(first.path)})${first.root === undefined ? '' : ` in root ${visibleText(first.root)}`}`;
  return display ? paint(text, paletteFor(display.theme).header, display.level) : text;
}

/** The syntax highlighter for a request's first file, when colours are rich enough to use one. */
export async function highlighterFor(
  request: Pick<ApprovalQuestion, 'files'>,
  display: Display,
): Promise<LineHighlighter | undefined> {
  const first = request.files[0]!;
  if (display.level < 2 || first.kind === 'read') return undefined;
  return loadHighlighter(first.path);
}

/** The diff view of a request at `width`; none for a read request, which has no diff. */
export function renderRequestDiff(
  request: ApprovalQuestion,
  display: Display,
  width: number,
  highlighter?: LineHighlighter,
): string[] {
  const options = { width, color: display.level, theme: display.theme, tabWidth: display.tabWidth };
  // A change set: every file's diff in turn (the highlighter is the first file's: only it uses it).
  return changedFiles(request).flatMap(({ file, kind }, index) =>
    renderDiff(
      { path: pathInRoot(file.path, file.root), kind, diff: file.diff },
      highlighter && index === 0 ? { ...options, highlighter } : options,
    ),
  );
}

/** A request's plain unified diff: every file's, for a change set. */
export function requestUnifiedText(request: ApprovalQuestion): string {
  return changedFiles(request)
    .map(({ file, kind }) => renderPlainUnified({ ...file, kind }))
    .join('');
}

/** The files a request changes, with their kind of change (none for a read question). */
function changedFiles(request: ApprovalQuestion) {
  return request.files.flatMap((file) => (file.kind === 'read' ? [] : [{ file, kind: file.kind }]));
}

/** What the person must know about each file's change, once each (a change set's files may share one). */
export function requestNotes(request: ApprovalQuestion): string[] {
  return [...new Set(request.files.flatMap((file) => (file.note ? [file.note] : [])))];
}

export interface PreviewOptions extends DisplayOptions {
  /** A line after the diff, e.g. "Approved by the session grant for src/app.ts". */
  note?: string;
  /**
   * 'view': the diff view; 'unified': plain unified diff text (for output that is not a terminal, where it
   * stays machine-readable). Default: 'view' on a terminal, 'unified' otherwise.
   */
  format?: 'view' | 'unified';
}

export async function showPreview(request: ApprovalQuestion, options: PreviewOptions): Promise<void> {
  const display = resolveDisplay(options);
  const format = options.format ?? (options.output.isTTY ? 'view' : 'unified');
  const palette = paletteFor(display.theme);
  const lines = [formatCallLine(request, display)];
  if (format === 'unified') {
    const text = requestUnifiedText(request);
    if (text !== '') lines.push(text.replace(/\n$/, ''));
  } else {
    lines.push(...renderRequestDiff(request, display, display.width, await highlighterFor(request, display)));
  }
  for (const note of requestNotes(request)) lines.push(paint(visibleText(note), palette.note, display.level));
  for (const line of findingsLines(request.findings))
    lines.push(paint(visibleText(line), palette.note, display.level));
  if (options.note) lines.push(paint(options.note, palette.note, display.level));
  options.output.write(`${lines.join('\n')}\n`);
}
