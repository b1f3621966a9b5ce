/**
 * A one-line progress bar for streamed work on huge files, drawn on stderr (or any terminal output):
 *
 *   writing src/big.sql  ████████░░░░░░░░  512 MB / 1.0 GB  2.1s
 *
 * It stays silent for work that ends within a second and on an output that is not a terminal (a pipe or a
 * log file gets no carriage returns), redraws its line in place (`\r`, erase line), always fits the
 * terminal's width, and `done()` erases it, leaving the cursor where the line began.
 */

import { formatBytes } from '../core/format-bytes.js';
import { type ProgressCallback, ProgressPasses, phaseVerb } from '../core/progress.js';
import { displayWidth, toCells, visibleText } from './cells.js';
import { type ColorLevel, paint } from './colors.js';
import { resolveDisplay } from './display.js';
import { paletteFor, type Theme, type ThemeOption } from './palette.js';
import type { TerminalOutput } from './tty-modes.js';

export interface ProgressBarOptions {
  /** A fixed colour level; otherwise detected from the environment and the output. */
  color?: ColorLevel;
  /** `--no-color`. */
  noColor?: boolean;
  theme?: ThemeOption;
  env?: Record<string, string | undefined>;
  /** Work shorter than this shows nothing. Default 1000 ms. */
  delayMs?: number;
}

export interface ProgressBar {
  onProgress: ProgressCallback;
  /** Erases the bar (if it was drawn). The next event starts a new bar, for the next operation. */
  done(): void;
}

/** Erase the whole line and go back to its start. */
export const CLEAR_LINE = '\r\x1b[2K';

const FILLED = '█';
const EMPTY = '░';
const MIN_BAR = 10;
const MAX_BAR = 30;

export function createProgressBar(output: TerminalOutput, options: ProgressBarOptions = {}): ProgressBar {
  const delayMs = options.delayMs ?? 1000;
  let passes = new ProgressPasses();
  let shown = '';

  return {
    onProgress(event) {
      const overall = passes.update(event);
      if (output.isTTY !== true || event.elapsedMs < delayMs) return;
      const display = resolveDisplay({
        output,
        color: options.color,
        noColor: options.noColor,
        theme: options.theme,
        env: options.env,
      });
      // The last column stays free: writing into it makes some terminals wrap.
      const columns = Math.max(1, (output.columns ?? 80) - 1);
      const line = renderProgressLine(
        {
          action: phaseVerb(overall.phase),
          path: visibleText(overall.path),
          done: overall.passDone,
          total: overall.passTotal,
          elapsedMs: event.elapsedMs,
        },
        columns,
        display.level,
        display.theme,
      );
      if (line === shown) return;
      shown = line;
      output.write(CLEAR_LINE + line);
    },
    done() {
      if (shown !== '') output.write(CLEAR_LINE);
      shown = '';
      passes = new ProgressPasses();
    },
  };
}

export interface ProgressLine {
  /** "writing". */
  action: string;
  /** Workspace-relative, without control characters. */
  path: string;
  done: number;
  total: number;
  elapsedMs: number;
}

/** The fewest columns of a path worth showing (its file name, usually). */
const MIN_PATH = 8;

/**
 * The bar's line in at most `columns` columns. What gives way as the terminal narrows: first the bar
 * (down to 10 cells), then the start of the path, then the bar altogether, then the action; at the very
 * last only the figures are left.
 */
export function renderProgressLine(
  line: ProgressLine,
  columns: number,
  level: ColorLevel = 0,
  theme: Theme = 'dark',
): string {
  const palette = paletteFor(theme);
  const fraction = line.total > 0 ? Math.min(1, Math.max(0, line.done / line.total)) : 0;
  const tail = `  ${formatBytes(line.done, 'compact')} / ${formatBytes(line.total, 'compact')}  ${formatSeconds(line.elapsedMs)}`;
  const bar = (width: number) => {
    const filled = Math.round(fraction * width);
    return (
      '  ' +
      paint(FILLED.repeat(filled), { fg: palette.hunk.fg }, level) +
      paint(EMPTY.repeat(width - filled), palette.lineNumber, level)
    );
  };
  const paintedTail = paint(tail, palette.lineNumber, level);
  const label = (width: number) => `${line.action} ${cutStart(line.path, width - line.action.length - 1)}`;

  const room = columns - displayWidth(tail);
  const labelWidth = line.action.length + 1 + displayWidth(line.path);
  const withBar = room - 2 - MIN_BAR;
  if (withBar >= labelWidth)
    return label(labelWidth) + bar(Math.min(MAX_BAR, room - labelWidth - 2)) + paintedTail;
  if (withBar >= line.action.length + 1 + MIN_PATH) return label(withBar) + bar(MIN_BAR) + paintedTail;
  if (room >= line.action.length + 1 + MIN_PATH) return label(room) + paintedTail;
  if (room >= MIN_PATH) return cutStart(line.path, room) + paintedTail;
  // Too narrow for anything but the figures, or the percentage.
  const figures = tail.trimStart();
  if (figures.length <= columns) return paint(figures, palette.lineNumber, level);
  const percent = `${Math.floor(fraction * 100)}%`;
  return percent.length <= columns ? percent : '';
}

/** `text` in at most `width` columns, losing its start (a path's end names the file): "…/src/big.sql". */
function cutStart(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  const cells = toCells(text);
  let used = 1; // the ellipsis
  let from = cells.length;
  while (from > 0 && used + cells[from - 1]!.width <= width) used += cells[--from]!.width;
  return `…${cells
    .slice(from)
    .map((cell) => cell.text)
    .join('')}`;
}

/** "0.4s", "2.1s", "59.9s", "1m05s", "12m00s". */
export function formatSeconds(ms: number): string {
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}
