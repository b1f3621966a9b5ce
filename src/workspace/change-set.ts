/**
 * The commit of a change set: several files written all or nothing (issue #16). commit.ts's pieces, in
 * this order, with every file's lock held (taken in path order, so two sets never wait on each other):
 *
 * 1. every file's stale check (commit.ts's checkBase): one stale file refuses the set, nothing written;
 * 2. the journal (change-set-journal.ts) written and fsynced in the state folder, naming every temp file
 *    and kept original before either exists;
 * 3. every new content written to its temp file beside its target and fsynced;
 * 4. every file's `verify()` (the guard's recheck), locks still held, call not cancelled;
 * 5. every file's old content kept by a hard link (`.orig`; made only now, as the guard refuses a file with
 *    a second link), then every folder of the set fsynced (and the parents of folders made for created
 *    files): the temp files and kept originals are durable before anything is renamed;
 * 6. in turn for each file the rename (link for a created file, unlink for a deleted one); if one fails,
 *    every file touched is put back from its kept original, and the error says so;
 * 7. folders fsynced, then the journal marked committed: the commit point. Then the kept originals go
 *    (a process killed before that leaves them to the next one, which rolls the set forward).
 *
 * A process killed between 2 and 7 leaves the journal: the next editgate process in that root rolls the
 * set back before it writes anything, so every file is old or every file is new.
 *
 * Why a power loss is covered too (what each fsync is for; no step relies on the order in which un-synced
 * metadata reaches the disk):
 * - Before the first rename, durable: the journal (its data, and its name: the journal folder fsynced, and
 *   that folder's parents when it was made now), every temp file's data (step 3) and every temp file's and
 *   kept original's name (the folder fsyncs of step 5). So whichever renames of step 6 survive, in any
 *   combination, the journal is there and names originals and temps that are: a rollback renames each
 *   original back over its file (a no-op when the rename did not survive), removes a created file that is
 *   still a link of its temp, and removes the temps. A journal not yet durable means no rename happened.
 * - The commit point (the `.done` rename, its folder fsynced) comes after the renames' folders are fsynced:
 *   a journal marked committed is only ever seen beside a set that is on the disk whole; rolling it forward
 *   only removes kept originals and temp names (which a power loss may bring back: removing them again is
 *   idempotent).
 * - A rollback or roll forward fsyncs the set's folders before it removes the journal, so the journal
 *   never goes before what it undid is durable.
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
import { basename, dirname, join } from 'node:path';
import { cancelledError, EditgateError } from '../core/errors.js';
import { encodeText } from '../core/text.js';
import {
  finishJournal,
  type JournalEntry,
  markCommitted,
  removeJournal,
  rollBack,
  syncFolders,
  writeJournal,
  writtenStat,
} from './change-set-journal.js';
import {
  type CommitBase,
  type CommitOptions,
  changedWindow,
  checkBase,
  type NewContent,
  oldBytes,
  type Replaced,
  type Written,
} from './commit.js';
import { contentFingerprint, sha256, statFingerprint } from './fingerprint.js';
import { appearedError, isErrno, mapFsError, staleError } from './fs-errors.js';
import {
  assertStillAt,
  type GuardedPlace,
  openIn,
  type PinnedFolder,
  pinParent,
  removeEmptyFolders,
} from './guarded-open.js';
import {
  closeQuietly,
  copyOwner,
  letGo,
  O_READ,
  removeQuietly,
  syncFile,
  syncFolder,
  syncMadeFolders,
  tempNameFor,
  writeWhole,
} from './io.js';
import { type FileLock, withFileLock } from './lock.js';
import { discardPrepared } from './stream/index.js';
import { sweepDeadTemps } from './temp-sweep.js';

/** One file of a change set: the file as it was, and what takes its place. */
export interface SetMember {
  base: CommitBase;
  content: NewContent;
  /** Called under the locks right before the first rename; throws to refuse the whole set. */
  verify?: () => Promise<void>;
}

export interface ChangeSetOptions extends Omit<CommitOptions, 'verify'> {
  /** The folder of change-set journals (in the state folder). */
  journalDir: string;
  /**
   * Told each step as it is done (`checked`, `journal`, `temps`, `originals`, `durable`, `renamed:<i>` in
   * path order, `renames-durable`, `committed`): how the crash tests stop a process at every step.
   */
  onStep?: (step: string) => void;
}

