/**
 * The streaming path as the tools use it: which files go through it (size at or above the threshold), and
 * for those, reading lines and preparing changes with memory bounded whatever the size. One Streamer per
 * tool set: it holds the line-index cache and the options.
 */
import type { BigIntStats } from 'node:fs';
import { constants, fstatSync, statSync, unlinkSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Diff } from '../../core/diff.js';
import { formatBytes } from '../../core/format-bytes.js';
import type { MatchTier } from '../../core/match.js';
import { type ProgressCallback, ProgressReporter } from '../../core/progress.js';
import { type Fingerprint, statFingerprint } from '../fingerprint.js';
import { isErrno, mapFsError, staleError } from '../fs-errors.js';
import {
  changedError,
  type FileIdentity,
  identityOf,
  type PinnedFolder,
  pinParent,
  pinsByDescriptor,
  sameIdentity,
} from '../guarded-open.js';
import { letGo, O_READ, removeAtExit, tempNameFor } from '../io.js';
import { type FileBase, rootOf } from '../read.js';
import { defaultPatchDir } from '../reverse-patch.js';
import { sweepDeadTemps } from '../temp-sweep.js';
import { DEFAULT_STREAM_THRESHOLD, MAX_STREAM_THRESHOLD } from './limits.js';
import { buildLineIndex, DEFAULT_INDEX_STRIDE, type LineIndex, LineIndexCache } from './read/line-index.js';
import { discardPrepared, type PreparedWrite } from './write/prepared.js';
import { diffSpans } from './write/span-diff.js';
import { type Span, type Until, writeWithSpans } from './write/span-writer.js';

/** Tuning shared by everything on the streaming path. Defaults suit production; tests shrink them. */
export interface StreamOptions {
  /** Bytes per read and write. Default 1 MiB. Tests use a few bytes to put matches across chunk borders. */
  chunkSize?: number;
  /** Bytes between line-index checkpoints (raised for very large files). Default 16 KiB. */
  indexStride?: number;
  onProgress?: ProgressCallback;
  /** Smallest file whose unchanged prefix the filesystem copies (a reflink). Default 8 MiB. */
  kernelCopyMin?: number;
  /** 'reflink' (default): only a shared-extent copy; 'copy': also copy_file_range (tests). */
  kernelCopy?: 'reflink' | 'copy';
}

export const DEFAULT_CHUNK_SIZE = 1 << 20;

export function chunkSizeOf(options: StreamOptions): number {
  const size = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  return Math.max(1, Math.floor(size));
}

export interface StreamerOptions extends StreamOptions {
  /** Files of at least this many bytes are streamed. Default 32 MiB; at most 256 MiB. */
  threshold?: number;
  /** Folder for reverse patches (undo). Default: a private folder in the OS temp folder. */
  patchDir?: string;
}

/** A file opened for the streaming path; close() it when done. */
export interface StreamFile {
  handle: FileHandle;
  path: string;
  display: string;
  /** The canonical root it lies in: its temp file is made through its pinned folder (guarded-open.ts). */
  root?: string;
  stats: BigIntStats;
  fingerprint: Fingerprint;
  size: number;
  close(): Promise<void>;
}

/**
 * What a tool plans against the file's bytes: spans to replace, in order. The spans may be found while
 * the file is written (they are read after the write, so a search can count them as it goes).
 */
export interface ChangePlan {
  spans: () => AsyncIterable<Span | Until> | Iterable<Span | Until>;
  replacements?: number;
  tier?: MatchTier;
  /** Keep a reverse patch so the change can be undone (an undo itself keeps none). */
  reversible: boolean;
  /** What to throw when the spans change nothing; without it, the change is a no-op. */
  noChange?: () => Error;
}

/** What a plan is made from: the open file, its line index, and where progress (and cancellation) goes. */
export interface PlanContext {
  handle: FileHandle;
  index: LineIndex;
  progress: ProgressReporter;
  display: string;
  chunkSize: number;
}

/** How an edit is planned on a huge file's bytes (edit_file's and edit_lines' plans, an undo's). */
export type StreamPlanner = (context: PlanContext) => Promise<ChangePlan>;

/** Thrown by a plan's spans to throw the write away and start again with another plan. */
export class Replan extends Error {
  constructor(readonly next: () => Promise<ChangePlan>) {
    super('replan');
  }
}

/** A streamed change, computed and prepared, for the workspace to hand on as a FileChange. */
export interface StreamedChange {
  /** The file as it was (never in memory): its fingerprint is a stat fingerprint. */
  base: FileBase;
  kind: 'modify' | 'noop';
  diff: Diff;
  stats: { added: number; removed: number };
  replacements?: number;
  tiers?: MatchTier[];
  /** null for a no-op. */
  prepared: PreparedWrite | null;
  /** For people and the model, e.g. that the diff shows only part of the change. */
  note?: string;
  /** Set when the diff shows only part of the change: see FileChange.partialDiff. */
  partialDiff?: PartialDiff;
}

