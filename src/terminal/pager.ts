import { displayWidth } from './cells.js';
import { type ColorLevel, paint, stripAnsi } from './colors.js';
import { createKeyReader, type Key, type KeyReader } from './keys.js';
import { paletteFor, type Theme } from './palette.js';
import { enterAlternateScreen, enterRawMode, type TerminalInput, type TerminalOutput } from './tty-modes.js';
import { settled, TypingGuard } from './typing-guard.js';

/**
 * A full-screen, scrollable view over rendered lines (the whole diff when it is taller than the screen),
 * in the manner of less: arrows or j/k, PgUp/PgDn/space, g/G, `/` search with n/N, `]`/`[` to the next or
 * previous hunk of a diff (as on the review page), q or Esc to go back. Every key costs the same on a
 * change of thousands of hunks: the lines' plain text and hunk starts are worked out once per rendering.
 * The key handling and the frame are pure functions of a state; `runPager` only wires them to a terminal.
 */

export interface PagerState {
  /** Index of the first line shown. */
  top: number;
  /** Typing a search after `/`. */
  typing: boolean;
  draft: string;
  query: string;
  /** Line of the current match, if any. */
  matchLine: number | undefined;
  /** A one-off note for the status line ("Not found: foo"). */
  message: string | undefined;
}

export interface PagerView {
  lines: readonly string[];
  /** Rows for lines (the screen minus the status line). */
  height: number;
}

export function createPagerState(): PagerState {
  return { top: 0, typing: false, draft: '', query: '', matchLine: undefined, message: undefined };
}

const plainCache = new WeakMap<readonly string[], string[]>();

function plainLines(lines: readonly string[]): string[] {
  let plain = plainCache.get(lines);
  if (!plain) {
    plain = lines.map(stripAnsi);
    plainCache.set(lines, plain);
  }
  return plain;
}

const hunkCache = new WeakMap<readonly string[], number[]>();

/** Indexes of the lines that begin a hunk (`@@ -1,3 +1,4 @@`), ascending; once per rendering. */
export function hunkStarts(lines: readonly string[]): number[] {
  let starts = hunkCache.get(lines);
  if (!starts) {
    starts = [];
    const plain = plainLines(lines);
    for (let i = 0; i < plain.length; i++) if (plain[i]!.startsWith('@@ -')) starts.push(i);
    hunkCache.set(lines, starts);
  }
  return starts;
}

