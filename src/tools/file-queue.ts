/**
 * Calls that change one file, one after the other. Two edits of a file sent at once (parallel tool calls
 * over MCP, a library user's Promise.all) would both be computed from the same version, and the second
 * would be refused as STALE though nothing went wrong; in turn, the second is computed from what the first
 * wrote. Calls on different files still run side by side.
 */
import { cancelledError } from '../core/errors.js';

export class FileQueue {
  /** Per file key: the promise that settles when the last call queued on it is done. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `task` once every call queued before it on `key` is done; a cancelled wait runs nothing. */
  async run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    try {
      await untilSettledOrCancelled(previous, signal);
      return await task();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

function untilSettledOrCancelled(previous: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return previous;
  if (signal.aborted) return Promise.reject(cancelledError());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(cancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
