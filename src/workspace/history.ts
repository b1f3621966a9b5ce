/**
 * Undo history per canonical path: storage and order only (workspace.ts undoes). Each entry keeps what
 * editgate wrote (undo goes ahead only while the file still is that) and the reverse patch of the change
 * (reverse-patch.ts): the bytes it replaced, never a copy of the file. Calls for one path run in the order
 * they were made, so a caller that does not await (record, then pop) still sees them in order.
 *
 * Without a state folder history lives in memory for the session. With one, an index per file (named by a
 * hash of its path, so no workspace path shows there) and the patches live in `<stateDir>/history`, so
 * another process can undo too.
 *
 * On disk, nothing of history is fsynced on a change's path (the change itself is: commit.ts): the index is
 * a log of lines, one appended per change or undo; a small patch lives in its line, a larger one is written
 * plainly with its size and hash in the line (reverse-patch.ts). A crash can lose the last lines or cut a patch short; then undo refuses
 * (the file is not what the entry says editgate wrote: STALE; or the patch fails its check), never applies
 * a wrong patch. Only the rare rewrite of a grown or damaged log is atomic and fsynced.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, closeSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { KeyedQueue } from '../core/keyed-queue.js';
import { type Fingerprint, isStatFingerprint } from './fingerprint.js';
import { isErrno } from './fs-errors.js';
import {
  keepPatch,
  type ReversePatch,
  type ReverseSpan,
  removePatch,
  writePatchFile,
} from './reverse-patch.js';

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
  /** The patch file's size and sha256, when it was written without fsync: undo checks them. */
  patchSize?: number;
  patchHash?: string;
  /** A small patch kept in the entry itself (its old bytes in base64) instead of a patch file. */
  spans?: StoredSpan[];
  set?: ChangeSetRef;
  deleted?: DeletedFile;
}

interface StoredSpan {
  newStart: number;
  newLength: number;
  oldStart: number;
  old: string;
}

/**
 * Replaced bytes up to this size are kept in the index line itself: no patch file to create on every edit
 * and remove when its entry is dropped (each a journalled metadata change, slow on a busy disk). A line is
 * whole or fails to parse, so an inline patch needs no size or hash.
 */
const INLINE_PATCH_BYTES = 4096;

/** The index an older editgate wrote: one JSON document, rewritten on every change. */
interface IndexFile {
  version: 1 | 2;
  path: string;
  entries: StoredEntry[];
}

/**
 * The index as a log (version 3), one JSON object a line: a header `{"version":3,"path":...}`, then
 * `{"add": StoredEntry}` per change and `{"pop": id, "after"?: Fingerprint}` per undo (`after`: the entry
 * below now describes the file the undo wrote).
 */
type LogLine = { add: StoredEntry } | { pop: string; after?: Fingerprint };

/** What this process knows of a path's index file. */
interface IndexState {
  exists: boolean;
  /** Lines in it, header included. */
  lines: number;
  /** Rewrite it at the next write: an older editgate's format, or a damaged or unterminated line. */
  rewrite: boolean;
}

