/**
 * The one commit: every change to a file is written here, whatever holds its new content (text in
 * memory, a temp file prepared by streaming, or nothing: a deletion). Under the file lock, in this order:
 *
 * 1. the stale check: the file is still the version the change was computed from. Its stat token is the
 *    one its fingerprint was taken at and its bytes are still the ones the change was computed from (all
 *    of them for a file of up to 1 MiB, else the replaced ones and their neighbours, or for a streamed
 *    change the replaced spans); a token that moved means the whole file is hashed again (the same bytes
 *    under a new mtime are not a change); a file that did not exist still does not. Else STALE, nothing
 *    written.
 * 2. the new content made durable: text is written to a temp file beside the target (mode and owner
 *    copied) and fsynced; a prepared temp file already is, and so is a head start's (early-write.ts: written
 *    while the change was decided on; its mode and owner are copied again, and it is fsynced again, if the
 *    target's moved since).
 * 3. `verify()` (the guard's recheck of the path), the lock still held, and the call not cancelled: the
 *    last moment a change can be refused.
 * 4. rename over the target (link(2) for a new file, so it is created exclusively and appears whole;
 *    unlink for a deletion), then a folder fsync, during which the caller records the change
 *    (`whileFolderSyncs`); commitChange resolves once both are done.
 *
 * Every name is taken in the target's folder as pinned by guarded-open.ts (opened from the root, no link
 * followed): the stale check's open, the temp file, the rename or link, the folder fsync; right before the
 * rename the pinned folder must still be the one at the checked path.
 *
 * On any failure before step 4 the temp file is removed and the target is as it was. A written change
 * returns the new fingerprint (from an fstat of the new file itself, never a second read) and its reverse
 * patch: for text, the one span of bytes it replaced, found by comparing old and new bytes.
 */
import {
  type BigIntStats,
  constants,
  fchmodSync,
  fstatSync,
  linkSync,
  lstatSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname } from 'node:path';
import { cancelledError } from '../core/errors.js';
import { encodeText, type TextCodec } from '../core/text.js';
import { dropEarlyTemp, type EarlyTemp, type EarlyWrite } from './early-write.js';
import {
  contentFingerprint,
  type Fingerprint,
  isStatFingerprint,
  sha256,
  statFingerprint,
  statToken,
} from './fingerprint.js';
import { appearedError, isErrno, mapFsError, staleError } from './fs-errors.js';
import {
  assertStillAt,
  changedError,
  type GuardedPlace,
  identityOf,
  openIn,
  type PinnedFolder,
  pinParent,
  removeEmptyFolders,
  sameIdentity,
} from './guarded-open.js';
import {
  closeQuietly,
  copyOwner,
  letGo,
  O_READ,
  readAt,
  removeQuietly,
  syncFile,
  syncFolder,
  syncMadeFolders,
  tempNameFor,
  writeWhole,
} from './io.js';
import { type FileLock, type FileLockOptions, withFileLock } from './lock.js';
import { assertRegularFile, type FileBase, type Snapshot } from './read.js';
import { type ReversePatch, reverseRecords } from './reverse-patch.js';
import { discardPrepared, type LineIndexCache, type PreparedWrite, readRange } from './stream/index.js';
import { sweepDeadTemps } from './temp-sweep.js';

/** What a change puts in place of the file. */
export type NewContent =
  /**
   * New text, encoded with `codec` (the file's own, or, for an undo, the one it had before); `mode`: the
   * permission bits a file created by it gets (a moved file keeps its own).
   */
  | { type: 'text'; text: string; codec: TextCodec; mode?: number }
  /**
   * Exact bytes (putting back what something other than editgate replaced, e.g. a shell command, or a
   * file a change deleted); `mode`: the permission bits a file created by them gets.
   */
  | { type: 'bytes'; bytes: Uint8Array; mode?: number }
  /** A huge file's new content, already written and fsynced beside it by the streaming path. */
  | { type: 'prepared'; prepared: PreparedWrite }
  /** The file goes (undoing its creation). */
  | { type: 'delete' };

