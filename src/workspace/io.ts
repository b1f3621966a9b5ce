/**
 * The file calls every path of the workspace shares. Metadata calls (open, fstat, lstat, rename, close) and
 * reads and writes of up to SYNC_BYTES are synchronous: each takes a few microseconds, while the same call
 * through libuv's thread pool costs a hand-off and a wake-up (35-110 µs each on a busy machine, measured),
 * and an edit makes a dozen of them. What can take milliseconds stays asynchronous, so the event loop is
 * never held for long: fsync, and reads and writes of more than SYNC_BYTES.
 */
import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsync,
  openSync,
  read,
  readFileSync,
  readSync,
  unlinkSync,
  write,
  writeSync,
} from 'node:fs';
import { basename, dirname } from 'node:path';
import { promisify } from 'node:util';
import { isErrno, mapFsError } from './fs-errors.js';
import { openGuarded, type PinnedFolder } from './guarded-open.js';

/**
 * What readPlainFile found at a path instead of a plain file: something that is not a regular file (a
 * folder, a FIFO, a device), or one larger than the reader takes.
 */
export class NotPlainFile extends Error {
  constructor(
    readonly file: string,
    readonly why: 'not a file' | 'too large',
  ) {
    super(`${file} is ${why === 'not a file' ? 'not a regular file' : 'larger than expected'}`);
  }
}

/**
 * The text (UTF-8) of a small file editgate keeps or reads as data (a config, a trust record, a journal, a
 * hook's kept approval), read synchronously (a few microseconds; see above): named directly, no link
 * followed (the open fails with ELOOP), a FIFO or device never waited on. Throws NotPlainFile for what is
 * not a regular file or is over `maxBytes`, and the open's own error (ENOENT...) otherwise.
 */
export function readPlainFile(file: string, maxBytes = Number.POSITIVE_INFINITY): string {
  const fd = openSync(file, O_READ | constants.O_NOFOLLOW);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new NotPlainFile(file, 'not a file');
    if (info.size > maxBytes) throw new NotPlainFile(file, 'too large');
    return readFileSync(fd, 'utf8');
  } finally {
    closeQuietly(fd);
  }
}

/** Up to this many bytes are read or written in one synchronous call. */
export const SYNC_BYTES = 1 << 20;

/** Flags for opening a file to read. NONBLOCK: a FIFO put in place of a file must not hang the open. */
export const O_READ = constants.O_RDONLY | constants.O_NONBLOCK;

const fsyncAsync = promisify(fsync);
const readAsync = promisify(read);
const writeAsync = promisify(write);

/**
 * The file opened for reading (a descriptor), or null when it does not exist; any other failure as an
 * EditgateError worded for a read. With `root`, through its pinned folder (guarded-open.ts).
 */
export function openExisting(path: string, display: string | undefined, root?: string): number | null {
  try {
    return openGuarded(path, O_READ, { root, display });
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw mapFsError(error, { display, action: 'read' });
  }
}

/** `length` bytes from `position` (fewer only at the end of the file). */
export async function readAt(fd: number, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const count =
      length - done <= SYNC_BYTES
        ? readSync(fd, buffer, done, length - done, position + done)
        : (await readAsync(fd, buffer, done, length - done, position + done)).bytesRead;
    if (count === 0) break;
    done += count;
  }
  return done === length ? buffer : buffer.subarray(0, done);
}

/**
 * All of `bytes` at offset 0 of a new file. Up to SYNC_BYTES are written before this returns, and it
 * returns null then: a caller with no `await` before its next call (early-write.ts starts the fsync) runs
 * on in the same turn, where any `await` would let its own caller's synchronous work go first.
 */
export function writeWhole(fd: number, bytes: Uint8Array): Promise<void> | null {
  if (bytes.length <= SYNC_BYTES) {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, done);
    return null;
  }
  return writeLarge(fd, bytes);
}

async function writeLarge(fd: number, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const length = Math.min(bytes.length - done, 16 * SYNC_BYTES);
    done += (await writeAsync(fd, bytes, done, length, done)).bytesWritten;
  }
}

/** fsync, off the event loop: the disk may take milliseconds. */
export function syncFile(fd: number): Promise<void> {
  return fsyncAsync(fd);
}

