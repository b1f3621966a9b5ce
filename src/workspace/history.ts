import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EditgateError, isEditgateError } from '../core/errors.js';
import type { CommitOptions, FileBase, Fingerprint } from './files.js';
import { commitBytes, deleteFile } from './files.js';
import { isStatFingerprint } from './fingerprint.js';
import { isErrno } from './fs-errors.js';
import { Streamer } from './stream/streamer.js';
import { undoStreamed } from './stream/undo.js';
import { keepPatch, removePatch } from './stream/write/reverse-patch.js';

export interface HistoryEntry {
  id: string;
  /** The bytes before the change; null: the file did not exist (undo deletes it), or see `patch`. */
  before: Buffer | null;
  /**
   * A streamed change to a huge file keeps a reverse patch file (stream/undo-patch.ts) instead of the
   * bytes: undo applies it to the file as editgate left it.
   */
  patch?: string;
  /** What editgate wrote: undo only goes ahead while the file still has this hash. */
  after: Fingerprint;
  tool?: string;
  /** When the change was recorded (epoch ms). */
  at: number;
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

export interface UndoOptions extends CommitOptions {
  display?: string;
}

export interface UndoResult {
  entry: HistoryEntry;
  /** The restored file's fingerprint; null when undo deleted a file editgate had created. */
  fingerprint: Fingerprint | null;
}

/** An entry as kept: `before` may live only on disk until needed. */
interface Stored {
  id: string;
  existed: boolean;
  after: Fingerprint;
  tool?: string;
  at: number;
  before?: Buffer;
  /** `before` is saved in the state folder. */
  onDisk?: boolean;
  /** Path of the reverse patch of a streamed change. */
  patch?: string;
}

interface IndexFile {
  version: 1;
  path: string;
  entries: Omit<Stored, 'before' | 'onDisk'>[];
}

/**
 * Undo history per canonical path: storage and order only. Calls for one path run in the order they were
 * made, so a caller that does not await (record, then pop) still sees them in order.
 */
export class History {
  private readonly stateDir: string | undefined;
  private readonly max: number;
  private readonly onError: (error: unknown) => void;
  private readonly files = new Map<string, Stored[]>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private streamer: Streamer | undefined;

  constructor(options: HistoryOptions = {}) {
    this.stateDir = options.stateDir;
    this.max = Math.max(1, options.maxEntriesPerFile ?? 20);
    this.onError =
      options.onError ?? ((error) => process.emitWarning(`editgate history: ${describe(error)}`));
  }

  /** Remember how to restore `path` to `before` after a change that left it as `after`. */
  record(
    path: string,
    change: { before: Buffer | null; after: Fingerprint; tool?: string; patch?: string },
  ): Promise<void> {
    return this.queue(path, async () => {
      const entries = await this.load(path);
      const entry: Stored = {
        id: randomUUID(),
        existed: change.before !== null || change.patch !== undefined,
        after: change.after,
        tool: change.tool,
        at: Date.now(),
        before: change.before ?? undefined,
        patch: change.patch,
      };
      // A history kept on disk keeps the patch past this process too.
      if (change.patch && this.stateDir) keepPatch(change.patch);
      entries.push(entry);
      const dropped = entries.splice(0, Math.max(0, entries.length - this.max));
      if (this.stateDir) {
        try {
          for (const stored of entries) {
            if (stored.before && !stored.onDisk) {
              await writeAtomic(this.blobPath(path, stored.id), stored.before);
              stored.onDisk = true;
            }
          }
          await this.saveIndex(path, entries);
        } catch (error) {
          this.onError(error);
        }
        // Memory keeps only the latest entry's bytes; older ones load from disk when undo reaches them.
        for (const stored of entries) if (stored !== entry && stored.onDisk) stored.before = undefined;
        for (const old of dropped) await this.removeBlob(path, old);
      } else {
        for (const old of dropped) if (old.patch) await removePatch(old.patch);
      }
    });
  }

  /** The latest change to `path`, or undefined when there is nothing to undo. */
  peek(path: string): Promise<HistoryEntry | undefined> {
    return this.queue(path, () => this.latest(path));
  }

  /**
   * Remove the latest change (after it has been undone); returns what it described, without the bytes.
   * `now`: the fingerprint of the file the undo wrote. The entry below describes that content; if it holds
   * a stat fingerprint (a streamed change, stream/fingerprint.ts), that is moved to the rewritten file.
   */
  pop(path: string, now?: Fingerprint): Promise<Omit<HistoryEntry, 'before'> | undefined> {
    return this.queue(path, async () => {
      const entries = await this.load(path);
      const popped = entries.pop();
      if (!popped) return undefined;
      const below = entries.at(-1);
      if (now && below && isStatFingerprint(below.after)) below.after = now;
      if (this.stateDir) {
        await this.saveIndex(path, entries).catch((error) => this.onError(error));
        await this.removeBlob(path, popped);
      } else if (popped.patch) await removePatch(popped.patch);
      return { id: popped.id, after: popped.after, tool: popped.tool, at: popped.at, patch: popped.patch };
    });
  }