/** A diff that shows only part of its change: how many places the change has, and how many the diff shows. */
export interface PartialDiff {
  places: number;
  shown: number;
  /** The file's size, for the message. */
  size: number;
}

/** Changed places kept for the preview diff. */
const DIFF_PLACES = 200;

export class Streamer {
  readonly threshold: number;
  readonly indexes = new LineIndexCache();
  readonly chunkSize: number;
  private readonly stride: number;
  /** Where reverse patches of streamed changes (and copies of deleted huge files) go. */
  readonly patchDir: string;

  constructor(private readonly options: StreamerOptions = {}) {
    this.threshold = Math.min(
      Math.max(1, options.threshold ?? DEFAULT_STREAM_THRESHOLD),
      MAX_STREAM_THRESHOLD,
    );
    this.chunkSize = chunkSizeOf(options);
    // Checkpoints no denser than every 64 chunks: tests with chunks of a few bytes get many of them.
    this.stride = options.indexStride ?? Math.min(DEFAULT_INDEX_STRIDE, 64 * this.chunkSize);
    this.patchDir = options.patchDir ?? defaultPatchDir();
  }

  /**
   * Whether a file of `size` bytes goes through this path. `prefer` overrides the size rule: 'stream' for a
   * file the session already handles by streaming (its ledger entry is a stat fingerprint), 'memory' for
   * one it holds a content hash of (if small enough).
   */
  wants(size: number, prefer?: 'stream' | 'memory'): boolean {
    if (prefer === 'stream') return true;
    if (prefer === 'memory') return size > MAX_STREAM_THRESHOLD;
    return size > 0 && size >= this.threshold;
  }

  /**
   * The file, open, if it exists and goes through this path (see `wants`); null otherwise (use the
   * normal path). A synchronous stat decides first, so a small file is never opened here.
   */
  async open(
    path: string,
    display: string,
    options: { prefer?: 'stream' | 'memory'; root?: string; identity?: FileIdentity } = {},
  ): Promise<StreamFile | null> {
    let size: number;
    try {
      const stats = statSync(path, { throwIfNoEntry: false });
      if (!stats?.isFile()) return null;
      size = stats.size;
    } catch (error) {
      throw mapFsError(error, { display, action: 'read' });
    }
    if (!this.wants(size, options.prefer)) return null;
    const place = { root: options.root, display };
    let handle: FileHandle;
    try {
      // Through the pinned folder, the name not followed (guarded-open.ts); the stat above only chose the path.
      const pinned = pinParent(path, place);
      if (!pinned) return null;
      try {
        handle = await open(pinned.folder.entry(basename(path)), O_READ | constants.O_NOFOLLOW);
      } finally {
        pinned.folder.close();
      }
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw mapFsError(isErrno(error, 'ELOOP') ? changedError(display) : error, { display, action: 'read' });
    }
    try {
      // The open file's own stats decide: the path may have been replaced since the stat above.
      const stats = fstatSync(handle.fd, { bigint: true });
      if (options.identity && !sameIdentity(identityOf(stats), options.identity)) throw changedError(display);
      if (!stats.isFile() || !this.wants(Number(stats.size), options.prefer)) {
        await handle.close();
        return null;
      }
      return {
        handle,
        path,
        display,
        ...rootOf(options.root),
        stats,
        fingerprint: statFingerprint(stats),
        size: Number(stats.size),
        close: () => handle.close().catch(() => {}),
      };
    } catch (error) {
      await handle.close().catch(() => {});
      throw mapFsError(error, { display, action: 'read' });
    }
  }

  /** Progress of work on `file`, which is also where a cancelled call stops (every pass reports per chunk). */
  progress(file: StreamFile, signal?: AbortSignal): ProgressReporter {
    return new ProgressReporter(this.options.onProgress, file.display, file.size, signal);
  }

  /** The line index of this version of the file: cached, or built in one pass (refusing non-UTF-8 text). */
  async index(
    file: StreamFile,
    encoding: string | undefined,
    progress: ProgressReporter,
  ): Promise<LineIndex> {
    const cached = this.indexes.get(file.path, file.fingerprint.hash);
    if (cached) return cached;
    const index = await buildLineIndex(file.handle, file.size, file.fingerprint.hash, {
      chunkSize: this.chunkSize,
      stride: this.stride,
      display: file.display,
      encoding,
      progress,
    });
    this.indexes.set(file.path, index);
    return index;
  }

