import { displayWidth } from '../../terminal/cells.js';
import { stripAnsi } from '../../terminal/colors.js';
import type { TerminalOutput } from '../../terminal/tty-modes.js';

/**
 * The chat's screen: an append-only transcript above a small live region (status line, the reply line
 * still arriving, the permission card, the input). Lines committed to the transcript are written once and
 * never touched again; only the live region, always the last rows on the screen, is erased (from its first
 * row down, `CSI J`) and drawn again. No full-screen redraw, no `CSI 2 J`, never `CSI 3 J`: the scrollback
 * is the terminal's, whatever happens.
 *
 * Frames: every change marks the screen dirty; a frame is drawn at most once per `frameMs` (16 ms), however
 * fast text arrives, and each frame is one write wrapped in synchronized output (DEC mode 2026: terminals
 * that know it show the frame whole, the others ignore it).
 *
 * Resize: terminals re-wrap (reflow) what is on screen when their width changes, so the live region drawn
 * at the old width may now take more rows. The rows are counted again at the new width before erasing, so
 * the erase starts exactly at the live region's first row and never reaches a transcript line.
 */
export interface LiveView {
  /** Rows of the live region; each must fit the width (longer ones are cut). */
  lines: string[];
  /** Where the terminal cursor goes (the input's caret); hidden when absent. */
  cursor?: { line: number; column: number };
}

export interface LiveScreenOptions {
  output: TerminalOutput;
  /** Minimum time between frames. Default 16 ms. */
  frameMs?: number;
  /** Synchronized output (DEC 2026). Default true. */
  synchronized?: boolean;
  now?: () => number;
  schedule?: (run: () => void, ms: number) => { cancel(): void };
}

const SYNC_BEGIN = '\x1b[?2026h';
const SYNC_END = '\x1b[?2026l';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

interface Drawn {
  /** Display width of each live row as drawn. */
  widths: number[];
  cursorLine: number;
  cursorColumn: number;
}

export class LiveScreen {
  private pending: string[] = [];
  private render: (width: number, height: number) => LiveView = () => ({ lines: [] });
  private drawn: Drawn = { widths: [], cursorLine: 0, cursorColumn: 0 };
  private lastFrame = Number.NEGATIVE_INFINITY;
  private timer: { cancel(): void } | undefined;
  /** Nothing is drawn before `open` (the terminal may not be in raw mode yet). */
  private opened = false;
  private suspended = false;
  private closed = false;
  /** Frames drawn so far (for the benchmark). */
  frames = 0;
  private readonly output: TerminalOutput;
  private readonly frameMs: number;
  private readonly synchronized: boolean;
  private readonly now: () => number;
  private readonly schedule: (run: () => void, ms: number) => { cancel(): void };

  constructor(options: LiveScreenOptions) {
    this.output = options.output;
    this.frameMs = options.frameMs ?? 16;
    this.synchronized = options.synchronized ?? true;
    this.now = options.now ?? (() => performance.now());
    this.schedule =
      options.schedule ??
      ((run, ms) => {
        const timer = setTimeout(run, ms);
        return { cancel: () => clearTimeout(timer) };
      });
  }

  get width(): number {
    return Math.max(20, this.output.columns ?? 80);
  }

  get height(): number {
    return Math.max(8, this.output.rows ?? 24);
  }

  /** Lines for the transcript (already fitted to `width`): written above the live region, for good. */
  commit(lines: readonly string[]): void {
    if (lines.length === 0) return;
    this.pending.push(...lines);
    this.dirty();
  }

  /** How the live region looks at a width and height; called for every frame. */
  setLive(render: (width: number, height: number) => LiveView): void {
    this.render = render;
    this.dirty();
  }

  /** Something the live region shows has changed. */
  /** Starts drawing: pending lines and the live region appear. */
  open(): void {
    this.opened = true;
    this.flush();
  }

