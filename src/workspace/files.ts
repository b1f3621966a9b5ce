import { createHash, randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { type FileHandle, link, lstat, mkdir, open, readdir, rename, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { EditgateError } from '../core/errors.js';
import { decodeText, defaultCodec, encodeText, type TextCodec } from '../core/text.js';
import { type FsAction, isErrno, mapFsError } from './fs-errors.js';
import { type FileLock, type FileLockOptions, withFileLock } from './lock.js';
import { O_READ, openExisting } from './open-existing.js';
import { appearedError, staleError } from './stale-errors.js';
import { syncFolder } from './sync-folder.js';

export interface Fingerprint {
  size: number;
  mtimeMs: number;
  /** sha256 of the bytes, hex. */
  hash: string;
}

export interface Snapshot {
  path: string;
  exists: boolean;
  /** Decoded text ('' when the file does not exist). */
  text: string;
  codec: TextCodec;
  /** Permission bits (null when the file does not exist). */
  mode: number | null;
  fingerprint: Fingerprint | null;
  /** Workspace-relative name used in messages (never the absolute path). */
  display?: string;
}

/** What a write needs to know about the file it replaces: a Snapshot without its text. */
export type FileBase = Pick<Snapshot, 'path' | 'exists' | 'fingerprint'> & { display?: string };

export interface ReadOptions {
  /** Decode with this encoding instead of sniffing (UTF-8, or UTF-16 by BOM). */
  encoding?: string;
  /** Workspace-relative name for messages. */
  display?: string;
}

export interface CommitOptions {
  /** Called under the lock right before the rename; throws to abort (e.g. the guard's recheck). */
  verify?: () => Promise<void>;
  /** Where the advisory lock lives; see FileLockOptions. */
  lock?: FileLockOptions;
}

const CHUNK = 1 << 16;

/** Read and decode a file once. A missing file gives an empty, non-existing Snapshot. */
export async function readSnapshot(path: string, options: ReadOptions = {}): Promise<Snapshot> {
  const display = options.display;
  const handle = await openExisting(path, display);
  if (!handle) {
    const codec = options.encoding ? { ...defaultCodec(), encoding: options.encoding } : defaultCodec();
    return { path, exists: false, text: '', codec, mode: null, fingerprint: null, display };
  }
  let bytes: Buffer;
  let stats: Stats;
  try {
    stats = await handle.stat();
    assertRegularFile(stats, display);
    bytes = await handle.readFile();
  } catch (error) {
    throw mapFsError(error, { display, action: 'read' });
  } finally {
    await handle.close().catch(() => {});
  }
  const { text, codec } = decodeText(bytes, { encoding: options.encoding });
  return {
    path,
    exists: true,
    text,
    codec,
    mode: stats.mode & 0o7777,
    fingerprint: { size: bytes.length, mtimeMs: stats.mtimeMs, hash: sha256(bytes) },
    display,
  };
}

/** Size, mtime and content hash of a file as it is now, or null when it does not exist. */
export async function readFingerprint(path: string, display?: string): Promise<Fingerprint | null> {
  const handle = await openExisting(path, display);
  if (!handle) return null;
  try {
    const stats = await handle.stat();
    assertRegularFile(stats, display);
    return { size: stats.size, mtimeMs: stats.mtimeMs, hash: await hashHandle(handle) };
  } catch (error) {
    throw mapFsError(error, { display, action: 'read' });
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Write `text` encoded with `base.codec` atomically over `base.path`, only if the file still has
 * `base.fingerprint` (or still does not exist, for a new file); otherwise STALE and nothing written.
 */
export async function commitText(
  base: Snapshot,
  text: string,
  options: CommitOptions = {},
): Promise<{ fingerprint: Fingerprint }> {
  return commitBytes(base, encodeText(text, base.codec), options);
}

/**
 * The byte-level write behind commitText (undo restores exact bytes through it). Under the file lock:
 * stale check, temp file in the same folder (mode and owner copied, fsynced), verify(), rename (or link(2)
 * for a new file, so it is created exclusively and appears whole), folder fsync. On any failure the temp
 * file is removed and the target is as it was.
 */
export async function commitBytes(
  base: FileBase,
  bytes: Uint8Array,
  options: CommitOptions = {},
): Promise<{ fingerprint: Fingerprint }> {
  const { path, display } = base;
  const folder = dirname(path);
  const action: FsAction = base.exists ? 'write' : 'create';
  const hash = sha256(bytes);
  let temp: string | undefined;
  let createdFolder: string | undefined;
  let committed = false;
  try {
    const fingerprint = await withFileLock(
      path,
      async (lock) => {
        const current = await checkBase(base);
        if (!base.exists) createdFolder = await mkdir(folder, { recursive: true });
        temp = tempPathFor(path);
        const mtimeMs = await writeTemp(temp, bytes, current);
        await beforeIrreversible(options, lock);
        if (base.exists) {
          await rename(temp, path);
          temp = undefined;
        } else {
          try {
            await link(temp, path);
          } catch (error) {
            if (isErrno(error, 'EEXIST')) throw appearedError(display);
            throw error;
          }
        }
        committed = true;
        if (temp) await unlink(temp).catch(() => {});
        temp = undefined;
        await syncFolder(folder);
        return { size: bytes.length, mtimeMs, hash };
      },
      options.lock,
    );
    await sweepDeadTemps(path);
    return { fingerprint };
  } catch (error) {
    if (temp) await unlink(temp).catch(() => {});
    if (!committed && createdFolder) await removeEmptyFolders(folder, createdFolder);
    throw mapFsError(error, { display, action });
  }
}

/** Delete `base.path` (undo of a creation) if it still is exactly `base.fingerprint`; else STALE. */
export async function deleteFile(base: FileBase, options: CommitOptions = {}): Promise<void> {
  if (!base.exists) {
    throw new EditgateError(
      'FILE_NOT_FOUND',
      `${base.display ?? 'The file'} does not exist; nothing to delete.`,
      {
        path: base.display,
      },
    );
  }
  try {
    await withFileLock(
      base.path,
      async (lock) => {
        await checkBase(base);
        await beforeIrreversible(options, lock);
        await unlink(base.path);
        await syncFolder(dirname(base.path));
      },
      options.lock,
    );
  } catch (error) {
    throw mapFsError(error, { display: base.display, action: 'delete' });
  }
}

/** The name a temp file for `path` gets. Exposed so tests and cleanup agree on the pattern. */
export function tempPathFor(path: string): string {
  // Keep the name short enough that the temp name fits wherever the target name fits.
  return join(
    dirname(path),
    `.${truncateBytes(basename(path), 100)}.editgate-${process.pid}-${randomBytes(6).toString('hex')}.tmp`,
  );
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Stats of the target when it still is what `base` describes; STALE otherwise. */
async function checkBase(base: FileBase): Promise<Stats | null> {
  const display = base.display;
  if (!base.exists) {
    try {
      await lstat(base.path);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw error;
    }
    throw appearedError(display);
  }
  const expected = base.fingerprint;
  let handle: FileHandle;
  try {
    handle = await open(base.path, O_READ);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) throw staleError(display, 'deleted');
    throw error;
  }
  try {
    const stats = await handle.stat();
    assertRegularFile(stats, display);
    // Size differs: changed, no need to hash. Same hash with another mtime is not a change.
    if (!expected || stats.size !== expected.size || (await hashHandle(handle)) !== expected.hash) {
      throw staleError(display, 'changed');
    }
    return stats;
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Write, copy owner and mode, fsync; returns the temp file's mtime (rename and link keep it). */
async function writeTemp(temp: string, bytes: Uint8Array, current: Stats | null): Promise<number> {
  // A new file gets the usual 0666 minus umask; a replacement starts private and gets the old mode below.
  const handle = await open(temp, 'wx', current ? 0o600 : 0o666);
  try {
    await handle.writeFile(bytes);
    if (current) {
      if (process.getuid?.() === 0) {
        // Best effort: some filesystems refuse chown even to root; the content still must not be lost.
        await handle.chown(current.uid, current.gid).catch(() => {});
      }
      // After chown, which may clear setuid/setgid bits.
      await handle.chmod(current.mode & 0o7777);
    }
    await handle.sync();
    return (await handle.stat()).mtimeMs;
  } finally {
    await handle.close().catch(() => {});
  }
}

async function beforeIrreversible(options: CommitOptions, lock: FileLock): Promise<void> {
  await options.verify?.();
  lock.assertHeld();
}

async function hashHandle(handle: FileHandle): Promise<string> {
  const hasher = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
    if (bytesRead === 0) break;
    hasher.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hasher.digest('hex');
}

/**
 * Temp files of this target left by writers that were killed (SIGKILL, power loss) are removed on the next
 * successful write. Only those whose pid is gone: a live writer's temp file is never touched.
 */
async function sweepDeadTemps(path: string): Promise<void> {
  const prefix = `.${truncateBytes(basename(path), 100)}.editgate-`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    await unlink(join(dirname(path), name)).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !isErrno(error, 'ESRCH');
  }
}

async function removeEmptyFolders(deepest: string, top: string): Promise<void> {
  // mkdir -p created `top` and everything under it down to `deepest`; rmdir only ever removes empty ones.
  let folder = deepest;
  for (;;) {
    try {
      await rmdir(folder);
    } catch {
      return;
    }
    const parent = dirname(folder);
    if (folder === top || parent === folder) return;
    folder = parent;
  }
}

function assertRegularFile(stats: Stats, display: string | undefined): void {
  if (stats.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  if (!stats.isFile()) {
    throw new EditgateError(
      'INVALID_INPUT',
      `${display ?? 'The path'} is not a regular file (a device, FIFO or socket); editgate only edits regular files.`,
      { path: display },
    );
  }
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