  /**
   * Plans and prepares a change: the new content written to a temp file beside the target (bytes outside
   * the spans copied untouched), its reverse patch, and the preview diff. Nothing is visible until the gate
   * commits it (commit.ts).
   */
  async change(
    file: StreamFile,
    encoding: string | undefined,
    plan: StreamPlanner,
    signal?: AbortSignal,
  ): Promise<StreamedChange> {
    const progress = this.progress(file, signal);
    const index = await this.index(file, encoding, progress);
    const place = { root: file.root, display: file.display };
    // The temp file is made, written and read back through the file's folder held open (guarded-open.ts):
    // a folder on the way swapped for a link meanwhile cannot put it elsewhere.
    const pinned = pinParent(file.path, place);
    if (!pinned) throw staleError(file.display, 'deleted');
    const folder = pinned.folder;
    try {
      const change = await this.prepare(file, plan, progress, index, folder);
      // A prepared change holds the folder until it is committed or discarded (then closed there).
      if (!change.prepared) folder.close();
      return change;
    } catch (error) {
      folder.close();
      throw error;
    }
  }

  private async prepare(
    file: StreamFile,
    plan: StreamPlanner,
    progress: ProgressReporter,
    index: LineIndex,
    folder: PinnedFolder,
  ): Promise<StreamedChange> {
    // A streamed edit killed half way leaves a full-size copy: cleared before another is made.
    sweepDeadTemps(folder, { always: true });
    const tempName = tempNameFor(file.path);
    const tempPath = join(dirname(file.path), tempName);
    let planned = await plan({
      handle: file.handle,
      index,
      progress,
      display: file.display,
      chunkSize: this.chunkSize,
    });
    let result: Awaited<ReturnType<typeof writeWithSpans>>;
    // From its first byte until it is committed or discarded, the temp file is removed if the process exits
    // or is ended by a signal (exit-cleanup.ts) first.
    removeAtExit(tempPath, () => unlinkSync(folder.entry(tempName)));
    for (;;) {
      try {
        result = await writeWithSpans(file.handle, index, planned.spans(), {
          temp: folder.entry(tempName),
          owner: {
            uid: Number(file.stats.uid),
            gid: Number(file.stats.gid),
            mode: Number(file.stats.mode) & 0o7777,
          },
          chunkSize: this.chunkSize,
          patchDir: planned.reversible ? this.patchDir : null,
          keep: DIFF_PLACES,
          progress,
          // The file already open (no second open by name), where the system can name it so.
          sourcePath: pinsByDescriptor ? `/proc/self/fd/${file.handle.fd}` : file.path,
          kernelCopyMin: this.options.kernelCopyMin,
          kernelCopy: this.options.kernelCopy,
        });
        break;
      } catch (error) {
        // The writer threw its temp file away; the plan has another way (exact found nothing: tolerant).
        if (!(error instanceof Replan)) {
          letGo(tempPath);
          throw error;
        }
        planned = await error.next().catch((failed: unknown) => {
          letGo(tempPath);
          throw failed;
        });
      }
    }
    const prepared: PreparedWrite = {
      temp: tempPath,
      patch: result.patch,
      size: result.size,
      index: result.index,
      indexes: this.indexes,
      folder,
    };
    try {
      // The bytes the spans were planned on must be the bytes that were copied.
      if (statFingerprint(await file.handle.stat({ bigint: true })).hash !== file.fingerprint.hash) {
        throw staleError(file.display, 'changed');
      }
      const base = this.baseOf(file);
      if (!result.changed) {
        await discardPrepared(prepared);
        if (planned.noChange) throw planned.noChange();
        const none: Diff = { hunks: [], added: 0, removed: 0, identical: true };
        return { base, kind: 'noop', diff: none, stats: { added: 0, removed: 0 }, prepared: null };
      }
      const temp = await open(folder.entry(tempName), constants.O_RDONLY | constants.O_NOFOLLOW);
      // The commit renames only this very temp file.
      prepared.identity = identityOf(await temp.stat());
      let diff: Diff;
      let shownAll: boolean;
      try {
        ({ diff, shownAll } = await diffSpans(
          file.handle,
          index,
          temp,
          result.index,
          result.places,
          { ...result.rest, count: result.count - result.places.length },
          { chunkSize: this.chunkSize },
        ));
      } finally {
        await temp.close().catch(() => {});
      }
      const change: StreamedChange = {
        base,
        kind: 'modify',
        diff,
        stats: { added: diff.added, removed: diff.removed },
        replacements: planned.replacements,
        tiers: planned.tier ? [planned.tier] : undefined,
        prepared,
      };
      if (!shownAll) {
        change.note = `The diff shows only part of this change (${result.count} places in ${formatBytes(file.size)}); the line counts of the rest are estimates.`;
        change.partialDiff = { places: result.count, shown: result.places.length, size: file.size };
      }
      return change;
    } catch (error) {
      await discardPrepared(prepared);
      throw error;
    }
  }

  private baseOf(file: StreamFile): FileBase {
    return {
      path: file.path,
      exists: true,
      fingerprint: file.fingerprint,
      display: file.display,
      ...rootOf(file.root),
    };
  }
}
