/**
 * What changed in the roots while a call ran, other than what was approved. A server can write a file other
 * than the one whose diff was shown, and a tool it marks read-only can write: neither passes through
 * editgate, so the proxy looks at the roots around each call and reports what no one was asked about.
 *
 * How: the watch remembers every entry of the roots (its lstat: kind, inode, size, mtime and ctime; links
 * not followed), bounded in size, and keeps one inotify watch per folder (folder-watch.ts). Before a call
 * it reads again the folders that had events since the last call (the person's own edits, never blamed on
 * a call); after the call has answered and the kernel's events have arrived, it reads again the folders
 * that had events during the call, with the folders created in them, and compares each entry with the
 * remembered one. An entry counts as changed during the call only when it differs AND its ctime (which no
 * program can set back) is from the call's window. A removal counts when the nearest folder that still
 * holds it changed during the window. A file created and removed within the call leaves nothing to
 * compare and is not reported (as a scan before and after would not see it either); its folder's ctime
 * makes a removal of an older file in it count.
 *
 * When a folder cannot be watched (the kernel's watch limit), or the roots hold more than the bound, every
 * call scans the whole roots before and after instead (said once in the log): the scan after one call is
 * the scan before the next when it follows within a second; after a pause the roots are scanned again
 * first. When events may have been lost, the next look is a whole scan.
 *
 * Calls that overlap each see the other's approved files as approved (they cannot be told apart on disk).
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { FolderWatch, type WatchFolder } from './folder-watch.js';

/** Entries one scan looks at, at most: beyond that the roots are watched in part (and the log says so). */
export const MAX_WATCHED_ENTRIES = 20_000;

/**
 * How far before a call's start a ctime still counts as during it: the kernel stamps ctime from a coarse
 * clock that can lag the one Date.now() reads by a tick (up to 10 ms), so a write right after the start
 * could carry an earlier time.
 */
const CTIME_SLACK_MS = 50;

/** How old the last scan may be to serve as the scan before a call (else the roots are scanned again). */
const FRESH_FOR_MS = 1000;

interface Entry {
  /** What identifies this version of the entry: kind, inode, size, mtime, ctime (a folder: kind and inode). */
  token: string;
  ctimeMs: number;
  folder: boolean;
}

interface Tree {
  entries: Map<string, Entry>;
  /** When the scan was made (Date.now()). */
  at: number;
  /** Every entry was scanned (the bound was not reached). */
  complete: boolean;
}

export interface UnapprovedChange {
  /** Absolute path. */
  path: string;
  how: 'created' | 'changed' | 'removed';
}

function entryOf(stats: Stats): Entry {
  const folder = stats.isDirectory();
  const kind = folder ? 'd' : stats.isSymbolicLink() ? 'l' : stats.isFile() ? 'f' : 'o';
  const token = folder
    ? `${kind}:${stats.ino}`
    : `${kind}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.mode}`;
  return { token, ctimeMs: stats.ctimeMs, folder };
}

/** Every entry under the roots (the roots included), breadth first, at most `limit` of them. */
function scan(roots: readonly string[], limit: number): Tree {
  const at = Date.now();
  const entries = new Map<string, Entry>();
  const queue: string[] = [];
  for (const root of roots) {
    try {
      entries.set(root, entryOf(lstatSync(root)));
      queue.push(root);
    } catch {
      // A root that is gone has nothing to watch.
    }
  }
  for (let next = 0; next < queue.length; next++) {
    const folder = queue[next]!;
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue; // removed meanwhile, or not readable: nothing of it to compare
    }
    for (const name of names) {
      if (entries.size >= limit) return { entries, at, complete: false };
      const child = path.join(folder, name);
      if (entries.has(child)) continue; // nested roots
      let stats: Stats;
      try {
        stats = lstatSync(child);
      } catch {
        continue;
      }
      const entry = entryOf(stats);
      entries.set(child, entry);
      if (entry.folder) queue.push(child);
    }
  }
  return { entries, at, complete: true };
}

/** Whether `candidate` is `folder` or lies inside it. */
function within(folder: string, candidate: string): boolean {
  return candidate === folder || candidate.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
}

