/**
 * A real pseudo-terminal for end-to-end tests of the interactive CLI: @lydell/node-pty runs the process with
 * a pty as its controlling terminal (stdin, stdout, stderr and /dev/tty), and everything it writes is fed
 * into a headless xterm.js of the same size, so tests read the screen as a person would see it: rows of
 * text, which buffer is showing (normal or the alternate screen of a full-screen view), and each cell's
 * colours. Tests wait for text to appear by polling the screen (never a fixed sleep), then type keys.
 */
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { TYPING_PAUSE_MS } from '../../src/terminal/typing-guard.js';
import { MAIN } from '../built-cli.js';

export type Rgb = readonly [number, number, number];

export interface CellColors {
  char: string;
  /** Undefined: the terminal's default colour. */
  fg: Rgb | undefined;
  bg: Rgb | undefined;
}

export interface PtyOptions {
  cwd: string;
  /** Undo history for the run (EDITGATE_STATE_DIR), so nothing leaks into ~/.local/state. */
  stateDir: string;
  /** Added to (or, when undefined, removed from) the environment. */
  env?: Record<string, string | undefined>;
  cols?: number;
  rows?: number;
}

export interface PtyRun {
  /** Types into the terminal (keys as bytes: "\r" Enter, "\x1b" Esc, "\x03" Ctrl-C). */
  write(keys: string): void;
  /**
   * Answers a question on screen as a person does: after a pause since the last key typed (a key sooner
   * than TYPING_PAUSE_MS after another is typing, not an answer: src/terminal/typing-guard.ts).
   */
  answer(keys: string): Promise<void>;
  /** Types `text` a character at a time, `gapMs` apart (a person typing a sentence). */
  type(text: string, gapMs: number): Promise<void>;
  /** Waits until `text` is on the visible screen; on timeout, fails showing what the screen holds. */
  waitForText(text: string | RegExp, timeout?: number): Promise<void>;
  /**
   * Resolves the moment the raw output contains `text`, before the terminal has even drawn it: for typing
   * as fast as a program can, with no polling delay.
   */
  whenOutput(text: string, timeout?: number): Promise<void>;
  /** Waits until `check` holds for the screen. */
  waitFor(check: () => boolean, what: string, timeout?: number): Promise<void>;
  /** The visible rows (trailing blanks trimmed). */
  screen(): string[];
  /** Every row of the active buffer, scrollback included, untrimmed when `trim` is false. */
  lines(trim?: boolean): string[];
  /** The active buffer's text, rows the terminal wrapped joined back into the line that was written. */
  text(): string;
  /** Which buffer shows: 'alternate' while a full-screen view is open. */
  bufferType(): 'normal' | 'alternate';
  /** Row and column of the first visible occurrence of `text`. */
  find(text: string): { row: number; col: number } | undefined;
  /** The character and colours of one visible cell. */
  cell(row: number, col: number): CellColors;
  /** Everything the process wrote, escape codes included. */
  raw(): string;
  /** The exit code, once the process has ended and its last output is on the screen. */
  exited(timeout?: number): Promise<number>;
  /** Resizes the terminal (it reflows, as xterm does) and the pty (the process gets SIGWINCH). */
  resize(cols: number, rows: number): void;
  kill(): void;
  /**
   * Ends the process and waits until it has exited (SIGTERM, then SIGKILL after `timeout`), so that what it
   * writes on its way out is done before the caller removes its folders.
   */
  stop(timeout?: number): Promise<void>;
}

/** Long enough for a loaded machine (two shared cores running other suites); waits end as soon as they can. */
const DEFAULT_TIMEOUT = 10_000;
const POLL_MS = 15;
/** The least time a person takes to read a question that appeared before answering it (answer()). */
const READING_MS = 200;

/** The built CLI in a pty: `node dist/cli/main.js ...args`. */
export function spawnCli(args: string[], options: PtyOptions): PtyRun {
  return spawnInPty(process.execPath, [MAIN, ...args], options);
}

/**
 * Any command in a pty (e.g. `/bin/sh -c '... | node main.js write f'`). The environment is this
 * process's without colour settings vitest or CI may add, as a truecolor xterm with a dark background.
 */
