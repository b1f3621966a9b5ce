/**
 * A head start on a commit: the new bytes of a change to an existing file written to a temp file beside it
 * and fsynced while the gate is still busy with the change (its diff, hooks, policy, the audit line), so the
 * commit finds them durable and only renames. The fsync is the slowest step of an edit (a millisecond or
 * more on a virtual disk), and here it runs while the rest of the work is done instead of after it.
 *
 * Only where no person is asked (the gate says so when it asks the workspace for the change): a temp file
 * beside the target while someone reads the diff would be clutter in their editor's file list.
 *
 * Nothing here decides or checks anything: the commit still takes the lock, checks the target is the
 * version the change was computed from, copies the target's mode and owner as they are then (fsyncing the
 * temp again if they moved since), runs the guard's recheck and renames. A head start that failed for any
 * reason (a full disk, a folder it may not write in, text the file's encoding cannot hold) is dropped
 * silently: the commit then writes as it always did, and reports the failure in its own words.
 *
 * Every head start ends in exactly one of: taken by the commit (which renames or removes its temp file), or
 * discarded (the temp file removed). A process that dies in between leaves a temp file named like every
 * other, which the next writer in that folder sweeps (temp-sweep.ts), and which exit cleanup removes.
 */
import { type BigIntStats, constants, lstatSync } from 'node:fs';
import { basename, join } from 'node:path';
import { encodeText, type TextCodec } from '../core/text.js';
import { sha256 } from './fingerprint.js';
import { type GuardedPlace, openIn, type PinnedFolder, pinParent } from './guarded-open.js';
import {
  closeQuietly,
  copyOwner,
  letGo,
  removeAtExit,
  removeQuietly,
  syncFile,
  tempNameFor,
  writeWhole,
} from './io.js';

/** The temp file of a head start, durable, for the commit to rename. */
export interface EarlyTemp {
  /** The folder it was made in (pinned from the root); the commit renames only within this very folder. */
  folder: PinnedFolder;
  /** Its name in that folder. */
  name: string;
  /** Open for writing; the commit closes it. */
  fd: number;
  /** The bytes it holds and their sha256. */
  bytes: Buffer;
  hash: string;
  /** The target's stats whose mode and owner the temp file got. */
  ownerFrom: BigIntStats;
  /** Its key in the exit cleanup's list (io.ts removeAtExit). */
  exitKey: string;
}

export class EarlyWrite {
  /** The new bytes, encoded at once (null: the text cannot be encoded; the commit refuses it itself). */
  readonly bytes: Buffer | null;
  private readonly made: Promise<EarlyTemp | null>;
  private state: 'running' | 'taken' | 'discarded' = 'running';

  /**
   * Starts writing `text` (encoded with `codec`) beside `path`, an existing file; returns at once. The work
   * up to the fsync is synchronous (a few calls of microseconds, see io.ts); the fsync runs in the thread
   * pool.
   */
  constructor(path: string, text: string, codec: TextCodec, place: GuardedPlace) {
    let bytes: Buffer | null = null;
    try {
      bytes = encodeText(text, codec);
    } catch {}
    this.bytes = bytes;
    this.made = bytes ? writeAhead(path, bytes, place).catch(() => null) : Promise.resolve(null);
  }

  /**
   * The temp file for the commit, once durable; null when the head start failed or was discarded. Taking
   * makes the commit its owner: it renames the file into place or removes it, and closes both descriptors.
   */
  async take(): Promise<EarlyTemp | null> {
    if (this.state !== 'running') return null;
    this.state = 'taken';
    return this.made;
  }

  /**
   * The change will not be committed with it: resolves once the temp file is gone (its write is let finish
   * first). Nothing to do once taken or discarded. Never rejects.
   */
  async discard(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'discarded';
    const temp = await this.made;
    if (temp) dropEarlyTemp(temp);
  }
}

/** Removes a head start's temp file (through its pinned folder) and closes what it holds. Never throws. */
export function dropEarlyTemp(temp: Pick<EarlyTemp, 'folder' | 'name' | 'fd' | 'exitKey'>): void {
  closeQuietly(temp.fd);
  removeQuietly(temp.folder.entry(temp.name));
  letGo(temp.exitKey);
  temp.folder.close();
}

async function writeAhead(path: string, bytes: Buffer, place: GuardedPlace): Promise<EarlyTemp | null> {
  const pinned = pinParent(path, place);
  if (!pinned) return null;
  const folder = pinned.folder;
  const name = tempNameFor(path);
  const exitKey = join(folder.path, name);
  let fd: number | undefined;
  try {
    const ownerFrom = lstatSync(folder.entry(basename(path)), { bigint: true });
    if (!ownerFrom.isFile()) {
      folder.close();
      return null;
    }
    fd = openIn(folder, name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, place, 0o600);
    // Removed at exit if the process ends before the commit or a discard removes it.
    removeAtExit(exitKey, () => removeQuietly(folder.entry(name)));
    // No `await` before the fsync starts unless the write itself must wait (writeWhole): the caller goes on
    // with the diff in this same turn, and the fsync is meant to run beside that, not after it.
    const writing = writeWhole(fd, bytes);
    if (writing) await writing;
    copyOwner(fd, ownerFrom);
    const synced = syncFile(fd);
    // Worked out while the disk flushes: the commit needs it for the new fingerprint.
    const hash = sha256(bytes);
    await synced;
    return { folder, name, fd, bytes, hash, ownerFrom, exitKey };
  } catch {
    if (fd !== undefined) dropEarlyTemp({ folder, name, fd, exitKey });
    else folder.close();
    return null;
  }
}