/** How one path differs from what was remembered when a window opened: what it was, what it is. */
interface Delta {
  old?: Entry;
  now?: Entry;
}

/** Adds a difference to those a window collected: the first `old` stays, the latest `now` wins. */
function merge(deltas: Map<string, Delta>, where: string, delta: Delta): void {
  const known = deltas.get(where);
  if (!known) {
    deltas.set(where, { ...delta });
    return;
  }
  known.now = delta.now;
  if (!known.old && !known.now) deltas.delete(where); // created and removed again: nothing left to compare
}

/**
 * The differences between two scans. Beyond the bound, an entry may be missing from the scan before only
 * because it came later (not counted as created), and one missing after may only lie beyond (not removed).
 */
function diffTrees(before: Tree, after: Tree, add: (where: string, delta: Delta) => void): void {
  for (const [where, now] of after.entries) {
    const old = before.entries.get(where);
    if (old === undefined) {
      if (before.complete) add(where, { now });
    } else if (old.token !== now.token) add(where, { old, now });
  }
  if (!after.complete) return;
  for (const [where, old] of before.entries) if (!after.entries.has(where)) add(where, { old });
}

interface Window {
  /** Paths approved during this window: its own and those of calls that overlapped it. */
  approved: Set<string>;
  /** ctimes from here on are the window's. */
  since: number;
  /** What changed while the window was open (watching). */
  deltas: Map<string, Delta>;
  /** The scan the window started from (scanning the whole roots). */
  before?: Tree;
}

export interface ChangeWatchOptions {
  /** Canonical roots. */
  roots: readonly string[];
  /** Paths editgate itself writes during calls (the audit log, the state folder): never reported. */
  ignore: readonly string[];
  limit?: number;
  /** How old the last scan may be to serve as the one before a call, when scanning (default FRESH_FOR_MS). */
  freshForMs?: number;
  /**
   * Told once each: when the roots hold more entries than the watch looks at; when folders cannot be watched
   * and every call scans the roots instead.
   */
  onNotice?: (message: string) => void;
  /** How a folder is watched (tests make it refuse, as the kernel does at its watch limit). */
  watchFolder?: WatchFolder;
}

/** A folder's look found the roots themselves replaced, or more than the bound: only a whole scan tells. */
class NeedsScan extends Error {}

export class ChangeWatch {
  private tree: Tree | undefined;
  /** Each remembered folder's remembered children (absolute paths), while watching. */
  private readonly children = new Map<string, Set<string>>();
  private readonly folders: FolderWatch;
  private mode: 'unstarted' | 'watching' | 'scanning' = 'unstarted';
  private readonly open = new Set<Window>();
  private toldPartial = false;

  constructor(private readonly options: ChangeWatchOptions) {
    this.folders = new FolderWatch(options.watchFolder);
  }

  /** Whether folders are watched (else every call scans the roots). */
  get watching(): boolean {
    return this.mode === 'watching';
  }

  /**
   * Runs `call`, and says what changed in the roots while it ran apart from `approved` (absolute paths the
   * person allowed it to change) and whatever overlapping calls were allowed to change.
   */
  async around<T>(
    approved: readonly string[],
    call: () => Promise<T>,
  ): Promise<{ result: T; unapproved: UnapprovedChange[] }> {
    if (this.mode === 'unstarted') this.start();
    let before: Tree | undefined;
    if (this.mode === 'watching') {
      await this.folders.settle();
      this.catchUp();
    }
    if (this.mode === 'scanning') {
      const fresh = this.tree && Date.now() - this.tree.at <= (this.options.freshForMs ?? FRESH_FOR_MS);
      before = fresh && this.tree ? this.tree : this.scan();
    }
    const window: Window = {
      approved: new Set(approved),
      since: Date.now() - CTIME_SLACK_MS,
      deltas: new Map(),
      before,
    };
    for (const other of this.open) {
      for (const each of approved) other.approved.add(each);
      for (const each of other.approved) window.approved.add(each);
    }
    this.open.add(window);
    let result: T;
    try {
      result = await call();
      if (this.mode === 'watching') {
        await this.folders.settle();
        this.catchUp();
      }
    } finally {
      this.open.delete(window);
    }
    if (this.mode === 'scanning')
      diffTrees(window.before!, this.scan(), (where, delta) => merge(window.deltas, where, delta));
    return { result, unapproved: this.report(window) };
  }

