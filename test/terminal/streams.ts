import { PassThrough } from 'node:stream';
import type { TerminalInput, TerminalOutput } from '../../src/terminal/tty-modes.js';

/** An input stream that can pretend to be a terminal, recording raw-mode switches. */
export function fakeInput(tty = false): PassThrough & TerminalInput & { rawCalls: boolean[] } {
  const input = new PassThrough() as PassThrough & TerminalInput & { rawCalls: boolean[] };
  input.rawCalls = [];
  if (tty) {
    input.isTTY = true;
    input.isRaw = false;
    input.setRawMode = (mode: boolean) => {
      input.rawCalls.push(mode);
      input.isRaw = mode;
      return input;
    };
  }
  return input;
}

/** An output stream that keeps everything written, and can wait (by events, not time) for some text. */
export function fakeOutput(size: { columns?: number; rows?: number } = {}) {
  const output = new PassThrough() as PassThrough & TerminalOutput;
  if (size.columns !== undefined) output.columns = size.columns;
  if (size.rows !== undefined) output.rows = size.rows;
  let text = '';
  const waiters: Array<{ needle: string; resolve: () => void }> = [];
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const waiter of [...waiters]) {
      if (text.includes(waiter.needle)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  return {
    output,
    text: () => text,
    waitFor: (needle: string) =>
      new Promise<void>((resolve) => {
        if (text.includes(needle)) resolve();
        else waiters.push({ needle, resolve });
      }),
  };
}

/** Lets pending stream events and immediates run (ordering only; no time involved). */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