  /** How many changes to `path` can be undone. */
  depth(path: string): Promise<number> {
    return this.queue(path, async () => (await this.load(path)).length);
  }

  /**
   * Put back the content from before the latest change, if the file still holds what editgate wrote
   * (else STALE, nothing written). Repeated calls walk further back.
   */
  async undo(path: string, options: UndoOptions = {}): Promise<UndoResult> {
    const { display, ...commit } = options;
    const file = display ?? 'the file';
    const entry = await this.peek(path);
    if (!entry) {
      throw new EditgateError(
        'NOTHING_TO_UNDO',
        `There is nothing to undo for ${file}: editgate has no earlier version of it.`,
        { path: display },
      );
    }
    // The write's own check (under the file lock) compares the file with what editgate wrote: one read.
    const base: FileBase = { path, exists: true, fingerprint: entry.after, display };
    let fingerprint: Fingerprint | null = null;
    try {
      if (entry.patch) {
        this.streamer ??= new Streamer();
        fingerprint = await undoStreamed(
          this.streamer,
          path,
          { patch: entry.patch, after: entry.after },
          options,
        );
      } else if (entry.before === null) await deleteFile(base, commit);
      else fingerprint = (await commitBytes(base, entry.before, commit)).fingerprint;
    } catch (error) {
      if (!isEditgateError(error, 'STALE')) throw error;
      const deleted = error.details.reason === 'deleted';
      throw new EditgateError(
        'STALE',
        `${capitalise(file)} has ${deleted ? 'been deleted' : 'changed'} since editgate last wrote it, so undo would throw those changes away; nothing was written. Read it and make the change you want by hand.`,
        { path: display, reason: deleted ? 'deleted' : 'changed' },
      );
    }
    await this.pop(path, fingerprint ?? undefined);
    return { entry, fingerprint };
  }

  private async latest(path: string): Promise<HistoryEntry | undefined> {
    const entries = await this.load(path);
    for (;;) {
      const top = entries.at(-1);
      if (!top) return undefined;
      if (!top.existed || top.patch) return publicEntry(top, null);
      if (!top.before && this.stateDir) {
        try {
          top.before = await readFile(this.blobPath(path, top.id));
        } catch (error) {
          // A lost blob cannot be undone; drop the entry. The one below is still guarded by its hash.
          this.onError(error);
          entries.pop();
          await this.saveIndex(path, entries).catch((e) => this.onError(e));
          continue;
        }
      }
      return publicEntry(top, top.before ?? null);
    }
  }

  private async load(path: string): Promise<Stored[]> {
    let entries = this.files.get(path);
    if (entries) return entries;
    entries = [];
    if (this.stateDir) {
      try {
        const index = JSON.parse(await readFile(this.indexPath(path), 'utf8')) as IndexFile;
        // The name is a hash: check the path too rather than trust it.
        if (index.version === 1 && index.path === path && Array.isArray(index.entries)) {
          entries = index.entries.map((e) => ({ ...e, onDisk: e.existed && !e.patch }));
        }
      } catch (error) {
        if (!isErrno(error, 'ENOENT')) this.onError(error);
      }
    }
    this.files.set(path, entries);
    return entries;
  }

  private async saveIndex(path: string, entries: Stored[]): Promise<void> {
    if (entries.length === 0) {
      await unlink(this.indexPath(path)).catch((error) => {
        if (!isErrno(error, 'ENOENT')) throw error;
      });
      return;
    }
    const index: IndexFile = {
      version: 1,
      path,
      entries: entries.map(({ before: _before, onDisk: _onDisk, ...rest }) => rest),
    };
    await writeAtomic(this.indexPath(path), Buffer.from(JSON.stringify(index)));
  }

  private async removeBlob(path: string, entry: Stored): Promise<void> {
    if (entry.patch) await removePatch(entry.patch);
    if (!this.stateDir || !entry.onDisk) return;
    await unlink(this.blobPath(path, entry.id)).catch((error) => {
      if (!isErrno(error, 'ENOENT')) this.onError(error);
    });
  }

  private indexPath(path: string): string {
    return join(this.stateDir!, 'history', `${key(path)}.json`);
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

function publicEntry(stored: Stored, before: Buffer | null): HistoryEntry {
  const entry: HistoryEntry = {
    id: stored.id,
    before,
    after: stored.after,
    tool: stored.tool,
    at: stored.at,
  };
  if (stored.patch) entry.patch = stored.patch;
  return entry;
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

function capitalise(text: string): string {
  return text.startsWith('the ') ? `T${text.slice(1)}` : text;
}