/** One member on its way: its bytes, temp file, kept original, and what the rollback needs. */
interface Staged {
  member: SetMember;
  display: string | undefined;
  kind: JournalEntry['kind'];
  bytes?: Uint8Array;
  replaced: Replaced | null;
  /** Where the file's name is taken: its folder pinned from the root under the locks (guarded-open.ts). */
  place: GuardedPlace;
  folder?: PinnedFolder;
  /** Absolute names, for the journal (a rollback by another process); in this one, `folder` holds them. */
  temp?: string;
  /** The temp file, open: its fstat after the rename is the new file's fingerprint. */
  fd?: number;
  orig?: string;
  createdFolder?: string;
  /** The kept original is linked (so a rollback must put it back and remove it). */
  origLinked?: boolean;
  current?: BigIntStats | null;
  hash?: string;
  /** What the journal records as written (change-set-journal.ts JournalEntry.wrote). */
  wrote?: string;
  renamed: boolean;
}

/**
 * Writes every member all or nothing; returns what each wrote, in the members' order. STALE (or any other
 * refusal) before the renames: nothing written. A rename failing part way: every file put back, and an IO
 * error naming the file that failed and saying that nothing of the set was written.
 */
export async function commitChanges(
  members: readonly SetMember[],
  options: ChangeSetOptions,
): Promise<Written[]> {
  if (options.signal?.aborted) throw cancelledError();
  const paths = new Set<string>();
  for (const { base } of members) {
    if (paths.has(base.path)) throw new Error(`a change set names ${base.display ?? base.path} twice`);
    paths.add(base.path);
  }
  // Refused here (ENCODING) before anything is touched.
  const staged = members.map(stage);
  const order = [...staged].sort((a, b) => (a.member.base.path < b.member.base.path ? -1 : 1));
  const step = options.onStep ?? (() => {});
  try {
    await withLocks(order, options, async (locks) => {
      for (const item of order) item.current = await checked(item);
      step('checked');
      // The journal first, naming every temp file and kept original before any exists: a process killed
      // from here on leaves nothing the next one cannot find.
      for (const item of order) nameFiles(item);
      const journal = await writeJournal(options.journalDir, order.map(entryOf));
      step('journal');
      try {
        for (const item of order) await writeTemp(item);
        step('temps');
        const folders = new Map(order.map((item) => [item.folder!.path, item.folder!]));
        for (const item of order) await item.member.verify?.();
        // Each folder written in is still the one at its checked path (not moved away since it was pinned).
        for (const item of order) assertStillAt(item.folder!, item.place);
        for (const lock of locks) lock.assertHeld();
        if (options.signal?.aborted) throw cancelledError();
        // Every kept original linked before the first rename (the guard's recheck above refuses a file with
        // a second link, so not earlier), then every folder of the set fsynced: from here on the temp files
        // (their data fsynced by writeTemp) and the kept originals survive a power loss, so whatever part of
        // the renames below reaches the disk, a rollback finds all it needs.
        for (const item of order) keepOriginal(item);
        step('originals');
        for (const folder of folders.values()) await syncFolder(folder);
        for (const item of order) await syncMadeFolders(dirname(item.member.base.path), item.createdFolder);
        step('durable');
        for (const [i, item] of order.entries()) {
          renameInto(item);
          step(`renamed:${i}`);
        }
        // The renames durable before the commit point: a set marked committed is on the disk whole.
        for (const folder of folders.values()) await syncFolder(folder);
        step('renames-durable');
      } catch (error) {
        const renamed = order.filter((item) => item.renamed || item.origLinked);
        const { failed } = rollBack(renamed.map(entryOf));
        if (failed.length > 0) {
          // The journal stays: the next process tries again.
          throw new EditgateError(
            'IO',
            `${describeFailure(error)} Putting the files back failed for ${failed.join(', ')}; the next editgate process in this workspace tries again.`,
            { failed },
          );
        }
        for (const item of renamed) {
          item.renamed = false;
          item.origLinked = false;
        }
        // What the rollback put back is durable before the journal that could redo it goes.
        await syncFolders(renamed.map(entryOf));
        await removeJournal(journal);
        throw error;
      }
      // The commit point; then what only a rollback needed goes.
      const committed = await markCommitted(journal);
      step('committed');
      await finishJournal(committed);
      for (const item of order) item.orig = undefined;
    });
  } catch (error) {
    // Kept originals a failed rollback still needs stay for the next process.
    const keepOriginals = error instanceof EditgateError && 'failed' in error.details;
    for (const item of staged) cleanUp(item, keepOriginals);
    throw setError(error, staged);
  }
  return staged.map(written);
}

