/**
 * The commit of a change set: several files written all or nothing (issue #16). commit.ts's pieces, in
 * this order, with every file's lock held (taken in path order, so two sets never wait on each other):
 *
 * 1. every file's stale check (commit.ts's checkBase): one stale file refuses the set, nothing written;
 * 2. the journal (change-set-journal.ts) written and fsynced in the state folder, naming every temp file
 *    and kept original before either exists;
 * 3. every new content written to its temp file beside its target and fsynced;
 * 4. every file's `verify()` (the guard's recheck), locks still held, call not cancelled;
 * 5. in turn for each file: its old content kept by a hard link (`.orig`; made only now, as the guard
 *    refuses a file with a second link), then the rename (link for a created file, unlink for a deleted
 *    one); if one fails, the files already renamed are put back from their kept originals, and the error
 *    says so;
 * 6. folders fsynced, then the journal marked committed: the commit point. Then the kept originals go
 *    (a process killed before that leaves them to the next one, which rolls the set forward).
 *
 * A process killed between 2 and 6 leaves the journal: the next editgate process in that root rolls the
 * set back before its first call, so every file is old or every file is new.
 */
import { type BigIntStats, fstatSync, linkSync, mkdirSync, openSync, renameSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { cancelledError, EditgateError } from '../core/errors.js';
import { encodeText } from '../core/text.js';
import {
  finishJournal,
  type JournalEntry,
  markCommitted,
  removeJournal,
  rollBack,
  writeJournal,
} from './change-set-journal.js';
import {
  type CommitBase,
  type CommitOptions,
  changedWindow,
  checkBase,
  copyOwner,
  type NewContent,
  oldBytes,
  type Replaced,
  removeEmptyFolders,
  removeQuietly,
  sweepDeadTempsOnce,
  type Written,
} from './commit.js';
import { contentFingerprint, sha256, statFingerprint } from './fingerprint.js';
import { appearedError, isErrno, mapFsError } from './fs-errors.js';
import { closeQuietly, letGo, O_READ, syncFile, syncFolder, tempPathFor, writeWhole } from './io.js';
import { type FileLock, withFileLock } from './lock.js';
import { discardPrepared } from './stream/index.js';

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
}

/** One member on its way: its bytes, temp file, kept original, and what the rollback needs. */
interface Staged {
  member: SetMember;
  display: string | undefined;
  kind: JournalEntry['kind'];
  bytes?: Uint8Array;
  replaced: Replaced | null;
  temp?: string;
  /** The temp file, open: its fstat after the rename is the new file's fingerprint. */
  fd?: number;
  orig?: string;
  createdFolder?: string;
  current?: BigIntStats | null;
  hash?: string;
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
  try {
    await withLocks(order, options, async (locks) => {
      for (const item of order) item.current = await checked(item);
      // The journal first, naming every temp file and kept original before any exists: a process killed
      // from here on leaves nothing the next one cannot find.
      for (const item of order) nameFiles(item);
      const journal = await writeJournal(options.journalDir, order.map(entryOf));
      try {
        for (const item of order) await writeTemp(item);
        const folders = new Set(order.map((item) => dirname(item.member.base.path)));
        for (const item of order) await item.member.verify?.();
        for (const lock of locks) lock.assertHeld();
        if (options.signal?.aborted) throw cancelledError();
        for (const item of order) renameInto(item);
        for (const folder of folders) await syncFolder(folder);
      } catch (error) {
        const renamed = order.filter((item) => item.renamed);
        const failed = rollBack(renamed.map(entryOf));
        if (failed.length > 0) {
          // The journal stays: the next process tries again.
          throw new EditgateError(
            'IO',
            `${describeFailure(error)} Putting the files back failed for ${failed.join(', ')}; the next editgate process in this workspace tries again.`,
            { failed },
          );
        }
        for (const item of renamed) item.renamed = false;
        await removeJournal(journal);
        throw error;
      }
      // The commit point; then what only a rollback needed goes.
      finishJournal(await markCommitted(journal));
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
  try {
    return await checkBase(item.member.base, item.replaced);
  } catch (error) {
    throw mapFsError(error, { display: item.display, action: 'write' });
  }
}

/** The names of the item's temp file and kept original, chosen before the journal names them. */
function nameFiles(item: Staged): void {
  const { base, content } = item.member;
  if (content.type === 'prepared') item.temp = content.prepared.temp;
  else if (item.bytes) item.temp = tempPathFor(base.path);
  if (base.exists) item.orig = tempPathFor(base.path, 'orig');
}

async function writeTemp(item: Staged): Promise<void> {
  const { base } = item.member;
  try {
    if (item.member.content.type === 'prepared') {
      // Written and fsynced by the streaming path; held open for its fingerprint after the rename.
      item.fd = openSync(item.temp!, O_READ);
      return;
    }
    if (!item.bytes) return;
    if (!base.exists) item.createdFolder = mkdirSync(dirname(base.path), { recursive: true });
    item.fd = openSync(item.temp!, 'wx', item.current ? 0o600 : 0o666);
    await writeWhole(item.fd, item.bytes);
    if (item.current) copyOwner(item.fd, item.current);
    const synced = syncFile(item.fd);
    item.hash = sha256(item.bytes);
    await synced;
  } catch (error) {
    throw mapFsError(error, { display: item.display, action: base.exists ? 'write' : 'create' });
  }
}

function entryOf(item: Staged): JournalEntry {
  const entry: JournalEntry = { path: item.member.base.path, kind: item.kind };
  if (item.orig) entry.orig = item.orig;
  if (item.temp) entry.temp = item.temp;
  return entry;
}

function renameInto(item: Staged): void {
  const { path } = item.member.base;
  try {
    // Linked only now: the guard's recheck (verify) refuses a file with a second link.
    if (item.orig) linkSync(path, item.orig);
    if (item.kind === 'delete') unlinkSync(path);
    else if (item.kind === 'modify') renameSync(item.temp!, path);
    else {
      // The temp name stays until the journal is gone: it is how a rollback knows the file it created.
      try {
        linkSync(item.temp!, path);
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
  if (item.orig && !keepOriginals) removeQuietly(item.orig);
  const content = item.member.content;
  if (content.type === 'prepared') void discardPrepared(content.prepared);
  else if (item.temp) removeQuietly(item.temp);
  if (item.createdFolder) removeEmptyFolders(dirname(item.member.base.path), item.createdFolder);
}

function written(item: Staged): Written {
  const { base, content } = item.member;
  sweepDeadTempsOnce(base.path);
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