export function spawnInPty(file: string, args: string[], options: PtyOptions): PtyRun {
  const cols = options.cols ?? 80;
  let rows = options.rows ?? 24;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !IGNORED_ENV.has(name)) env[name] = value;
  }
  Object.assign(env, {
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    EDITGATE_STATE_DIR: options.stateDir,
  });
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }

  const term = new xterm.Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
  const child = pty.spawn(file, args, { name: 'xterm-256color', cols, rows, cwd: options.cwd, env });
  let raw = '';
  // xterm parses asynchronously; the callback of the last write means everything so far is on the screen.
  let parsed: Promise<void> = Promise.resolve();
  const outputWaiters = new Set<{ text: string; resolve: () => void }>();
  child.onData((data) => {
    raw += data;
    parsed = new Promise((resolve) => term.write(data, resolve));
    for (const waiter of outputWaiters) {
      if (raw.includes(waiter.text)) {
        outputWaiters.delete(waiter);
        waiter.resolve();
      }
    }
  });
  let exitCode: number | undefined;
  const exit = new Promise<number>((resolve) => {
    child.onExit(({ exitCode: code }) => {
      exitCode = code;
      resolve(code);
    });
  });

  const buffer = () => term.buffer.active;
  // Trimmed: without trailing blanks, written or not (a changed line's background is painted spaces).
  const row = (y: number, trim = true) => {
    // Only the visible columns: xterm keeps a row's cells past the width when a terminal narrows.
    const text = buffer().getLine(y)?.translateToString(trim, 0, term.cols) ?? '';
    return trim ? text.trimEnd() : text;
  };
  const screen = () => {
    const top = buffer().viewportY;
    return Array.from({ length: rows }, (_, i) => row(top + i));
  };
  const describe = () =>
    `\n--- screen (${buffer().type} buffer${exitCode === undefined ? '' : `, exited ${exitCode}`}) ---\n` +
    `${screen().join('\n')}\n---`;

  const waitFor = async (check: () => boolean, what: string, timeout = DEFAULT_TIMEOUT) => {
    const deadline = Date.now() + timeout;
    for (;;) {
      await parsed;
      if (check()) return;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeout} ms waiting for ${what}${describe()}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  const onScreen = (text: string | RegExp) => {
    const rowsNow = screen();
    return typeof text === 'string'
      ? rowsNow.some((line) => line.includes(text))
      : rowsNow.some((line) => text.test(line));
  };

  let lastKeyAt = Number.NEGATIVE_INFINITY;
  const write = (keys: string) => {
    lastKeyAt = Date.now();
    child.write(keys);
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  return {
    write,
    async answer(keys) {
      // A margin over the pause: the pty and the process add their own delay to each key's arrival. And
      // a person reads the question before answering: on a loaded machine, a key sent the moment the
      // question is drawn can reach the program before it has marked the question shown, and is typing.
      await sleep(Math.max(READING_MS, lastKeyAt + TYPING_PAUSE_MS + 150 - Date.now()));
      write(keys);
    },
    async type(text, gapMs) {
      for (const char of text) {
        write(char);
        await sleep(gapMs);
      }
    },
    whenOutput(text, timeout = DEFAULT_TIMEOUT) {
      if (raw.includes(text)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          outputWaiters.delete(waiter);
          reject(
            new Error(
              `timed out after ${timeout} ms waiting for output ${JSON.stringify(text)}${describe()}`,
            ),
          );
        }, timeout);
        const waiter = {
          text,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        outputWaiters.add(waiter);
      });
    },
    waitForText: (text, timeout) => waitFor(() => onScreen(text), JSON.stringify(String(text)), timeout),
    waitFor,
    screen,
    lines: (trim = true) => Array.from({ length: buffer().length }, (_, y) => row(y, trim)),
    text() {
      const logical: string[] = [];
      for (let y = 0; y < buffer().length; y++) {
        const text = row(y, false);
        if (buffer().getLine(y)?.isWrapped && logical.length > 0) logical[logical.length - 1] += text;
        else logical.push(text);
      }
      return logical.map((line) => line.trimEnd()).join('\n');
    },
    bufferType: () => buffer().type,
    find(text) {
      const found = screen()
        .map((line, index) => ({ row: index, col: line.indexOf(text) }))
        .find((at) => at.col >= 0);
      // indexOf counts UTF-16 units; cells are columns. Tests look for ASCII text, where they agree.
      return found;
    },
    cell(y, x) {
      const cell = buffer()
        .getLine(buffer().viewportY + y)
        ?.getCell(x);
      if (!cell) throw new Error(`no cell at row ${y}, column ${x}${describe()}`);
      const fg = cell.isFgRGB()
        ? hexToRgb(cell.getFgColor())
        : cell.isFgPalette()
          ? paletteRgb(cell.getFgColor())
          : undefined;
      const bg = cell.isBgRGB()
        ? hexToRgb(cell.getBgColor())
        : cell.isBgPalette()
          ? paletteRgb(cell.getBgColor())
          : undefined;
      return { char: cell.getChars(), fg, bg };
    },
    raw: () => raw,
    async exited(timeout = DEFAULT_TIMEOUT) {
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        exit,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`process still running after ${timeout} ms${describe()}`)),
            timeout,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      // Output written just before the exit may still be on its way through the pty and the parser.
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      await parsed;
      return code;
    },
    resize(newCols, newRows) {
      rows = newRows;
      term.resize(newCols, newRows);
      child.resize(newCols, newRows);
    },
    kill() {
      if (exitCode === undefined) child.kill();
      term.dispose();
    },
    async stop(timeout = 5_000) {
      // The whole process group the terminal started (its session leader's): an agent's launcher (an npm
      // bin script, the network namespace's wrapper) can exit while the agent it started still writes its
      // session files, and a folder removed then is not empty.
      const group = child.pid;
      const signalGroup = (signal: NodeJS.Signals) => {
        try {
          process.kill(-group, signal);
        } catch {
          // Gone already.
        }
      };
      const groupGone = () => {
        try {
          process.kill(-group, 0);
          return false;
        } catch {
          return true;
        }
      };
      const goneWithin = async (ms: number) => {
        const until = Date.now() + ms;
        while (Date.now() < until) {
          if (exitCode !== undefined && groupGone()) return true;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return false;
      };
      signalGroup('SIGTERM');
      if (exitCode === undefined) child.kill('SIGTERM');
      if (!(await goneWithin(timeout))) {
        signalGroup('SIGKILL');
        if (exitCode === undefined) child.kill('SIGKILL');
        await goneWithin(timeout);
      }
      term.dispose();
    },
  };
}