export class History {
  private readonly stateDir: string | undefined;
  private readonly max: number;
  private readonly onError: (error: unknown) => void;
  private readonly files = new Map<string, HistoryEntry[]>();
  private readonly indexes = new Map<string, IndexState>();
  private readonly queue = new KeyedQueue();
  private folderMade = false;

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
    return this.queue.run(path, async () => {
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
          this.makeFolder();
          if (entry.reverse?.kind === 'memory' && oldBytes(entry.reverse.spans) > INLINE_PATCH_BYTES) {
            const file = writePatchFile(this.patchPath(path, entry.id), entry.reverse.spans);
            entry.reverse = { kind: 'file', ...file };
          } else if (entry.reverse?.kind === 'file') {
            // A history kept on disk keeps the patch past this process too.
            keepPatch(entry.reverse.path);
          }
          await this.saveAdded(path, entries, entry);
        } catch (error) {
          this.onError(error);
        }
      }
      for (const old of dropped) await removeReverse(old);
    });
  }

  /** The latest change to `path`, or undefined when there is nothing to undo. */
  peek(path: string): Promise<HistoryEntry | undefined> {
    return this.queue.run(path, async () => (await this.load(path)).at(-1));
  }

  /**
   * Remove the latest change (after it has been undone); returns it. `now`: the fingerprint of the file the
   * undo wrote. The entry below describes that content; if it holds a stat fingerprint (a streamed change,
   * fingerprint.ts), that is moved to the rewritten file.
   */
  pop(path: string, now?: Fingerprint): Promise<HistoryEntry | undefined> {
    return this.queue.run(path, async () => {
      const entries = await this.load(path);
      const popped = entries.pop();
      if (!popped) return undefined;
      const below = entries.at(-1);
      const moved = now && below && isStatFingerprint(below.after);
      if (moved) below.after = now;
      if (this.stateDir) {
        await this.savePopped(path, entries, popped.id, moved ? now : undefined).catch((error) =>
          this.onError(error),
        );
      }
      await removeReverse(popped);
      return popped;
    });
  }

  private async load(path: string): Promise<HistoryEntry[]> {
    let entries = this.files.get(path);
    if (entries) return entries;
    entries = [];
    if (this.stateDir) {
      const state: IndexState = { exists: false, lines: 0, rewrite: false };
      try {
        const text = await readFile(this.indexPath(path), 'utf8');
        state.exists = true;
        entries = this.parseIndex(path, text, state);
      } catch (error) {
        if (!isErrno(error, 'ENOENT')) this.onError(error);
        // Unreadable: written afresh at the next change.
        if (state.exists) state.rewrite = true;
      }
      this.indexes.set(path, state);
    }
    this.files.set(path, entries);
    return entries;
  }

  /** The entries an index file holds (either format); `state` learns its size and whether to rewrite it. */
  private parseIndex(path: string, text: string, state: IndexState): HistoryEntry[] {
    const refuse = (why: string): HistoryEntry[] => {
      this.onError(new Error(`refused the undo history of ${path}: ${why}; it is ignored`));
      state.rewrite = true;
      return [];
    };
    const invalidEntry = (stored: unknown) =>
      `an entry is not one editgate wrote (${JSON.stringify(stored).slice(0, 200)})`;
    if (text.startsWith('{"version":1,') || text.startsWith('{"version":2,')) {
      // An older editgate's index: one document. Rewritten as a log at the next change.
      state.rewrite = true;
      const index = parseJson(text) as IndexFile | undefined;
      if (!index || index.path !== path || !Array.isArray(index.entries))
        return refuse('it is not an index of this file');
      const invalid = index.entries.find((stored) => !this.isValidStored(stored));
      if (invalid !== undefined) return refuse(invalidEntry(invalid));
      return index.entries.map((stored) => this.fromStored(path, stored));
    }
    if (text === '') {
      // Created, then the system stopped before its bytes were saved: no history.
      state.rewrite = true;
      return [];
    }
    const lines = text.split('\n');
    // A log ends with a newline; a last line without one was cut short by a crash (or lost just its newline):
    // it is parsed like the rest, and the log rewritten, so the next line does not join it.
    if (lines.at(-1) === '') lines.pop();
    else state.rewrite = true;
    state.lines = lines.length;
    const header = parseJson(lines[0] ?? '') as { version?: unknown; path?: unknown } | undefined;
    // The name is a hash: check the path too rather than trust it.
    if (header?.version !== 3 || header.path !== path) return refuse('it is not an index of this file');
    const entries: HistoryEntry[] = [];
    let damaged = 0;
    for (const line of lines.slice(1)) {
      const parsed = parseJson(line) as Partial<{ add: unknown; pop: unknown; after: unknown }> | undefined;
      if (parsed && 'add' in parsed) {
        if (!this.isValidStored(parsed.add)) return refuse(invalidEntry(parsed.add));
        entries.push(this.fromStored(path, parsed.add));
        entries.splice(0, Math.max(0, entries.length - this.max));
      } else if (parsed && typeof parsed.pop === 'string') {
        const at = entries.findIndex((entry) => entry.id === parsed.pop);
        const wasLatest = at >= 0 && at === entries.length - 1;
        if (at >= 0) entries.splice(at, 1);
        // `after` describes the entry below the undone one: only then is it this one's.
        const below = entries.at(-1);
        if (wasLatest && below && isFingerprint(parsed.after)) below.after = parsed.after;
      } else damaged++;
    }
    if (damaged > 0) {
      // Lines a crash cut short or garbled: the entries they held are lost. What remains is safe to offer:
      // undo still checks that the file is what an entry says editgate wrote, and the patch's size and hash.
      state.rewrite = true;
      this.onError(
        new Error(
          `${damaged} damaged line(s) in the undo history of ${path} were skipped (a write cut short?)`,
        ),
      );
    }
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
    if (entry.patchSize !== undefined && !(Number.isSafeInteger(entry.patchSize) && entry.patchSize >= 0))
      return false;
    if (
      entry.patchHash !== undefined &&
      !(typeof entry.patchHash === 'string' && /^[0-9a-f]{64}$/.test(entry.patchHash))
    )
      return false;
    if (entry.spans !== undefined) return entry.patch === undefined && isStoredSpans(entry.spans);
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
    if (stored.spans) {
      entry.reverse = {
        kind: 'memory',
        spans: stored.spans.map((span) => ({ ...span, old: Buffer.from(span.old, 'base64') })),
      };
    } else if (stored.patch) {
      entry.reverse = { kind: 'file', path: stored.patch };
      if (stored.patchSize !== undefined) entry.reverse.size = stored.patchSize;
      if (stored.patchHash !== undefined) entry.reverse.hash = stored.patchHash;
    } else if (stored.existed) {
      // Written by an older editgate: the whole old content in a blob, which replaced all of what is there now.
      entry.reverse = { kind: 'blob', path: this.blobPath(path, stored.id), size: stored.after.size };
    }
    return entry;
  }

  /** `entry` was added (older ones beyond the limit dropped): a line appended, or the index written anew. */
  private async saveAdded(path: string, entries: HistoryEntry[], entry: HistoryEntry): Promise<void> {
    await this.save(path, entries, { add: toStored(entry) });
  }

  /** The latest entry was undone: a line appended, or the index removed when nothing is left. */
  private async savePopped(path: string, entries: HistoryEntry[], id: string, after?: Fingerprint) {
    if (entries.length === 0) {
      this.indexes.set(path, { exists: false, lines: 0, rewrite: false });
      try {
        unlinkSync(this.indexPath(path));
      } catch (error) {
        if (!isErrno(error, 'ENOENT')) throw error;
      }
      return;
    }
    await this.save(path, entries, after ? { pop: id, after } : { pop: id });
  }

  /**
   * One line appended (no fsync: see the top of this file). A new index is created the same way; a grown
   * one (more than four lines per entry kept), an older editgate's or a damaged one is rewritten whole,
   * atomically, from the entries in memory.
   */
  private async save(path: string, entries: HistoryEntry[], line: LogLine): Promise<void> {
    const state = this.indexes.get(path) ?? { exists: false, lines: 0, rewrite: false };
    this.indexes.set(path, state);
    const file = this.indexPath(path);
    if (state.exists && !state.rewrite && state.lines < 4 * this.max + 1) {
      appendFileSync(file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
      state.lines++;
      return;
    }
    const lines = [
      JSON.stringify({ version: 3, path }),
      ...entries.map((entry) => JSON.stringify({ add: toStored(entry) } satisfies LogLine)),
    ];
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    if (!state.exists && createNew(file, bytes)) {
      // Created: no rename over an older file needed.
    } else await writeAtomic(file, bytes);
    Object.assign(state, { exists: true, lines: lines.length, rewrite: false });
  }

  private makeFolder(): void {
    if (this.folderMade) return;
    mkdirSync(join(this.stateDir!, 'history'), { recursive: true, mode: 0o700 });
    this.folderMade = true;
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
}

function toStored(entry: HistoryEntry): StoredEntry {
  const out: StoredEntry = { id: entry.id, existed: !entry.created, after: entry.after, at: entry.at };
  if (entry.tool !== undefined) out.tool = entry.tool;
  if (entry.set) out.set = entry.set;
  if (entry.deleted) out.deleted = entry.deleted;
  if (entry.reverse?.kind === 'file') {
    out.patch = entry.reverse.path;
    if (entry.reverse.size !== undefined) out.patchSize = entry.reverse.size;
    if (entry.reverse.hash !== undefined) out.patchHash = entry.reverse.hash;
  } else if (entry.reverse?.kind === 'memory') {
    out.spans = entry.reverse.spans.map((span) => ({ ...span, old: span.old.toString('base64') }));
  }
  return out;
}

function oldBytes(spans: readonly ReverseSpan[]): number {
  return spans.reduce((sum, span) => sum + span.old.length, 0);
}

function isStoredSpans(value: unknown): value is StoredSpan[] {
  const offset = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  return (
    Array.isArray(value) &&
    value.every(
      (span: Partial<StoredSpan> | null) =>
        typeof span === 'object' &&
        span !== null &&
        offset(span.newStart) &&
        offset(span.newLength) &&
        offset(span.oldStart) &&
        typeof span.old === 'string' &&
        /^[A-Za-z0-9+/]*={0,2}$/.test(span.old),
    )
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isFingerprint(value: unknown): value is Fingerprint {
  const fingerprint = value as Partial<Fingerprint> | undefined;
  return (
    typeof fingerprint === 'object' &&
    fingerprint !== null &&
    typeof fingerprint.hash === 'string' &&
    typeof fingerprint.size === 'number'
  );
}

/**
 * A new index, created exclusively, without fsync: a crash leaves it whole, cut short (the parser drops a cut
 * line) or empty (no history). False when another process made it first (then it is replaced whole).
 */
function createNew(target: string, bytes: Uint8Array): boolean {
  let fd: number;
  try {
    fd = openSync(target, 'wx', 0o600);
  } catch (error) {
    if (isErrno(error, 'EEXIST')) return false;
    throw error;
  }
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
  return true;
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
