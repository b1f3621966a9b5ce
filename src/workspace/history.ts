/**
 * Undo history per canonical path: storage and order only (workspace.ts undoes). Each entry keeps what
 * editgate wrote (undo goes ahead only while the file still is that) and the reverse patch of the change
 * (reverse-patch.ts): the bytes it replaced, never a copy of the file. Calls for one path run in the order
 * they were made, so a caller that does not await (record, then pop) still sees them in order.
 *
 * Without a state folder history lives in memory for the session. With one, an index per file (named by a
 * hash of its path, so no workspace path shows there) and the patches live in `<stateDir>/history`, so
 * another process can undo too.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { type Fingerprint, isStatFingerprint } from './fingerprint.js';
import { isErrno } from './fs-errors.js';
import { keepPatch, type ReversePatch, removePatch, writePatchFile } from './reverse-patch.js';

export interface HistoryEntry {
  id: string;
  /** The change created the file: undo deletes it. */
  created: boolean;
  /** How to put back what the change replaced; absent for a creation. */
  reverse?: ReversePatch;
  /** What editgate wrote: undo only goes ahead while the file still is this. */
  after: Fingerprint;
  tool?: string;
  /** When the change was recorded (epoch ms). */
  at: number;
  /** The change was one file of a change set: its id and every file of it (undo puts them all back). */
  set?: ChangeSetRef;
  /**
   * The change deleted the file (a patch's delete or move): `reverse` holds every byte it had, and undo
   * creates it again with them and this mode, unless something else has created the path since.
   */
  deleted?: DeletedFile;
}

/** What undo needs of a deleted file besides its bytes. */
export interface DeletedFile {
  /** Permission bits it had (null: unknown, the usual mode for a new file). */
  mode: number | null;
}

/** The `after` of a deletion's entry: no file. Never equal to a real file's fingerprint. */
export const NO_FILE: Fingerprint = { size: 0, mtimeMs: 0, hash: 'deleted' };

/** A change set as history knows it. */
export interface ChangeSetRef {
  id: string;
  /** Canonical paths of its files. */
  paths: string[];
}

export interface HistoryOptions {
  /**
   * Folder (outside every workspace) to keep history in, so another process can undo too. Without it,
   * history lives in memory for the session.
   */
  stateDir?: string;
  /** Older entries are dropped beyond this many per file. Default 20. */
  maxEntriesPerFile?: number;
  /** Persistence failures never fail a change that is already written; they are reported here. */
  onError?: (error: unknown) => void;
}

/** An entry as the index file keeps it: a reverse patch only as the path of its patch file. */
interface StoredEntry {
  id: string;
  existed: boolean;
  after: Fingerprint;
  tool?: string;
  at: number;
  patch?: string;
  set?: ChangeSetRef;
  deleted?: DeletedFile;
}

interface IndexFile {
  version: 1 | 2;
  path: string;
  entries: StoredEntry[];
}

export class History {
  private readonly stateDir: string | undefined;
  private readonly max: number;
  private readonly onError: (error: unknown) => void;
  private readonly files = new Map<string, HistoryEntry[]>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(options: HistoryOptions = {}) {
    this.stateDir = options.stateDir;
    this.max = Math.max(1, options.maxEntriesPerFile ?? 20);
    this.onError =
      options.onError ?? ((error) => process.emitWarning(`editgate history: ${describe(error)}`));
  }

  /** Remember how to put `path` back after a change that left it as `after`. */
  record(
    path: string,
    change: {
      created: boolean;
      reverse: ReversePatch | null;
      after: Fingerprint;
      tool?: string;
      set?: ChangeSetRef;
      deleted?: DeletedFile;
    },
  ): Promise<void> {
    return this.queue(path, async () => {
      const entries = await this.load(path);
      const entry: HistoryEntry = {
        id: randomUUID(),
        created: change.created,
        after: change.after,
        at: Date.now(),
      };
      if (change.tool !== undefined) entry.tool = change.tool;
      if (change.set) entry.set = change.set;
      if (change.deleted) entry.deleted = change.deleted;
      if (change.reverse) entry.reverse = change.reverse;
      entries.push(entry);
      const dropped = entries.splice(0, Math.max(0, entries.length - this.max));
      if (this.stateDir) {
        try {
          if (entry.reverse?.kind === 'memory') {
            const file = await writePatchFile(this.patchPath(path, entry.id), entry.reverse.spans);
            keepPatch(file);
            entry.reverse = { kind: 'file', path: file };
          } else if (entry.reverse?.kind === 'file') {
            // A history kept on disk keeps the patch past this process too.
            keepPatch(entry.reverse.path);
          }
          await this.saveIndex(path, entries);
        } catch (error) {
          this.onError(error);
        }
      }
      for (const old of dropped) await removeReverse(old);
    });
  }

  /** The latest change to `path`, or undefined when there is nothing to undo. */
  peek(path: string): Promise<HistoryEntry | undefined> {
    return this.queue(path, async () => (await this.load(path)).at(-1));
  }

  /**
   * Remove the latest change (after it has been undone); returns it. `now`: the fingerprint of the file the
   * undo wrote. The entry below describes that content; if it holds a stat fingerprint (a streamed change,
   * fingerprint.ts), that is moved to the rewritten file.
   */
  pop(path: string, now?: Fingerprint): Promise<HistoryEntry | undefined> {
    return this.queue(path, async () => {
      const entries = await this.load(path);
      const popped = entries.pop();
      if (!popped) return undefined;
      const below = entries.at(-1);
      if (now && below && isStatFingerprint(below.after)) below.after = now;
      if (this.stateDir) await this.saveIndex(path, entries).catch((error) => this.onError(error));
      await removeReverse(popped);
      return popped;
    });
  }