/** Settings that would decide colours or the theme for the CLI instead of the terminal it runs in. */
const IGNORED_ENV = new Set(['FORCE_COLOR', 'NO_COLOR', 'COLORFGBG', 'COLORTERM', 'TERM_PROGRAM', 'CI']);

function hexToRgb(value: number): Rgb {
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** The standard xterm 256-colour palette (16 system colours, the 6x6x6 cube, 24 greys). */
function paletteRgb(index: number): Rgb {
  const system = [
    0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000,
    0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
  ];
  if (index < 16) return hexToRgb(system[index]!);
  if (index < 232) {
    const level = (n: number) => (n === 0 ? 0 : 55 + n * 40);
    const n = index - 16;
    return [level(Math.floor(n / 36)), level(Math.floor(n / 6) % 6), level(n % 6)];
  }
  const grey = 8 + (index - 232) * 10;
  return [grey, grey, grey];
}

/** Whether `color` is clearly `channel` (0 red, 1 green, 2 blue): well above both other channels. */
export function dominates(color: Rgb | undefined, channel: 0 | 1 | 2): boolean {
  if (!color) return false;
  const value = color[channel];
  const others = color.filter((_, i) => i !== channel);
  return others.every((other) => value >= other * 1.2 && value - other >= 30);
}

export const reddish = (color: Rgb | undefined) => dominates(color, 0);
export const greenish = (color: Rgb | undefined) => dominates(color, 1);

/** How a sentence typed across a question's appearance went (typeAcross). */
export interface TypedAcross {
  /** Keys typed before the question was on screen. */
  before: number;
  /** How long typing went on after it appeared, in ms. */
  msAfter: number;
  /** The longest gap between two keys: under the typing pause, or the typist itself stalled. */
  longestGap: number;
}

/**
 * Types `text` a key at a time, 80-150 ms apart (a person typing a sentence), while `appeared` comes: the
 * typeahead tests' typist. Says how the typing fell around the question's appearance.
 */
export async function typeAcross(run: PtyRun, text: string, appeared: Promise<void>): Promise<TypedAcross> {
  let appearedAt: number | undefined;
  void appeared.then(() => {
    appearedAt = Date.now();
  });
  let before = 0;
  let longestGap = 0;
  let last: number | undefined;
  for (const [typed, char] of [...text].entries()) {
    if (last !== undefined) longestGap = Math.max(longestGap, Date.now() - last);
    last = Date.now();
    run.write(char);
    if (appearedAt === undefined) before = typed + 1;
    await new Promise((resolve) => setTimeout(resolve, 80 + Math.floor(Math.random() * 71)));
  }
  await appeared;
  return { before, msAfter: Date.now() - appearedAt!, longestGap };
}
