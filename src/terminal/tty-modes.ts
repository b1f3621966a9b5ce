/**
 * Terminal modes that must be undone: raw input (keys one by one, no echo) and the alternate screen (a
 * full-screen view that leaves the scrollback as it was). Each `enter…` returns an idempotent restore
 * function; callers run it in `finally`, and the alternate screen is also left if the process exits while
 * in it. (Node itself resets raw mode on exit.)
 */

/** The parts of a tty.ReadStream used here; any readable stream works (then raw mode is a no-op). */
export interface TerminalInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** The parts of a tty.WriteStream used here; any writable stream works (then the size is a default). */
export interface TerminalOutput extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

export function enterRawMode(input: TerminalInput): () => void {
  if (!input.isTTY || typeof input.setRawMode !== 'function') return () => {};
  const wasRaw = input.isRaw === true;
  input.setRawMode(true);
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    input.setRawMode?.(wasRaw);
  };
}

export const ENTER_ALTERNATE_SCREEN = '\x1b[?1049h\x1b[?25l';
export const LEAVE_ALTERNATE_SCREEN = '\x1b[?25h\x1b[?1049l';

export function enterAlternateScreen(output: TerminalOutput): () => void {
  output.write(ENTER_ALTERNATE_SCREEN);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.off('exit', restore);
    output.write(LEAVE_ALTERNATE_SCREEN);
  };
  process.on('exit', restore);
  return restore;
}
