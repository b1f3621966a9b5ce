/**
 * Calls that change one file, one after the other. Two edits of a file sent at once (parallel tool calls
 * over MCP, a library user's Promise.all) would both be computed from the same version, and the second
 * would be refused as STALE though nothing went wrong; in turn, the second is computed from what the first
 * wrote. Calls on different files still run side by side.
 *
 * A call's key is the canonical path of its file, which costs a resolve of the path by the guard (and the
 * gate resolves it again, later, for the change itself). Most calls come one at a time, so the key is
 * found lazily: a call that starts while no other is queued or running runs at once, and its key is found
 * only if another call arrives before it is done; that call first has the keys of the calls running
 * unkeyed found (and queued under them), then queues behind its own.
 */
import { cancelledError } from '../core/errors.js';
import { KeyedQueue } from '../core/keyed-queue.js';

type FindKey = () => Promise<string | undefined>;

/** A call that started with nothing else in the queue, so without its key. */
interface Unkeyed {
  findKey: FindKey;
  done: Promise<void>;
  /** Set once another call has had its key found and the call queued under it. */
  queued?: Promise<void>;
}

export class FileQueue {
  /** Per file key, the calls queued on it. */
  private readonly byKey = new KeyedQueue();
  private readonly unkeyed = new Set<Unkeyed>();
  /** Calls queued or running. */
  private active = 0;

  /**
   * Runs `task` once every call queued before it on its key is done; a cancelled wait runs nothing. `key`
   * is the key, or how to find it (undefined: a call that waits for nothing, as a path the guard refuses).
   */
  async run<T>(key: string | FindKey, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const findKey: FindKey = typeof key === 'string' ? () => Promise.resolve(key) : key;
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.active++;
    if (this.active === 1) {
      const running: Unkeyed = { findKey, done };
      this.unkeyed.add(running);
      try {
        if (signal?.aborted) throw cancelledError();
        return await task();
      } finally {
        this.active--;
        this.unkeyed.delete(running);
        release();
      }
    }
    try {
      await Promise.all([...this.unkeyed].map((running) => this.queueUnkeyed(running)));
      const own = await findKey();
      if (own === undefined) return await task();
      await untilSettledOrCancelled(this.byKey.enqueue(own, done), signal);
      return await task();
    } finally {
      this.active--;
      release();
    }
  }

  /** Finds the key of a call that started unkeyed and queues it under it, once. */
  private queueUnkeyed(running: Unkeyed): Promise<void> {
    running.queued ??= running.findKey().then(
      (key) => {
        // It is running already: later calls on its key wait for it, it waits for nothing.
        if (key !== undefined) void this.byKey.enqueue(key, running.done);
      },
      () => {},
    );
    return running.queued;
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