/**
 * fsync of a folder, so a rename, link or unlink just done in it survives a crash. Best effort: the change
 * is already done, so a folder fsync failure (some filesystems do not support it) must not report
 * "nothing written".
 */
export async function syncFolder(folder: string | PinnedFolder): Promise<void> {
  if (typeof folder !== 'string') {
    // Already open (pinned): its own descriptor, no second open by name.
    await fsyncAsync(folder.fd).catch(() => {});
    return;
  }
  let fd: number;
  try {
    fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return;
  }
  try {
    await fsyncAsync(fd);
  } catch {
  } finally {
    closeSync(fd);
  }
}

/**
 * Folders made for a new file (mkdir -p from `firstMade` down to `fileFolder`): each one's entry fsynced in
 * its parent, so the file's path, not only the file, survives a power loss. The file's own folder is synced
 * by the caller after the link or rename. By name: an fsync changes nothing a swapped name could misuse.
 */
export async function syncMadeFolders(fileFolder: string, firstMade: string | undefined): Promise<void> {
  if (!firstMade) return;
  for (let folder = fileFolder; ; folder = dirname(folder)) {
    if (folder !== fileFolder) await syncFolder(folder);
    if (folder === dirname(firstMade) || folder === dirname(folder)) break;
  }
}

/** A new file (a temp about to replace `current`) gets the mode, and for root the owner, of the one it replaces. */
export function copyOwner(fd: number, current: BigIntStats): void {
  if (process.getuid?.() === 0) {
    // Best effort: some filesystems refuse chown even to root; the content still must not be lost.
    try {
      fchownSync(fd, Number(current.uid), Number(current.gid));
    } catch {}
  }
  // After chown, which may clear setuid/setgid bits.
  fchmodSync(fd, Number(current.mode) & 0o7777);
}

/** Unlink, ignoring errors (a temp file on a failure path). */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

/** Close, ignoring errors (every failure path closes). */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {}
}

/** Random per process, then counted: a unique temp name without asking for entropy on every write. */
const tempPrefix = randomBytes(4).toString('hex');
let tempCount = 0;

/**
 * The name (in the target's folder, opened through the pinned folder) a temp file for `path` gets:
 * `.<name>.editgate-<pid>-<hex>.tmp`, which cleanup recognises; a change set's kept original of the file
 * (`kind` 'orig') ends in `.orig`, which only its journal removes.
 */
export function tempNameFor(path: string, kind: 'tmp' | 'orig' = 'tmp'): string {
  // Keep the name short enough that the temp name fits wherever the target name fits.
  const unique = `${tempPrefix}${(tempCount++).toString(16).padStart(4, '0')}`;
  return `.${truncateBytes(basename(path), 100)}.editgate-${process.pid}-${unique}.${kind}`;
}

/** Whether `name` is a name tempNameFor gives `path` (in any process) for `kind`: all a journal may name. */
export function isTempNameFor(path: string, name: string, kind: 'tmp' | 'orig'): boolean {
  const prefix = `.${truncateBytes(basename(path), 100)}.editgate-`;
  return name.startsWith(prefix) && new RegExp(`^\\d+-[0-9a-f]+\\.${kind}$`).test(name.slice(prefix.length));
}

function truncateBytes(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  let out = '';
  for (const ch of name) {
    if (Buffer.byteLength(out + ch) > maxBytes) break;
    out += ch;
  }
  return out;
}

/**
 * Files this process made that must not outlive it (prepared temp files, reverse patches of a history kept
 * in memory): removed when the process exits, unless let go first (committed, kept on disk, removed).
 */
const leftAtExit = new Map<string, (() => void) | undefined>();
let exitHooked = false;

/** `remove`: how to remove it (a temp file through its pinned folder); else unlinked by its path. */
export function removeAtExit(path: string, remove?: () => void): void {
  leftAtExit.set(path, remove);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', removeLeftovers);
}

/**
 * Removes now what removeAtExit listed (synchronously: also from a signal handler that is about to end
 * the process, see exit-cleanup.ts). Never throws.
 */
export function removeLeftovers(): void {
  for (const [file, remove] of leftAtExit) {
    try {
      if (remove) remove();
      else unlinkSync(file);
    } catch {}
  }
  leftAtExit.clear();
}

/** The file is no longer this process's to remove. */
export function letGo(path: string): void {
  leftAtExit.delete(path);
}