/** How many of the ascending `starts` are at or before `line` (binary search). */
function startsUpTo(starts: readonly number[], line: number): number {
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (starts[middle]! <= line) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Lowercase queries match any case; a query with a capital matches exactly (as in less -i, vim smartcase). */
function matcher(query: string): (text: string) => number {
  if (query !== query.toLowerCase()) return (text) => text.indexOf(query);
  return (text) => text.toLowerCase().indexOf(query);
}

/** The lines' plain text in lower case, as far as it is done (whole once lowerLines or warming ends). */
const lowerCache = new WeakMap<readonly string[], string[]>();

/** The lines' plain text in lower case, once per rendering (every lowercase search reads it). */
function lowerLines(lines: readonly string[]): string[] {
  const plain = plainLines(lines);
  let lower = lowerCache.get(lines);
  if (!lower) lowerCache.set(lines, (lower = []));
  for (let i = lower.length; i < plain.length; i++) lower.push(plain[i]!.toLowerCase());
  return lower;
}

/** Lines lower-cased per idle turn while warming: a key that comes meanwhile waits for one slice at most. */
const WARM_SLICE = 2000;

/**
 * Lower-cases the lines a slice at a time while the pager waits for keys, so the first search of a big
 * diff (17k lines for 1,000 hunks) finds the text ready instead of reading all of it in one keypress.
 * Returns what stops it (the pager closed, or re-wrapped its lines).
 */
function warmSearch(lines: readonly string[]): () => void {
  let stopped = false;
  const step = () => {
    if (stopped) return;
    const plain = plainLines(lines);
    let lower = lowerCache.get(lines);
    if (!lower) lowerCache.set(lines, (lower = []));
    const end = Math.min(plain.length, lower.length + WARM_SLICE);
    for (let i = lower.length; i < end; i++) lower.push(plain[i]!.toLowerCase());
    if (lower.length < plain.length) setImmediate(step);
  };
  setImmediate(step);
  return () => {
    stopped = true;
  };
}

const matchCache = new WeakMap<readonly string[], { query: string; matches: number[] }>();

/** Indexes of the lines containing `query`, ignoring escape codes (the last search's kept per rendering). */
export function findMatches(lines: readonly string[], query: string): number[] {
  if (query === '') return [];
  const cached = matchCache.get(lines);
  if (cached?.query === query) return cached.matches;
  const exact = query !== query.toLowerCase();
  const result: number[] = [];
  (exact ? plainLines(lines) : lowerLines(lines)).forEach((line, i) => {
    if (line.includes(query)) result.push(i);
  });
  matchCache.set(lines, { query, matches: result });
  return result;
}

export function pagerKey(state: PagerState, key: Key, view: PagerView): { state: PagerState; quit: boolean } {
  const height = Math.max(1, view.height);
  const maxTop = Math.max(0, view.lines.length - height);
  const clamp = (top: number) => Math.min(maxTop, Math.max(0, top));
  const next: PagerState = { ...state, message: undefined };
  if (key.name === 'eof') return { state: next, quit: true };

  if (state.typing) {
    if (key.name === 'char') next.draft += key.char;
    else if (key.name === 'backspace') {
      if (state.draft === '') next.typing = false;
      else next.draft = Array.from(state.draft).slice(0, -1).join('');
    } else if (key.name === 'escape' || key.name === 'ctrl-c') {
      next.typing = false;
      next.draft = '';
    } else if (key.name === 'enter') {
      next.typing = false;
      // An empty search repeats the last one, as in less.
      next.query = state.draft === '' ? state.query : state.draft;
      next.draft = '';
      return { state: jumpToMatch(next, view, state.top, 1, true), quit: false };
    }
    return { state: next, quit: false };
  }

  const char = key.name === 'char' ? key.char : undefined;
  if (char === 'q' || char === 'Q' || key.name === 'escape' || key.name === 'ctrl-c') {
    return { state: next, quit: true };
  }
  if (key.name === 'up' || char === 'k' || char === 'y') next.top = clamp(state.top - 1);
  else if (key.name === 'down' || key.name === 'enter' || char === 'j' || char === 'e')
    next.top = clamp(state.top + 1);
  else if (key.name === 'pageup' || char === 'b') next.top = clamp(state.top - height);
  else if (key.name === 'pagedown' || char === ' ' || char === 'f') next.top = clamp(state.top + height);
  else if (char === 'u') next.top = clamp(state.top - Math.ceil(height / 2));
  else if (char === 'd') next.top = clamp(state.top + Math.ceil(height / 2));
  else if (char === ']' || char === '[') {
    const starts = hunkStarts(view.lines);
    const before = startsUpTo(starts, state.top);
    // ]: the first hunk below the top line; [: the last one above it.
    const target =
      char === ']' ? starts[before] : starts[before - (starts[before - 1] === state.top ? 2 : 1)];
    if (target === undefined)
      next.message = starts.length === 0 ? 'No hunks here' : char === ']' ? 'Last hunk' : 'First hunk';
    else next.top = clamp(target);
  } else if (key.name === 'home' || char === 'g' || char === '<') next.top = 0;
  else if (key.name === 'end' || char === 'G' || char === '>') next.top = maxTop;
  else if (char === '/') {
    next.typing = true;
    next.draft = '';
  } else if (char === 'n' || char === 'N') {
    if (state.query === '') next.message = 'No search yet: press / to search';
    else {
      const from = state.matchLine ?? state.top;
      return {
        state: jumpToMatch(next, view, from, char === 'n' ? 1 : -1, state.matchLine === undefined),
        quit: false,
      };
    }
  } else next.top = clamp(state.top);
  return { state: next, quit: false };
}

/**
 * Moves to the next match of `state.query` after `from` (or at it, when `inclusive`), in `direction`,
 * wrapping around the ends; the match line goes to the top of the screen, as far as the end allows.
 */
function jumpToMatch(
  state: PagerState,
  view: PagerView,
  from: number,
  direction: 1 | -1,
  inclusive: boolean,
) {
  const matches = findMatches(view.lines, state.query);
  if (matches.length === 0) {
    return { ...state, matchLine: undefined, message: `Not found: ${state.query}` };
  }
  let target: number | undefined;
  if (direction === 1) target = matches.find((line) => (inclusive ? line >= from : line > from));
  else target = matches.findLast((line) => (inclusive ? line <= from : line < from));
  let message: string | undefined;
  if (target === undefined) {
    target = direction === 1 ? matches[0]! : matches.at(-1)!;
    message = direction === 1 ? 'Search wrapped to the top' : 'Search wrapped to the bottom';
  }
  const maxTop = Math.max(0, view.lines.length - Math.max(1, view.height));
  return { ...state, matchLine: target, top: Math.min(maxTop, target), message };
}

export interface PagerFrameOptions {
  width: number;
  /** Rows of the whole screen: lines plus the status line. */
  height: number;
  color?: ColorLevel;
  theme?: Theme;
}

/** The screen: `height - 1` rows of lines (matches of the search in reverse video), then the status line. */
export function renderPagerFrame(
  lines: readonly string[],
  state: PagerState,
  options: PagerFrameOptions,
): string[] {
  const contentHeight = Math.max(1, options.height - 1);
  const rows: string[] = [];
  for (let i = 0; i < contentHeight; i++) {
    const line = lines[state.top + i];
    if (line === undefined) rows.push('');
    else rows.push(state.query ? markMatches(line, state.query) : line);
  }
  rows.push(statusLine(lines, state, contentHeight, options));
  return rows;
}

function statusLine(
  lines: readonly string[],
  state: PagerState,
  contentHeight: number,
  options: PagerFrameOptions,
): string {
  const level = options.color ?? 0;
  let left: string;
  if (state.typing) left = `/${state.draft}`;
  else {
    const first = lines.length === 0 ? 0 : state.top + 1;
    const last = Math.min(lines.length, state.top + contentHeight);
    const percent = lines.length === 0 ? 100 : Math.round((last / lines.length) * 100);
    left = `lines ${first}-${last} of ${lines.length} (${percent}%)`;
    const starts = hunkStarts(lines);
    if (starts.length > 1) left += `  hunk ${Math.max(1, startsUpTo(starts, state.top))}/${starts.length}`;
    if (state.query && state.matchLine !== undefined) {
      const matches = findMatches(lines, state.query);
      left += `  match ${matches.indexOf(state.matchLine) + 1}/${matches.length}`;
    }
    if (state.message) left += `  ${state.message}`;
  }
  // The longest hint that fits next to the position.
  const hints = state.typing
    ? ['Enter search · Esc cancel', 'Esc cancel']
    : [
        '↑↓ j k · PgUp PgDn space · g G · ] [ hunk · / search n N · q back',
        '↑↓ j k · PgUp PgDn space · g G · / search n N · q back',
        '↑↓ · g G · / search · q back',
        'q back',
      ];
  const width = Math.max(1, options.width);
  const hint = hints.find((h) => displayWidth(left) + 3 + displayWidth(h) <= width);
  const text = hint
    ? left + ' '.repeat(width - displayWidth(left) - displayWidth(hint)) + hint
    : fitWidth(left, width);
  return level === 0 ? text : paint(text.padEnd(width), paletteFor(options.theme ?? 'dark').status, level);
}

function fitWidth(text: string, width: number): string {
  let out = '';
  for (const char of text) {
    if (displayWidth(out + char) > width) break;
    out += char;
  }
  return out;
}

const ESCAPE_AT = /^(\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_])/;

