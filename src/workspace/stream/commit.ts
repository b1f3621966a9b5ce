/**
 * Committing a streamed change, as commitBytes commits a normal one: under the file lock, the stale check,
 * then verify() (the guard's recheck), then the rename of the prepared temp file over the target, then a
 * folder fsync. On any failure the temp file and the reverse patch are removed and the target is untouched.
 *
 * The stale check is the streaming path's "unchanged" (fingerprint.ts): the target must still have the
 * stat fingerprint the change was computed from, and the old bytes of every replaced span (kept in the
 * reverse patch) must still be there, compared byte for byte (the first 10,000 spans, 64 MiB at most). Reading the
 * spans catches a same-size rewrite that a coarse clock hid from the stat, where it matters most.
 */
import { type FileHandle, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CommitOptions, FileBase, Fingerprint } from '../files.js';
import { statFingerprint } from '../fingerprint.js';
import { isErrno, mapFsError } from '../fs-errors.js';
import { withFileLock } from '../lock.js';
import { O_READ } from '../open-existing.js';
import { staleError } from '../stale-errors.js';
import { syncFolder } from '../sync-folder.js';
import { readRange } from './read/chunks.js';
import type { LineIndexCache } from './read/line-index.js';
import { discardPrepared, type PreparedWrite, untrackTemp } from './write/prepared.js';
import { readPatch } from './write/reverse-patch.js';

const SPAN_CHECK_BYTES = 64 << 20;
const SPAN_CHECK_RECORDS = 10_000;

export interface StreamCommitOptions extends CommitOptions {
  /** Where the new content's line index goes once it has its fingerprint. */
  indexes?: LineIndexCache;
}

export async function commitPrepared(
  base: FileBase,
  prepared: PreparedWrite,
  options: StreamCommitOptions = {},
): Promise<{ fingerprint: Fingerprint }> {
  const { path, display } = base;
  let committed = false;
  try {
    const fingerprint = await withFileLock(
      path,
      async (lock) => {
        const old = await checkUnchanged(base, prepared);
        try {
          await options.verify?.();
          lock.assertHeld();
          // Held open across the rename: its fstat afterwards is the new file's fingerprint (rename moves
          // ctime).
          const temp = await open(prepared.temp, O_READ);
          try {
            await rename(prepared.temp, path);
            committed = true;
            untrackTemp(prepared.temp);
            await syncFolder(dirname(path));
            return statFingerprint(await temp.stat({ bigint: true }));
          } finally {
            await temp.close().catch(() => {});
          }
        } finally {
          // The old file is still open here, so the rename did not have to free its gigabytes (half a second
          // per GiB on ext4, measured); the last close does, in the background, after the change is done.
          void old.close().catch(() => {});
        }
      },
      options.lock,
    );
    (options.indexes ?? prepared.indexes)?.set(path, { ...prepared.index, key: fingerprint.hash });
    return { fingerprint };
  } catch (error) {
    if (!committed) await discardPrepared(prepared);
    throw mapFsError(error, { display, action: 'write' });
  }
}

/** The target, open, if it is still what the change was computed from; STALE otherwise. */
async function checkUnchanged(base: FileBase, prepared: PreparedWrite): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(base.path, O_READ);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) throw staleError(base.display, 'deleted');
    throw error;
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile() || statFingerprint(stats).hash !== base.fingerprint?.hash) {
      throw staleError(base.display, 'changed');
    }
    if (prepared.patch) await checkSpans(handle, prepared.patch, Number(stats.size), base.display);
    return handle;
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/** The old bytes the patch recorded are still the target's bytes at their places. */
async function checkSpans(
  target: FileHandle,
  patchPath: string,
  size: number,
  display?: string,
): Promise<void> {
  const patch = await open(patchPath, 'r');
  try {
    const patchSize = (await patch.stat()).size;
    let budget = SPAN_CHECK_BYTES;
    let records = 0;
    for await (const record of readPatch(patch, patchSize)) {
      const length = Math.min(record.old.length, budget);
      if (length === 0) continue;
      if (record.oldStart + length > size) throw staleError(display, 'changed');
      const [expected, actual] = await Promise.all([
        readRange(patch, record.old.offset, length),
        readRange(target, record.oldStart, length),
      ]);
      if (!expected.equals(actual)) throw staleError(display, 'changed');
      budget -= length;
      if (budget <= 0 || ++records >= SPAN_CHECK_RECORDS) break;
    }
  } finally {
    await patch.close().catch(() => {});
  }
}
