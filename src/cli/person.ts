import { openSync } from 'node:fs';
import { ReadStream, WriteStream } from 'node:tty';
import type { TerminalInput, TerminalOutput } from '../terminal/tty-modes.js';

/**
 * Where the person running editgate can be shown a diff and asked a question. Standard output may be a pipe
 * (`--json`, `> results`) and standard input may be busy carrying content (`editgate write FILE < x`,
 * `editgate apply -`), so the question goes to standard error when it is a terminal, and keys come from
 * standard input when it is a free terminal; otherwise both use the controlling terminal, /dev/tty. Without
 * any of those no one can be asked, and editgate refuses instead of blocking or guessing.
 */
export interface PersonAtTerminal {
  input: TerminalInput;
  output: TerminalOutput;
  /** Lets the process exit: closes what was opened here (never standard streams). */
  close(): void;
}

export function findPersonAtTerminal(options: { stdinBusy: boolean }): PersonAtTerminal | undefined {
  const opened: Array<{ destroy(): void }> = [];
  const input: TerminalInput | undefined =
    !options.stdinBusy && process.stdin.isTTY ? process.stdin : openTty((fd) => new ReadStream(fd), opened);
  const output: TerminalOutput | undefined = process.stderr.isTTY
    ? process.stderr
    : process.stdout.isTTY
      ? process.stdout
      : openTty((fd) => new WriteStream(fd), opened, 'w');
  const close = () => {
    for (const stream of opened) stream.destroy();
    opened.length = 0;
  };
  if (!input || !output) {
    close();
    return undefined;
  }
  return { input, output, close };
}

function openTty<T extends { destroy(): void }>(
  make: (fd: number) => T,
  opened: Array<{ destroy(): void }>,
  flags: 'r' | 'w' = 'r',
): T | undefined {
  try {
    const stream = make(openSync('/dev/tty', flags));
    opened.push(stream);
    return stream;
  } catch {
    // No controlling terminal (a daemon, CI, a detached process) or no /dev/tty at all (Windows).
    return undefined;
  }
}