/** Reverse video over each match of `query`, keeping the line's own colours around it. */
function markMatches(line: string, query: string): string {
  const plain = stripAnsi(line);
  const find = matcher(query);
  const ranges: Array<[number, number]> = [];
  let from = 0;
  for (;;) {
    const at = find(plain.slice(from));
    if (at < 0) break;
    ranges.push([from + at, from + at + query.length]);
    from += at + Math.max(1, query.length);
  }
  if (ranges.length === 0) return line;
  let out = '';
  let visible = 0;
  let r = 0;
  let inside = false;
  for (let i = 0; i < line.length; ) {
    const sequence = line[i] === '\x1b' ? ESCAPE_AT.exec(line.slice(i))?.[0] : undefined;
    if (sequence) {
      out += sequence;
      // A reset inside the match would end the reverse video early: switch it back on.
      if (inside) out += '\x1b[7m';
      i += sequence.length;
      continue;
    }
    const range = ranges[r];
    if (!inside && range && visible === range[0]) {
      out += '\x1b[7m';
      inside = true;
    }
    out += line[i];
    i++;
    visible++;
    if (inside && range && visible === range[1]) {
      out += '\x1b[27m';
      inside = false;
      r++;
    }
  }
  return inside ? `${out}\x1b[27m` : out;
}

