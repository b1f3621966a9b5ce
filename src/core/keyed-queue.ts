/**
 * Work that must not overlap per key (a file's path, a lock's name), in the order it was handed in: the
 * one queue behind the history's per-file writes, the lock's in-process turns, the proxy's per-path writes
 * and the tools' per-file calls. A task runs once everything queued before it on its key is done, whether
 * that succeeded or failed; different keys never wait for each other; a key is forgotten once nothing is
 * queued on it.
 */
const ignore = () => undefined;

export class KeyedQueue {
  /** Per key: settles (never rejects) when the last work queued on it is done. */
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Puts `done` (work already under way, or a promise its runner settles) last in line for `key`, and
   * returns what it must wait for: the moment everything queued before it is done.
   */
  enqueue(key: string, done: Promise<unknown>): Promise<void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const tail = previous.then(() => done).then(ignore, ignore);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return previous;
  }

  /** Runs `task` once everything queued before it on `key` is done. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    return this.enqueue(key, done).then(task).finally(release);
  }

  /** The keys that have work queued or running (for tests: nothing is kept once it is done). */
  get size(): number {
    return this.tails.size;
  }
}