export interface CommitOptions {
  /** Called under the lock right before the rename; throws to abort (e.g. the guard's recheck). */
  verify?: () => Promise<void>;
  /** Where the advisory lock lives; see FileLockOptions. */
  lock?: FileLockOptions;
  /** A cancelled call writes nothing: checked up to the rename. */
  signal?: AbortSignal;
  /** Where a streamed file's new line index goes once it has its fingerprint. */
  indexes?: LineIndexCache;
  /**
   * A head start on exactly this content (early-write.ts): its temp file, already written and fsynced, is
   * renamed into place instead of writing one under the lock. Taken by the commit whatever happens after
   * the stale check; before that, whoever dropped the change discards it.
   */
  early?: EarlyWrite;
  /**
   * Work done while the folder fsync after the rename runs (the workspace records the change in history
   * and the ledger). commitChange still resolves only once both are done: a change is durable before
   * anyone hears it was written.
   */
  whileFolderSyncs?: (written: Written) => Promise<void>;
}

export interface Written {
  /** The new file's fingerprint; null for a deletion. */
  fingerprint: Fingerprint | null;
  /** How to put back what the change replaced; null when nothing can be (a creation, a deletion, an undo). */
  reverse: ReversePatch | null;
}

/** The base of a change to text: the file as a Snapshot (its text tells which bytes the change replaces). */
export type CommitBase = FileBase | Snapshot;

/**
 * Writes `content` over `base.path` if the file is still the version `base` describes; otherwise STALE and
 * nothing is written. See the top of this file for the order of things.
 */
export async function commitChange(
  base: CommitBase,
  content: NewContent,
  options: CommitOptions = {},
): Promise<Written> {
  if (options.signal?.aborted) throw cancelledError();
  if (content.type === 'text' || content.type === 'bytes') {
    const bytes =
      content.type === 'bytes'
        ? content.bytes
        : // Refused here (ENCODING) before anything is touched.
          (options.early?.bytes ?? encodeText(content.text, content.codec));
    const { written, durable } = await commitBytes(base, bytes, options, content.mode);
    try {
      await options.whileFolderSyncs?.(written);
    } finally {
      await durable;
    }
    return written;
  }
  const written =
    content.type === 'prepared'
      ? await commitPrepared(base, content.prepared, options)
      : await commitDeletion(base, options);
  await options.whileFolderSyncs?.(written);
  return written;
}

/** The bytes of a text base: as read when the Snapshot kept them, else its text encoded again (exactly). */
export function oldBytes(base: CommitBase): Buffer | null {
  if (!('text' in base) || !base.exists) return null;
  return base.bytes ?? encodeText(base.text, base.codec);
}

/** Bytes [start, oldEnd) of the old content became [start, newEnd) of the new one; the rest is the same. */
export interface Window {
  start: number;
  oldEnd: number;
  newEnd: number;
}

/**
 * Writes the bytes; resolves once they are renamed into place, with `durable`: the folder fsync that makes
 * the rename survive a power loss, still running (it never rejects; it closes the folder when done).
 */