function stage(member: SetMember): Staged {
  const { base, content } = member;
  const item: Staged = {
    member,
    display: base.display,
    kind: content.type === 'delete' ? 'delete' : base.exists ? 'modify' : 'create',
    replaced: null,
    place: { root: base.root, display: base.display },
    renamed: false,
  };
  if (content.type === 'prepared') {
    item.temp = content.prepared.temp;
    if (content.prepared.patch) item.replaced = { patch: { kind: 'file', path: content.prepared.patch } };
    return item;
  }
  const old = oldBytes(base);
  if (content.type === 'text' || content.type === 'bytes') {
    const bytes = content.type === 'text' ? encodeText(content.text, content.codec) : content.bytes;
    item.bytes = bytes;
    if (old)
      item.replaced = {
        bytes: old,
        window: changedWindow(old, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
      };
  } else if (old) {
    // A deletion replaces every byte.
    item.replaced = { bytes: old, window: { start: 0, oldEnd: old.length, newEnd: 0 } };
  }
  return item;
}

async function withLocks<T>(
  order: readonly Staged[],
  options: ChangeSetOptions,
  fn: (locks: FileLock[]) => Promise<T>,
  held: FileLock[] = [],
): Promise<T> {
  if (held.length === order.length) return fn(held);
  const path = order[held.length]!.member.base.path;
  return withFileLock(path, (lock) => withLocks(order, options, fn, [...held, lock]), {
    ...options.lock,
    canonical: true,
  });
}

async function checked(item: Staged): Promise<BigIntStats | null> {
  const { base } = item.member;
  try {
    // Every name of this file is taken in its folder as opened from the root (guarded-open.ts).
    const pinned = pinParent(base.path, item.place, { create: !base.exists && item.kind !== 'delete' });
    // Its folder is gone: so is the file the change was made from.
    if (!pinned) throw staleError(base.display, 'deleted');
    item.folder = pinned.folder;
    item.createdFolder = pinned.created;
    return await checkBase(base, item.folder, item.replaced);
  } catch (error) {
    throw mapFsError(error, { display: item.display, action: 'write' });
  }
}

/** The names of the item's temp file and kept original, chosen before the journal names them. */
function nameFiles(item: Staged): void {
  const { base, content } = item.member;
  if (content.type === 'prepared') item.temp = content.prepared.temp;
  else if (item.bytes) item.temp = join(dirname(base.path), tempNameFor(base.path));
  if (base.exists) item.orig = join(dirname(base.path), tempNameFor(base.path, 'orig'));
  // What the set writes there, for a rollback to tell it from a file someone changed since.
  if (item.bytes) {
    item.hash = sha256(item.bytes);
    item.wrote = `sha256:${item.hash}`;
  } else if (content.type === 'prepared' && item.temp) {
    item.wrote = writtenStat(lstatSync(item.folder!.entry(basename(item.temp)), { bigint: true }));
  }
}

async function writeTemp(item: Staged): Promise<void> {
  const { base } = item.member;
  try {
    if (item.member.content.type === 'prepared') {
      // Written and fsynced by the streaming path; held open for its fingerprint after the rename.
      item.fd = openIn(item.folder!, basename(item.temp!), O_READ, item.place);
      return;
    }
    if (!item.bytes) return;
    item.fd = openIn(
      item.folder!,
      basename(item.temp!),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      item.place,
      item.current ? 0o600 : 0o666,
    );
    await writeWhole(item.fd, item.bytes);
    const { content } = item.member;
    if (item.current) copyOwner(item.fd, item.current);
    else if ((content.type === 'bytes' || content.type === 'text') && content.mode !== undefined)
      fchmodSync(item.fd, content.mode & 0o777);
    await syncFile(item.fd);
  } catch (error) {
    throw mapFsError(error, { display: item.display, action: base.exists ? 'write' : 'create' });
  }
}

function entryOf(item: Staged): JournalEntry {
  const { base } = item.member;
  // A file whose caller names no root (it vouches for the path) is its own folder's.
  const entry: JournalEntry = { path: base.path, kind: item.kind, root: base.root ?? dirname(base.path) };
  if (item.orig) entry.orig = item.orig;
  if (item.temp) entry.temp = item.temp;
  if (item.wrote) entry.wrote = item.wrote;
  return entry;
}

function renameInto(item: Staged): void {
  // Names in the file's pinned folder: wherever its path leads now, this is the folder the guard checked.
  const folder = item.folder!;
  const at = (absolute: string) => folder.entry(basename(absolute));
  const path = at(item.member.base.path);
  try {
    if (item.kind === 'delete') unlinkSync(path);
    else if (item.kind === 'modify') renameSync(at(item.temp!), path);
    else {
      // The temp name stays until the journal is gone: it is how a rollback knows the file it created.
      try {
        linkSync(at(item.temp!), path);
      } catch (error) {
        if (isErrno(error, 'EEXIST')) throw appearedError(item.display);
        throw error;
      }
    }
  } catch (error) {
    throw new RenameFailure(item, error);
  }
  item.renamed = true;
}

/** The file's old content kept by a second link beside it (`.orig`), for a rollback. */
function keepOriginal(item: Staged): void {
  if (!item.orig) return;
  const folder = item.folder!;
  try {
    linkSync(folder.entry(basename(item.member.base.path)), folder.entry(basename(item.orig)));
  } catch (error) {
    throw new RenameFailure(item, error);
  }
  item.origLinked = true;
}

/** A rename of the set failed: which file, and why. */
class RenameFailure extends Error {
  constructor(
    readonly item: Staged,
    override readonly cause: unknown,
  ) {
    super(`rename of ${item.display} failed`);
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof RenameFailure) {
    const mapped = mapFsError(error.cause, { display: error.item.display, action: 'write' });
    return mapped.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The error of a failed set, its message saying that no file of it was written. */
function setError(error: unknown, staged: readonly Staged[]): EditgateError {
  if (error instanceof EditgateError && error.code === 'IO' && 'failed' in error.details) return error;
  const names = staged.map((item) => item.display).join(', ');
  if (error instanceof RenameFailure) {
    const mapped = mapFsError(error.cause, { display: error.item.display, action: 'write' });
    return new EditgateError(
      mapped.code,
      `${mapped.message} The change set (${names}) was being renamed into place; the files already renamed were put back from their kept originals, so none of them was changed.`,
      { ...mapped.details, files: staged.map((item) => item.display) },
    );
  }
  const mapped = mapFsError(error, { action: 'write' });
  if (mapped.code === 'STALE' || mapped.code === 'CANCELLED' || mapped.code === 'FILE_EXISTS') {
    return new EditgateError(
      mapped.code,
      `${mapped.message} The whole change set (${names}) was refused: none of its files was written.`,
      { ...mapped.details, files: staged.map((item) => item.display) },
    );
  }
  return mapped;
}

function cleanUp(item: Staged, keepOriginals: boolean): void {
  if (item.fd !== undefined) closeQuietly(item.fd);
  item.fd = undefined;
  const at = (absolute: string) => (item.folder ? item.folder.entry(basename(absolute)) : absolute);
  if (item.orig && !keepOriginals) removeQuietly(at(item.orig));
  const content = item.member.content;
  if (content.type === 'prepared') void discardPrepared(content.prepared);
  else if (item.temp) removeQuietly(at(item.temp));
  item.folder?.close();
  item.folder = undefined;
  if (item.createdFolder) removeEmptyFolders(dirname(item.member.base.path), item.createdFolder, item.place);
}

function written(item: Staged): Written {
  const { content } = item.member;
  if (item.folder) sweepDeadTemps(item.folder);
  item.folder?.close();
  item.folder = undefined;
  if (item.kind === 'delete') return { fingerprint: null, reverse: null };
  const stats = fstatSync(item.fd!, { bigint: true });
  closeQuietly(item.fd!);
  item.fd = undefined;
  if (content.type === 'prepared') {
    letGo(content.prepared.temp);
    const fingerprint = statFingerprint(stats);
    return {
      fingerprint,
      reverse: content.prepared.patch ? { kind: 'file', path: content.prepared.patch } : null,
    };
  }
  const bytes = item.bytes!;
  const fingerprint = contentFingerprint(bytes, stats, item.hash ?? sha256(bytes));
  const replaced = item.replaced;
  const reverse: Written['reverse'] =
    replaced && 'bytes' in replaced
      ? {
          kind: 'memory',
          spans: [
            {
              newStart: replaced.window.start,
              newLength: replaced.window.newEnd - replaced.window.start,
              oldStart: replaced.window.start,
              old: Buffer.from(replaced.bytes.subarray(replaced.window.start, replaced.window.oldEnd)),
            },
          ],
        }
      : null;
  return { fingerprint, reverse };
}