  /** Stops watching the folders. */
  close(): void {
    this.folders.close();
  }

  /** The first look: remember the roots and watch every folder, or scan every call when that fails. */
  private start(): void {
    const tree = this.scan();
    if (!tree.complete) {
      this.mode = 'scanning';
      return;
    }
    try {
      for (const [where, entry] of tree.entries) if (entry.folder) this.folders.add(where);
    } catch (error) {
      this.scanFromNowOn(error);
      return;
    }
    this.remember(tree);
    this.mode = 'watching';
  }

  /** Reads again what had events since the last look, telling every open window what differs. */
  private catchUp(): void {
    const { folders, doubt } = this.folders.take();
    try {
      if (doubt) this.rescanAll();
      else this.reread(folders);
    } catch (error) {
      if (error instanceof NeedsScan) this.rescanAll();
      else this.scanFromNowOn(error);
    }
  }

  private tell(delta: Delta, where: string): void {
    for (const window of this.open) merge(window.deltas, where, delta);
  }

  /** Reads `dirty` folders again (and the folders created in them), comparing each entry with the remembered. */
  private reread(dirty: Set<string>): void {
    const tree = this.tree!;
    const roots = new Set(this.options.roots);
    const queue = [...dirty];
    const done = new Set<string>();
    while (queue.length > 0) {
      const folder = queue.pop()!;
      if (done.has(folder)) continue;
      done.add(folder);
      const known = tree.entries.get(folder);
      if (!known?.folder) continue; // went with a folder above it, which was read again
      const now = lstatOrUndefined(folder);
      if (!now || now.token !== known.token) {
        // Removed or replaced: its parent says how (it had an event too, and is read here if not yet).
        if (roots.has(folder)) throw new NeedsScan();
        queue.push(path.dirname(folder));
        done.delete(path.dirname(folder));
        continue;
      }
      tree.entries.set(folder, now); // its ctime: the holder of whatever was removed from it
      let names: string[];
      try {
        names = readdirSync(folder);
      } catch {
        throw new NeedsScan();
      }
      const present = new Set(names.map((name) => path.join(folder, name)));
      for (const child of [...(this.children.get(folder) ?? [])]) if (!present.has(child)) this.forget(child);
      for (const child of present) {
        if (roots.has(child)) continue; // a nested root is its own
        const entry = lstatOrUndefined(child);
        const old = tree.entries.get(child);
        if (!entry) {
          if (old) this.forget(child);
        } else if (!old) {
          this.learn(child, entry);
        } else if (old.token !== entry.token) {
          if (old.folder || entry.folder) {
            this.forget(child);
            this.learn(child, entry);
          } else {
            tree.entries.set(child, entry);
            this.tell({ old, now: entry }, child);
          }
        }
      }
      if (tree.entries.size > (this.options.limit ?? MAX_WATCHED_ENTRIES)) throw new NeedsScan();
    }
  }

  /** Remembers a new entry, and everything in it when it is a folder (watched before it is read). */
  private learn(where: string, entry: Entry): void {
    const tree = this.tree!;
    const queue: [string, Entry][] = [[where, entry]];
    for (let next = 0; next < queue.length; next++) {
      const [child, each] = queue[next]!;
      tree.entries.set(child, each);
      this.children.get(path.dirname(child))?.add(child);
      this.tell({ now: each }, child);
      if (!each.folder) continue;
      this.folders.add(child);
      this.children.set(child, new Set());
      let names: string[] = [];
      try {
        names = readdirSync(child);
      } catch {
        // removed again meanwhile: its parent's event says so
      }
      for (const name of names) {
        const inner = path.join(child, name);
        const stats = lstatOrUndefined(inner);
        if (stats) queue.push([inner, stats]);
      }
      if (tree.entries.size + queue.length - next > (this.options.limit ?? MAX_WATCHED_ENTRIES)) {
        throw new NeedsScan();
      }
    }
  }