export interface PagerOptions {
  output: TerminalOutput;
  /** Where keys come from: a stream (put in raw mode for the pager's lifetime) or a reader already in use. */
  input?: TerminalInput;
  keys?: KeyReader;
  /**
   * The typing guard of the question that opened the pager (it says which run of keys is the pager's).
   * Without one, a pager reading a terminal of its own makes its own: keys typed before it was on screen,
   * and the rest of their run, do not move or close it.
   */
  guard?: TypingGuard;
  color?: ColorLevel;
  theme?: Theme;
  /** Override the output's size (for streams that are not terminals). */
  width?: number;
  height?: number;
}

/** Lines for a width; called again when the terminal is resized, so wrapping follows the new width. */
export type PagerSource = readonly string[] | ((width: number) => readonly string[]);

/** Shows `source` full screen until q, Esc or Ctrl-C; the terminal is restored however it ends. */
export async function runPager(source: PagerSource, options: PagerOptions): Promise<void> {
  const { output } = options;
  const ownKeys = options.keys === undefined;
  if (ownKeys && !options.input) throw new TypeError('runPager needs an input stream or a key reader');
  const restoreRaw = ownKeys ? enterRawMode(options.input!) : () => {};
  const keys = options.keys ?? createKeyReader(options.input!);
  // Only a terminal has a person typing; keys from a pipe are a script's, given in order.
  const guard = options.guard ?? (ownKeys && options.input!.isTTY ? new TypingGuard() : undefined);
  const restoreScreen = enterAlternateScreen(output);
  let width = 80;
  let height = 24;
  let lines: readonly string[] = [];
  let state = createPagerState();
  let stopWarming = () => {};
  const layout = () => {
    width = Math.max(1, options.width ?? output.columns ?? 80);
    height = Math.max(2, options.height ?? output.rows ?? 24);
    if (typeof source === 'function') {
      lines = source(width);
      // Lines re-wrapped: the old match line may point elsewhere now.
      state = { ...state, matchLine: undefined };
    } else lines = source;
    state = pagerKey(state, { name: 'unknown' }, { lines, height: height - 1 }).state;
    stopWarming();
    stopWarming = warmSearch(lines);
  };
  const draw = () => {
    const frame = renderPagerFrame(lines, state, {
      width,
      height,
      color: options.color ?? 0,
      theme: options.theme,
    });
    // Each row ends with its colours reset, so the line clear paints no background; without colour there is
    // nothing to reset (and NO_COLOR means no colour codes at all).
    const reset = (options.color ?? 0) > 0 ? '\x1b[0m' : '';
    output.write(frame.map((row, i) => `\x1b[${i + 1};1H${row}${reset}\x1b[K`).join(''));
  };
  const onResize = () => {
    layout();
    draw();
  };
  output.on('resize', onResize);
  try {
    if (guard && !options.guard) await settled();
    layout();
    draw();
    if (guard && !options.guard) guard.shown();
    for (;;) {
      const { key, at } = await keys.nextTimed();
      if (guard?.key(at) === 'typing' && key.name !== 'eof') continue;
      const result = pagerKey(state, key, { lines, height: height - 1 });
      state = result.state;
      if (result.quit) break;
      draw();
    }
  } finally {
    stopWarming();
    output.off('resize', onResize);
    restoreScreen();
    restoreRaw();
    if (ownKeys) keys.close();
  }
}