async function commitBytes(
  base: CommitBase,
  bytes: Uint8Array,
  options: CommitOptions,
  mode?: number,
): Promise<{ written: Written; durable: Promise<void> }> {
  const { path, display } = base;
  const place = placeOf(base);
  const name = basename(path);
  const old = oldBytes(base);
  const window = old
    ? changedWindow(old, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    : null;
  let hash: string | undefined;
  let folder: PinnedFolder | undefined;
  let temp: string | undefined;
  let fd: number | undefined;
  let createdFolder: string | undefined;
  let committed = false;
  let early: EarlyTemp | null = null;
  let durable: Promise<void> | undefined;
  try {
    const stats = await withFileLock(
      path,
      async (lock) => {
        // Every name below is taken in this folder as opened from the root (guarded-open.ts).
        const pinned = pinParent(path, place, { create: !base.exists });
        if (!pinned) throw staleError(display, 'deleted');
        folder = pinned.folder;
        createdFolder = pinned.created;
        const current = await checkBase(base, folder, old && window ? { bytes: old, window } : null);
        early = (await options.early?.take()) ?? null;
        if (early && !sameFolder(early.folder, folder)) {
          // Made in a folder that is no longer the one at this path: not this change's to rename.
          dropEarlyTemp(early);
          early = null;
        }
        if (early) {
          // Written and fsynced while the change was decided on; only the owner may have moved since.
          temp = early.name;
          fd = early.fd;
          hash = early.hash;
          if (current && ownerMoved(early.ownerFrom, current)) {
            copyOwner(fd, current);
            await syncFile(fd);
          }
        } else {
          temp = tempNameFor(path);
          // A new file gets the usual 0666 minus umask; a replacement starts private and gets the old mode.
          fd = openIn(
            folder,
            temp,
            constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
            place,
            current ? 0o600 : 0o666,
          );
          await writeWhole(fd, bytes);
          if (current) copyOwner(fd, current);
          else if (mode !== undefined) fchmodSync(fd, mode & 0o777);
          // The hash is needed only once the file is written: worked out while the disk flushes.
          const synced = syncFile(fd);
          hash = sha256(bytes);
          await synced;
        }
        await beforeIrreversible(options, lock, folder, place);
        if (base.exists) {
          renameSync(folder.entry(temp), folder.entry(name));
        } else {
          try {
            linkSync(folder.entry(temp), folder.entry(name));
          } catch (error) {
            if (isErrno(error, 'EEXIST')) throw appearedError(display);
            throw error;
          }
          unlinkSync(folder.entry(temp));
        }
        temp = undefined;
        committed = true;
        // After the rename or link and unlink: the token of the file as it now stands (both move its ctime).
        const written = fstatSync(fd, { bigint: true });
        closeQuietly(fd);
        fd = undefined;
        // The folder fsync runs on while the change is recorded (whileFolderSyncs); the lock is not needed
        // for it: another writer's rename in this folder is made durable by its own fsync.
        const synced = folder;
        durable = syncFolder(synced)
          .then(() => syncMadeFolders(dirname(path), createdFolder))
          .catch(() => {})
          .finally(() => synced.close());
        return written;
      },
      { ...options.lock, canonical: true },
    );
    if (folder) sweepDeadTemps(folder);
    const fingerprint = contentFingerprint(bytes, stats, hash ?? sha256(bytes));
    const reverse: ReversePatch | null = old && window ? replacedSpan(old, window) : null;
    return { written: { fingerprint, reverse }, durable: durable ?? Promise.resolve() };
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    if (temp && folder) removeQuietly(folder.entry(temp));
    if (!committed && createdFolder) removeEmptyFolders(dirname(path), createdFolder, place);
    throw mapFsError(error, { display, action: base.exists ? 'write' : 'create' });
  } finally {
    // The commit took the head start's temp file (renamed or removed above): its own folder and exit entry go.
    const taken = early as EarlyTemp | null;
    if (taken) {
      letGo(taken.exitKey);
      taken.folder.close();
    }
    // Once the rename is done, the folder fsync still running closes it.
    if (!durable) folder?.close();
  }
}

/** Both pinned folders are the same folder (false when either cannot tell). */
function sameFolder(a: PinnedFolder, b: PinnedFolder): boolean {
  try {
    return sameIdentity(a.identity(), b.identity());
  } catch {
    return false;
  }
}

/** The target's mode or owner is not the one a head start's temp file copied. */
function ownerMoved(copied: BigIntStats, current: BigIntStats): boolean {
  return (
    (copied.mode & 0o7777n) !== (current.mode & 0o7777n) ||
    copied.uid !== current.uid ||
    copied.gid !== current.gid
  );
}

async function commitPrepared(
  base: CommitBase,
  prepared: PreparedWrite,
  options: CommitOptions,
): Promise<Written> {
  const { path, display } = base;
  const place = placeOf(base);
  let committed = false;
  let folder: PinnedFolder | undefined;
  try {
    const fingerprint = await withFileLock(
      path,
      async (lock) => {
        const pinned = pinParent(path, place);
        if (!pinned) throw staleError(display, 'deleted');
        folder = pinned.folder;
        await checkBase(
          base,
          folder,
          prepared.patch ? { patch: { kind: 'file', path: prepared.patch } } : null,
        );
        await beforeIrreversible(options, lock, folder, place);
        // The temp file is where the streaming path made it: in this very folder, held open since.
        const made = prepared.folder ?? folder;
        if (!sameIdentity(made.identity(), folder.identity())) throw changedError(display);
        // Held open across the rename: its fstat afterwards is the new file's fingerprint (rename moves ctime).
        const tempName = basename(prepared.temp);
        const temp = openIn(made, tempName, O_READ, place);
        try {
          // Only the very temp file the streaming path made and diffed is renamed into place.
          const stats = fstatSync(temp, { bigint: true });
          if (prepared.identity && !sameIdentity(identityOf(stats), prepared.identity))
            throw changedError(display);
          renameSync(made.entry(tempName), folder.entry(basename(path)));
          committed = true;
          letGo(prepared.temp);
          prepared.folder?.close();
          await syncFolder(folder);
          return statFingerprint(fstatSync(temp, { bigint: true }));
        } finally {
          closeQuietly(temp);
        }
      },
      { ...options.lock, canonical: true },
    );
    if (folder) sweepDeadTemps(folder);
    (options.indexes ?? prepared.indexes)?.set(path, { ...prepared.index, key: fingerprint.hash });
    return { fingerprint, reverse: prepared.patch ? { kind: 'file', path: prepared.patch } : null };
  } catch (error) {
    if (!committed) await discardPrepared(prepared);
    throw mapFsError(error, { display, action: 'write' });
  } finally {
    folder?.close();
  }
}

async function commitDeletion(base: CommitBase, options: CommitOptions): Promise<Written> {
  const { path, display } = base;
  const place = placeOf(base);
  let folder: PinnedFolder | undefined;
  try {
    await withFileLock(
      path,
      async (lock) => {
        const pinned = pinParent(path, place);
        if (!pinned) throw staleError(display, 'deleted');
        folder = pinned.folder;
        // A deletion replaces every byte: all of them must still be the ones the change was computed from.
        const old = 'text' in base && base.exists ? encodeText(base.text, base.codec) : null;
        await checkBase(
          base,
          folder,
          old ? { bytes: old, window: { start: 0, oldEnd: old.length, newEnd: 0 } } : null,
        );
        await beforeIrreversible(options, lock, folder, place);
        unlinkSync(folder.entry(basename(path)));
        await syncFolder(folder);
      },
      { ...options.lock, canonical: true },
    );
    return { fingerprint: null, reverse: null };
  } catch (error) {
    throw mapFsError(error, { display, action: 'delete' });
  } finally {
    folder?.close();
  }
}

/** Where the commit walks from: the base's root (guarded-open.ts). */
function placeOf(base: FileBase): GuardedPlace {
  return { root: base.root, display: base.display };
}

/** What the replaced bytes were: old bytes and the window a text change replaced, or a streamed patch. */
export type Replaced = { bytes: Buffer; window: Window } | { patch: ReversePatch };

/** Files up to this size are compared whole under the lock. */
const WHOLE_CHECK_BYTES = 1 << 20;
/** Bytes compared beside a replaced window: an insertion replaces nothing, its neighbours still count. */
const CHECK_MARGIN = 64;
/** The streaming path compares at most this much of the replaced spans (the first 10,000 spans). */
const SPAN_CHECK_BYTES = 64 << 20;
const SPAN_CHECK_RECORDS = 10_000;

/** The target's stats when it still is what `base` describes (null: it still does not exist); STALE otherwise. */
export async function checkBase(
  base: FileBase,
  folder: PinnedFolder,
  replaced: Replaced | null,
): Promise<BigIntStats | null> {
  const display = base.display;
  const name = basename(base.path);
  if (!base.exists) {
    try {
      lstatSync(folder.entry(name));
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw error;
    }
    throw appearedError(display);
  }
  const expected = base.fingerprint;
  let fd: number;
  try {
    fd = openIn(folder, name, O_READ, placeOf(base));
  } catch (error) {
    if (isErrno(error, 'ENOENT')) throw staleError(display, 'deleted');
    throw error;
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    assertRegularFile(stats, display);
    if (!expected) throw staleError(display, 'changed');
    if (expected.stat !== undefined && statToken(stats) === expected.stat) {
      // The version that was hashed; the replaced bytes must still be there (a coarse clock can hide a write).
      if (replaced && !(await stillThere(fd, Number(stats.size), replaced)))
        throw staleError(display, 'changed');
      return stats;
    }
    // Another token. A streamed file is its token; a file held in memory is its bytes (a touch is no change).
    if (isStatFingerprint(expected) || Number(stats.size) !== expected.size)
      throw staleError(display, 'changed');
    if (sha256(await readAt(fd, 0, expected.size)) !== expected.hash) throw staleError(display, 'changed');
    return stats;
  } finally {
    closeQuietly(fd);
  }
}

async function stillThere(fd: number, size: number, replaced: Replaced): Promise<boolean> {
  if ('bytes' in replaced) {
    const { bytes, window } = replaced;
    if (size !== bytes.length) return false;
    // A file of up to WHOLE_CHECK_BYTES is compared whole (one read and a memcmp, no hash: tens of
    // microseconds), so no change to it can pass, whatever the clock; a larger one around the window.
    const whole = bytes.length <= WHOLE_CHECK_BYTES;
    const from = whole ? 0 : Math.max(0, window.start - CHECK_MARGIN);
    const to = whole ? bytes.length : Math.min(bytes.length, window.oldEnd + CHECK_MARGIN);
    return (await readAt(fd, from, to - from)).equals(bytes.subarray(from, to));
  }
  let budget = SPAN_CHECK_BYTES;
  let records = 0;
  for await (const record of reverseRecords(replaced.patch)) {
    const length = Math.min(record.old.length, budget);
    if (length === 0) continue;
    if (record.oldStart + length > size) return false;
    const expected = Buffer.isBuffer(record.old)
      ? record.old.subarray(0, length)
      : await readRange(record.old.handle, record.old.offset, length);
    if (!(await readAt(fd, record.oldStart, length)).equals(expected)) return false;
    budget -= length;
    if (budget <= 0 || ++records >= SPAN_CHECK_RECORDS) break;
  }
  return true;
}

/** The one window where two byte strings differ, found with native compares of whole blocks. */
/**
 * The reverse patch of replacing `old` by new bytes that differ from it in `window` (changedWindow): the
 * one span of old bytes, kept so undo can put it back.
 */
export function replacedSpan(old: Buffer, window: Window): ReversePatch {
  return {
    kind: 'memory',
    spans: [
      {
        newStart: window.start,
        newLength: window.newEnd - window.start,
        oldStart: window.start,
        old: Buffer.from(old.subarray(window.start, window.oldEnd)),
      },
    ],
  };
}

export function changedWindow(old: Buffer, bytes: Buffer): Window {
  const limit = Math.min(old.length, bytes.length);
  const start = commonPrefix(old, bytes, limit);
  const suffix = commonSuffix(old, bytes, limit - start);
  return { start, oldEnd: old.length - suffix, newEnd: bytes.length - suffix };
}

const BLOCK = 4096;

function commonPrefix(a: Buffer, b: Buffer, limit: number): number {
  let at = 0;
  while (at < limit) {
    const end = Math.min(limit, at + BLOCK);
    if (a.compare(b, at, end, at, end) !== 0) {
      while (a[at] === b[at]) at++;
      return at;
    }
    at = end;
  }
  return limit;
}

function commonSuffix(a: Buffer, b: Buffer, limit: number): number {
  let length = 0;
  while (length < limit) {
    const step = Math.min(limit - length, BLOCK);
    const aEnd = a.length - length;
    const bEnd = b.length - length;
    if (a.compare(b, bEnd - step, bEnd, aEnd - step, aEnd) !== 0) {
      while (a[a.length - 1 - length] === b[b.length - 1 - length]) length++;
      return length;
    }
    length += step;
  }
  return limit;
}

async function beforeIrreversible(
  options: CommitOptions,
  lock: FileLock,
  folder: PinnedFolder,
  place: GuardedPlace,
): Promise<void> {
  await options.verify?.();
  // The folder written in is still the one at the checked path (not moved away since it was pinned).
  assertStillAt(folder, place);
  lock.assertHeld();
  if (options.signal?.aborted) throw cancelledError();
}