  /** Forgets an entry and everything remembered in it, telling each as removed. */
  private forget(where: string): void {
    const tree = this.tree!;
    this.children.get(path.dirname(where))?.delete(where);
    const queue = [where];
    for (let next = 0; next < queue.length; next++) {
      const each = queue[next]!;
      const old = tree.entries.get(each);
      if (!old) continue;
      tree.entries.delete(each);
      this.tell({ old }, each);
      const inside = this.children.get(each);
      if (inside) queue.push(...inside);
      this.children.delete(each);
      if (old.folder) this.folders.remove(each);
    }
  }

  /** A whole scan against what is remembered, when a folder's look cannot tell (or events may be lost). */
  private rescanAll(): void {
    const before = this.tree!;
    const after = this.scan();
    diffTrees(before, after, (where, delta) => this.tell(delta, where));
    if (!after.complete) {
      this.scanFromNowOn(undefined);
      return;
    }
    try {
      for (const [where, entry] of after.entries) if (entry.folder) this.folders.add(where);
      for (const [where, entry] of before.entries) {
        if (entry.folder && !after.entries.get(where)?.folder) this.folders.remove(where);
      }
    } catch (error) {
      this.scanFromNowOn(error);
      return;
    }
    this.remember(after);
  }

  /** Stops watching: every call scans the roots from now on; open windows go on from the latest scan. */
  private scanFromNowOn(error: unknown): void {
    this.folders.close();
    this.children.clear();
    this.mode = 'scanning';
    // What is remembered is up to date as far as open windows were told: they go on from it.
    const tree = this.tree ?? this.scan();
    for (const window of this.open) window.before ??= tree;
    if (error !== undefined) {
      const code = (error as NodeJS.ErrnoException).code;
      this.options.onNotice?.(
        `the roots' folders cannot be watched (${code ?? String(error)}${code === 'ENOSPC' ? ': the system limit of inotify watches, fs.inotify.max_user_watches' : ''}); each call scans the roots before and after instead, which is slower in a large root`,
      );
    }
  }

  private remember(tree: Tree): void {
    this.tree = tree;
    this.children.clear();
    const roots = new Set(this.options.roots);
    for (const [where, entry] of tree.entries) {
      if (entry.folder) this.children.set(where, this.children.get(where) ?? new Set());
      if (roots.has(where)) continue;
      const parent = path.dirname(where);
      const inside = this.children.get(parent) ?? new Set<string>();
      inside.add(where);
      this.children.set(parent, inside);
    }
  }

  private scan(): Tree {
    const tree = scan(this.options.roots, this.options.limit ?? MAX_WATCHED_ENTRIES);
    if (!tree.complete && !this.toldPartial) {
      this.toldPartial = true;
      this.options.onNotice?.(
        `the roots hold more than ${tree.entries.size} files and folders; changes a server makes that it was not asked about are looked for among the first ${tree.entries.size} only`,
      );
    }
    this.tree = tree;
    return tree;
  }

  private report(window: Window): UnapprovedChange[] {
    const entries = this.tree!.entries;
    const ignored = (candidate: string) =>
      window.approved.has(candidate) || this.options.ignore.some((each) => within(each, candidate));
    const changes: UnapprovedChange[] = [];
    for (const [where, { old, now }] of window.deltas) {
      if (ignored(where)) continue;
      if (now) {
        if (now.ctimeMs < window.since) continue;
        if (old === undefined) changes.push({ path: where, how: 'created' });
        else if (old.token !== now.token) {
          changes.push({ path: where, how: old.folder === now.folder ? 'changed' : 'created' });
        }
      } else if (old) {
        // Removed during the call if the nearest folder still there changed during it.
        let holder = path.dirname(where);
        while (!entries.has(holder) && holder !== path.dirname(holder)) holder = path.dirname(holder);
        const folder = entries.get(holder);
        if (folder && folder.ctimeMs >= window.since) changes.push({ path: where, how: 'removed' });
      }
    }
    // A folder created or removed with everything in it: the folder says it, its contents need not.
    const folders = changes.filter((change) => change.how !== 'changed').map((change) => change.path);
    return changes
      .filter((change) => !folders.some((folder) => folder !== change.path && within(folder, change.path)))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

function lstatOrUndefined(where: string): Entry | undefined {
  try {
    return entryOf(lstatSync(where));
  } catch {
    return undefined;
  }
}
