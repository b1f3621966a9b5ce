import { findingsLines } from '../core/finding-words.js';
import { type LineHighlighter, loadHighlighter } from '../core/highlight.js';
import { pathInRoot } from '../core/root-named.js';
import type { ApprovalRequest } from '../gate/approval.js';
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

/** `⚙ edit_file(path=src/app.ts)`: which tool, on which file (and, with several roots, in which root). */
export function formatCallLine(
  request: Pick<ApprovalRequest, 'tool' | 'path' | 'root'>,
  display?: Display,
): string {
  const text = `⚙ ${visibleText(request.tool)}(path=${visibleText(request.path)})${request.root === undefined ? '' : ` in root ${visibleText(request.root)}`}`;
  return display ? paint(text, paletteFor(display.theme).header, display.level) : text;
}

/** The syntax highlighter for a request's file, when colours are rich enough to use one. */
export async function highlighterFor(
  request: Pick<ApprovalRequest, 'path' | 'kind'>,
  display: Display,
): Promise<LineHighlighter | undefined> {
  if (display.level < 2 || request.kind === 'read') return undefined;
  return loadHighlighter(request.path);
}

/** The diff view of a request at `width`; none for a read request, which has no diff. */
export function renderRequestDiff(
  request: ApprovalRequest,
  display: Display,
  width: number,
  highlighter?: LineHighlighter,
): string[] {
  if (request.kind === 'read') return [];
  const options = { width, color: display.level, theme: display.theme, tabWidth: display.tabWidth };
  // A change set: every file's diff in turn (the highlighter is the first file's: only it uses it).
  const files = request.files ?? [
    { path: request.path, root: request.root, kind: request.kind, diff: request.diff },
  ];
  return files.flatMap((file, index) =>
    renderDiff(
      { path: pathInRoot(file.path, file.root), kind: file.kind, diff: file.diff },
      highlighter && index === 0 ? { ...options, highlighter } : options,
    ),
  );
}

/** A request's plain unified diff: every file's, for a change set. */
export function requestUnifiedText(request: ApprovalRequest): string {
  const { kind } = request;
  if (kind === 'read') return '';
  if (request.files) return request.files.map((file) => renderPlainUnified(file)).join('');
  return renderPlainUnified({ ...request, kind });
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

export async function showPreview(request: ApprovalRequest, options: PreviewOptions): Promise<void> {
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
  if (request.note) lines.push(paint(visibleText(request.note), palette.note, display.level));
  for (const line of findingsLines(request.findings))
    lines.push(paint(visibleText(line), palette.note, display.level));
  if (options.note) lines.push(paint(options.note, palette.note, display.level));
  options.output.write(`${lines.join('\n')}\n`);
}
