/**
 * Which folders had something happen in them: one inotify watch per folder (a non-recursive `fs.watch`),
 * so that the change watch (change-watch.ts) looks again only at folders that had an event instead of
 * scanning the whole roots around every call. Non-recursive on purpose: Node 20's recursive mode sets up its
 * watchers for existing subfolders asynchronously and missed a file written and removed in one of them; a
 * watch per folder is set up before the folder is read, so nothing written after the read is missed.
 *
 * Any event marks its folder, whatever it names: the folder is read again whole. What it cannot tell is said
 * as doubt, and the change watch then scans everything: a watcher's error, or more events than the kernel's
 * queue surely held (IN_Q_OVERFLOW is not passed on by Node, so a burst that large is taken as a possible
 * loss).
 */
import { type FSWatcher, watch as fsWatch } from 'node:fs';

/** How `fs.watch` is called: replaceable so that tests can make the kernel refuse a watch. */
export type WatchFolder = (folder: string, listener: () => void) => FSWatcher;

const watchFolder: WatchFolder = (folder, listener) =>
  // persistent: false: a watch never keeps the proxy alive once its client and server are gone.
  fsWatch(folder, { persistent: false }, listener);

/**
 * Events between two looks beyond which some may have been lost: the kernel queues 16,384 per inotify
 * instance by default, and Node reads them as they come, so a quarter of that between two looks is already
 * far from what a call changes and still below where the queue can overflow.
 */
const EVENTS_BEYOND_DOUBT = 4096;

/** Rounds of the event loop the settle waits for events at most. */
const SETTLE_ROUNDS = 8;

export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private dirty = new Set<string>();
  private events = 0;
  private doubt = false;

  constructor(private readonly watchFolderWith: WatchFolder = watchFolder) {}

  get size(): number {
    return this.watchers.size;
  }

  /**
   * Starts watching `folder`; throws what the kernel said when it refuses (ENOSPC: the watch limit). A
   * folder that cannot be read (EACCES) or is gone already is not watched: a scan could not read it either,
   * and its parent's event tells that it went.
   */
  add(folder: string): void {
    if (this.watchers.has(folder)) return;
    let watcher: FSWatcher;
    try {
      watcher = this.watchFolderWith(folder, () => {
        this.events++;
        this.dirty.add(folder);
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'ENOENT' || code === 'ENOTDIR') return;
      throw error;
    }
    watcher.on('error', () => {
      // The folder went away or the watch broke: what happened in it is not known.
      this.doubt = true;
      this.remove(folder);
    });
    this.watchers.set(folder, watcher);
  }

  remove(folder: string): void {
    this.watchers.get(folder)?.close();
    this.watchers.delete(folder);
  }

  /** The folders with events since the last take, and whether some may have been missed. */
  take(): { folders: Set<string>; doubt: boolean } {
    const taken = { folders: this.dirty, doubt: this.doubt || this.events > EVENTS_BEYOND_DOUBT };
    this.dirty = new Set();
    this.events = 0;
    this.doubt = false;
    return taken;
  }

  /**
   * Lets events already in the kernel's queue arrive. The kernel queues an inotify event in the write
   * itself, so a server's writes are queued before its answer is; two turns of the event loop include a
   * whole poll of every descriptor after the answer was read. It goes on (a few turns at most) while
   * events keep arriving, for a writer that is not finished.
   */
  async settle(): Promise<void> {
    for (let round = 0; round < SETTLE_ROUNDS; round++) {
      const seen = this.events;
      await turn();
      await turn();
      if (this.events === seen) return;
    }
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
