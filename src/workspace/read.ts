/**
 * A file held in memory: read once, decoded once into a Snapshot that knows how to encode it back. Huge
 * files are never read this way (see stream/); workspace.ts decides which path a file takes.
 */
import { type BigIntStats, fstatSync } from 'node:fs';
import { EditgateError } from '../core/errors.js';
import { decodeText, defaultCodec, type TextCodec } from '../core/text.js';
import { contentFingerprint, type Fingerprint, statToken } from './fingerprint.js';
import { mapFsError } from './fs-errors.js';
import { changedError, type FileIdentity, identityOf, sameIdentity } from './guarded-open.js';
import { closeQuietly, openExisting, readAt } from './io.js';

/** What a commit needs to know about the file it replaces: where it is, and which version it was. */
export interface FileBase {
  path: string;
  exists: boolean;
  fingerprint: Fingerprint | null;
  /** Workspace-relative name used in messages (never the absolute path). */
  display?: string;
  /**
   * The canonical workspace root the file lies in: every open of it walks from there, never following a
   * link (guarded-open.ts). Absent for a path the caller vouches for.
   */
  root?: string;
}

export interface Snapshot extends FileBase {
  /** Decoded text ('' when the file does not exist). */
  text: string;
  codec: TextCodec;
  /** Permission bits (null when the file does not exist). */
  mode: number | null;
  /**
   * The bytes `text` was decoded from, kept so that a commit need not encode the old text again to find
   * the bytes it replaces. Absent for a file that does not exist; a Snapshot built by hand may leave it
   * out (the text is encoded then).
   */
  bytes?: Buffer;
}

export interface ReadOptions {
  /** Decode with this encoding instead of sniffing (UTF-8, or UTF-16 by BOM). */
  encoding?: string;
  /** Workspace-relative name for messages. */
  display?: string;
  /**
   * A fingerprint already known for this path (the ledger's): when the file's stat token is the one it was
   * taken at, its hash is reused instead of hashing the bytes again.
   */
  known?: Fingerprint | null;
  /** The root the file lies in: opened through its pinned folder (see FileBase.root). */
  root?: string;
  /** The file the guard checked: one opened with another device or inode is refused (OUTSIDE_ROOT, changed). */
  identity?: FileIdentity;
}

/** Read and decode a file once. A missing file gives an empty, non-existing Snapshot. */
export async function readSnapshot(path: string, options: ReadOptions = {}): Promise<Snapshot> {
  const { display, root } = options;
  const fd = openExisting(path, display, root);
  if (fd === null) {
    const codec = options.encoding ? { ...defaultCodec(), encoding: options.encoding } : defaultCodec();
    return { path, exists: false, text: '', codec, mode: null, fingerprint: null, display, ...rootOf(root) };
  }
  let bytes: Buffer;
  let stats: BigIntStats;
  try {
    stats = fstatSync(fd, { bigint: true });
    assertRegularFile(stats, display);
    if (options.identity && !sameIdentity(identityOf(stats), options.identity)) throw changedError(display);
    bytes = await readAt(fd, 0, Number(stats.size));
  } catch (error) {
    throw mapFsError(error, { display, action: 'read' });
  } finally {
    closeQuietly(fd);
  }
  const { text, codec } = decodeText(bytes, { encoding: options.encoding });
  const known = options.known;
  const same = known?.stat !== undefined && known.stat === statToken(stats) && known.size === bytes.length;
  return {
    path,
    exists: true,
    text,
    codec,
    mode: Number(stats.mode) & 0o7777,
    fingerprint: contentFingerprint(bytes, stats, same ? known.hash : undefined),
    display,
    bytes,
    ...rootOf(root),
  };
}

/** `root` as a field only when there is one (snapshots compared whole in tests stay as they were). */
export function rootOf(root: string | undefined): { root?: string } {
  return root === undefined ? {} : { root };
}

/** Only regular files are read or replaced: a folder is IS_DIRECTORY, a device, FIFO or socket refused. */
export function assertRegularFile(
  stats: { isDirectory(): boolean; isFile(): boolean },
  display?: string,
): void {
  if (stats.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  if (!stats.isFile()) {
    throw new EditgateError(
      'INVALID_INPUT',
      `${display ?? 'The path'} is not a regular file (a device, FIFO or socket); editgate only edits regular files.`,
      { path: display },
    );
  }
}