  dirty(): void {
    if (!this.opened || this.closed || this.suspended || this.timer) return;
    const wait = this.lastFrame + this.frameMs - this.now();
    if (wait <= 0) {
      // Due now: drawn at once, so frames keep coming while a long burst of text holds the event loop
      // (timers would only fire after it).
      this.draw();
      return;
    }
    this.timer = this.schedule(() => {
      this.timer = undefined;
      this.draw();
    }, wait);
  }

  /** Draw now if anything is waiting (before handing the terminal to someone else). */
  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.draw();
  }

  /**
   * Hands the terminal over (a full-screen pager): pending lines are written, the live region erased, and
   * no frame is drawn until `resume`.
   */
  suspend(): void {
    this.flush();
    this.output.write(this.eraseLive() + SHOW_CURSOR);
    this.drawn = { widths: [], cursorLine: 0, cursorColumn: 0 };
    this.suspended = true;
  }

  resume(): void {
    this.suspended = false;
    this.dirty();
  }

  /** Final frame: pending lines written, the live region erased, the cursor shown on a fresh row. */
  close(keep: string[] = []): void {
    if (this.closed) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.pending.push(...keep);
    const out = this.eraseLive() + this.pending.map((line) => `${line}\n`).join('') + SHOW_CURSOR;
    this.pending = [];
    this.closed = true;
    this.output.write(out);
  }

  private draw(): void {
    if (!this.opened || this.closed || this.suspended) return;
    const width = this.width;
    const height = this.height;
    let out = this.synchronized ? SYNC_BEGIN : '';
    out += HIDE_CURSOR + this.eraseLive();
    for (const line of this.pending) out += `${line}\n`;
    this.pending = [];
    const view = this.render(width, height);
    // Never taller than the screen less a row: rows pushed into the scrollback could not be erased.
    const lines = view.lines.slice(-Math.max(1, height - 1)).map((line) => cut(line, width - 1));
    const widths = lines.map((line) => displayWidth(stripAnsi(line)));
    out += lines.join('\n');
    let cursorLine = Math.max(0, lines.length - 1);
    let cursorColumn = widths.at(-1) ?? 0;
    if (view.cursor && lines.length > 0) {
      const dropped = view.lines.length - lines.length;
      cursorLine = Math.min(lines.length - 1, Math.max(0, view.cursor.line - dropped));
      cursorColumn = Math.min(width - 1, view.cursor.column);
      const up = lines.length - 1 - cursorLine;
      out += `\r${up > 0 ? `\x1b[${up}A` : ''}${cursorColumn > 0 ? `\x1b[${cursorColumn}C` : ''}${SHOW_CURSOR}`;
    }
    this.drawn = { widths, cursorLine, cursorColumn };
    if (this.synchronized) out += SYNC_END;
    this.lastFrame = this.now();
    this.frames++;
    this.output.write(out);
  }

  /** Moves to the first row of the live region as it now sits on the screen, and erases to the end. */
  private eraseLive(): string {
    const width = this.width;
    const { widths, cursorLine, cursorColumn } = this.drawn;
    if (widths.length === 0) return '\r\x1b[J';
    let up = Math.floor(cursorColumn / width);
    for (let i = 0; i < cursorLine; i++) up += Math.max(1, Math.ceil(widths[i]! / width));
    return `\r${up > 0 ? `\x1b[${up}A` : ''}\x1b[J`;
  }
}

/** A styled line cut to `width` columns (escape sequences kept, never counted). */
export function cut(line: string, width: number): string {
  if (displayWidth(stripAnsi(line)) <= width) return line;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  const pattern = /\x1b\[[0-?]*[ -/]*[@-~]/y;
  let i = 0;
  while (i < line.length) {
    pattern.lastIndex = i;
    const sequence = pattern.exec(line);
    if (sequence) {
      out += sequence[0];
      i += sequence[0].length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i)!);
    const w = displayWidth(char);
    if (used + w > width) break;
    out += char;
    used += w;
    i += char.length;
  }
  return `${out}\x1b[0m`;
}
