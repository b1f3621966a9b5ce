/**
 * What changed in the roots while a call ran, other than what was approved. A server can write a file other
 * than the one whose diff was shown, and a tool it marks read-only can write: neither passes through
 * editgate, so the proxy looks at the roots around each call and reports what no one was asked about.
 *
 * How: a scan of the roots (every entry's lstat: kind, inode, size, mtime and ctime; links not followed),
 * bounded in size. The scan after a call is compared with the one before it, and an entry counts as changed
 * during the call only when it differs AND its ctime (which no program can set back) is from the call's
 * window, so whatever changed between calls (the person's own edits) is never blamed on a call. The scan
 * after one call is the scan before the next when it follows within a second, so calls in a burst cost one
 * scan each; after a pause the roots are scanned again first. A removal counts when the nearest folder
 * that still holds it changed during the window (a fresh scan before keeps a file removed during the pause
 * from counting). `fs.watch` was not used: on Linux with Node 20 its
 * recursive mode sets up watchers for existing subfolders asynchronously and missed a file written and
 * removed in one of them.
 *
 * Calls that overlap each see the other's approved files as approved (they cannot be told apart on disk).
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';

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
  entries: ReadonlyMap<string, Entry>;
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

interface Window {
  /** Paths approved during this window: its own and those of calls that overlapped it. */
  approved: Set<string>;
}

export interface ChangeWatchOptions {
  /** Canonical roots. */
  roots: readonly string[];
  /** Paths editgate itself writes during calls (the audit log, the state folder): never reported. */
  ignore: readonly string[];
  limit?: number;
  /** How old the last scan may be to serve as the one before a call (default FRESH_FOR_MS). */
  freshForMs?: number;
  /** Told once when the roots hold more entries than a scan looks at. */
  onPartial?: (message: string) => void;
}

export class ChangeWatch {
  private tree: Tree | undefined;
  private readonly open = new Set<Window>();
  private toldPartial = false;

  constructor(private readonly options: ChangeWatchOptions) {}

  /**
   * Runs `call`, and says what changed in the roots while it ran apart from `approved` (absolute paths the
   * person allowed it to change) and whatever overlapping calls were allowed to change.
   */
  async around<T>(
    approved: readonly string[],
    call: () => Promise<T>,
  ): Promise<{ result: T; unapproved: UnapprovedChange[] }> {
    const fresh = this.tree && Date.now() - this.tree.at <= (this.options.freshForMs ?? FRESH_FOR_MS);
    const before = fresh && this.tree ? this.tree : this.scan();
    const since = Date.now() - CTIME_SLACK_MS;
    const window: Window = { approved: new Set(approved) };
    for (const other of this.open) {
      for (const each of approved) other.approved.add(each);
      for (const each of other.approved) window.approved.add(each);
    }
    this.open.add(window);
    let result: T;
    try {
      result = await call();
    } finally {
      this.open.delete(window);
    }
    const after = this.scan();
    return { result, unapproved: this.compare(before, after, since, window.approved) };
  }

  private scan(): Tree {
    const tree = scan(this.options.roots, this.options.limit ?? MAX_WATCHED_ENTRIES);
    if (!tree.complete && !this.toldPartial) {
      this.toldPartial = true;
      this.options.onPartial?.(
        `the roots hold more than ${tree.entries.size} files and folders; changes a server makes that it was not asked about are looked for among the first ${tree.entries.size} only`,
      );
    }
    this.tree = tree;
    return tree;
  }

  private compare(before: Tree, after: Tree, since: number, approved: Set<string>): UnapprovedChange[] {
    const ignored = (candidate: string) =>
      approved.has(candidate) || this.options.ignore.some((each) => within(each, candidate));
    const changes: UnapprovedChange[] = [];
    for (const [where, entry] of after.entries) {
      if (entry.ctimeMs < since || ignored(where)) continue;
      const old = before.entries.get(where);
      if (old === undefined) {
        // Beyond the bound, an entry may be missing from the scan before only because it came later.
        if (before.complete) changes.push({ path: where, how: 'created' });
      } else if (old.token !== entry.token) {
        changes.push({ path: where, how: old.folder === entry.folder ? 'changed' : 'created' });
      }
    }
    for (const where of before.entries.keys()) {
      if (after.entries.has(where) || ignored(where) || !after.complete) continue;
      // Removed during the call if the nearest folder still there changed during it.
      let holder = path.dirname(where);
      while (!after.entries.has(holder) && holder !== path.dirname(holder)) holder = path.dirname(holder);
      const folder = after.entries.get(holder);
      if (folder && folder.ctimeMs >= since) changes.push({ path: where, how: 'removed' });
    }
    // A folder created or removed with everything in it: the folder says it, its contents need not.
    const folders = changes.filter((change) => change.how !== 'changed').map((change) => change.path);
    return changes
      .filter((change) => !folders.some((folder) => folder !== change.path && within(folder, change.path)))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}