  private async load(path: string): Promise<HistoryEntry[]> {
    let entries = this.files.get(path);
    if (entries) return entries;
    entries = [];
    if (this.stateDir) {
      try {
        const index = JSON.parse(await readFile(this.indexPath(path), 'utf8')) as IndexFile;
        // The name is a hash: check the path too rather than trust it.
        if (
          (index.version === 1 || index.version === 2) &&
          index.path === path &&
          Array.isArray(index.entries)
        ) {
          const invalid = index.entries.find((stored) => !this.isValidStored(stored));
          if (invalid === undefined) entries = index.entries.map((stored) => this.fromStored(path, stored));
          else
            this.onError(
              new Error(
                `refused the undo history of ${path}: an entry is not one editgate wrote (${JSON.stringify(invalid).slice(0, 200)}); it is ignored`,
              ),
            );
        }
      } catch (error) {
        if (!isErrno(error, 'ENOENT')) this.onError(error);
      }
    }
    this.files.set(path, entries);
    return entries;
  }

  /**
   * History files are data, never instructions: an entry whose patch lies outside this state folder's
   * history (planted to make undo read or remove another file), or that is not shaped as editgate writes
   * entries, makes the whole index be ignored.
   */
  private isValidStored(stored: unknown): stored is StoredEntry {
    if (typeof stored !== 'object' || stored === null) return false;
    const entry = stored as Partial<StoredEntry>;
    if (typeof entry.id !== 'string' || !/^[\w-]{1,100}$/.test(entry.id)) return false;
    if (typeof entry.existed !== 'boolean' || typeof entry.at !== 'number') return false;
    const after = entry.after as Partial<Fingerprint> | undefined;
    if (
      typeof after !== 'object' ||
      after === null ||
      typeof after.hash !== 'string' ||
      typeof after.size !== 'number'
    )
      return false;
    if (entry.tool !== undefined && typeof entry.tool !== 'string') return false;
    if (entry.patch === undefined) return true;
    if (typeof entry.patch !== 'string') return false;
    const folder = join(this.stateDir!, 'history');
    const inside = relative(folder, resolve(entry.patch));
    return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) && !inside.includes('\0');
  }

  private fromStored(path: string, stored: StoredEntry): HistoryEntry {
    const entry: HistoryEntry = {
      id: stored.id,
      created: !stored.existed,
      after: stored.after,
      at: stored.at,
    };
    if (stored.tool !== undefined) entry.tool = stored.tool;
    if (isSetRef(stored.set)) entry.set = stored.set;
    if (stored.deleted !== undefined) entry.deleted = { mode: modeOf(stored.deleted) };
    if (stored.patch) entry.reverse = { kind: 'file', path: stored.patch };
    else if (stored.existed) {
      // Written by an older editgate: the whole old content in a blob, which replaced all of what is there now.
      entry.reverse = { kind: 'blob', path: this.blobPath(path, stored.id), size: stored.after.size };
    }
    return entry;
  }

  private async saveIndex(path: string, entries: HistoryEntry[]): Promise<void> {
    if (entries.length === 0) {
      await unlink(this.indexPath(path)).catch((error) => {
        if (!isErrno(error, 'ENOENT')) throw error;
      });
      return;
    }
    const stored: StoredEntry[] = entries.map((entry) => {
      const out: StoredEntry = { id: entry.id, existed: !entry.created, after: entry.after, at: entry.at };
      if (entry.tool !== undefined) out.tool = entry.tool;
      if (entry.set) out.set = entry.set;
      if (entry.deleted) out.deleted = entry.deleted;
      if (entry.reverse?.kind === 'file') out.patch = entry.reverse.path;
      return out;
    });
    const index: IndexFile = { version: 2, path, entries: stored };
    await writeAtomic(this.indexPath(path), Buffer.from(JSON.stringify(index)));
  }

  private indexPath(path: string): string {
    return join(this.stateDir!, 'history', `${key(path)}.json`);
  }

  private patchPath(path: string, id: string): string {
    return join(this.stateDir!, 'history', `${key(path)}.${id}.patch`);
  }

  private blobPath(path: string, id: string): string {
    return join(this.stateDir!, 'history', `${key(path)}.${id}.bin`);
  }

  private queue<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(path) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.catch(() => {});
    this.queues.set(path, tail);
    void tail.then(() => {
      if (this.queues.get(path) === tail) this.queues.delete(path);
    });
    return next;
  }
}

async function removeReverse(entry: HistoryEntry): Promise<void> {
  const reverse = entry.reverse;
  if (reverse?.kind === 'file') await removePatch(reverse.path);
  else if (reverse?.kind === 'blob') await unlink(reverse.path).catch(() => {});
}

function isSetRef(value: unknown): value is ChangeSetRef {
  const set = value as ChangeSetRef | undefined;
  return (
    typeof set === 'object' &&
    set !== null &&
    typeof set.id === 'string' &&
    Array.isArray(set.paths) &&
    set.paths.every((path) => typeof path === 'string')
  );
}

/** A stored deletion's mode: permission bits only, whatever the index says. */
function modeOf(deleted: unknown): number | null {
  const mode = (deleted as DeletedFile | null)?.mode;
  return typeof mode === 'number' && Number.isInteger(mode) && mode >= 0 ? mode & 0o777 : null;
}

function key(path: string): string {
  return createHash('sha256').update(path).digest('hex');
}

/** temp + fsync + rename: a reader sees the old file or the new one, never half of one. */
async function writeAtomic(target: string, bytes: Uint8Array): Promise<void> {
  const folder = dirname(target);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
