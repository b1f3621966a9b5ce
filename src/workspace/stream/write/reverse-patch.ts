/**
 * What undo needs after a streamed edit: a reverse patch, not a copy of the file. For every replaced span
 * it records where the new bytes are in the new file and the old bytes they replaced, so undo streams the
 * current file and puts the old bytes back. A one-line edit of a 2 GB file keeps a few hundred bytes.
 *
 * The patch lives on disk from the start (a deletion of a million lines must not sit in memory): in the
 * history folder when the session keeps history on disk, else in a private temp folder, removed when the
 * history entry is dropped or undone, or when the process exits.
 *
 * Format: "EGPATCH1", then per span a 32-byte header of four little-endian float64 (new offset, new length,
 * old offset, old length) followed by the old bytes.
 */
import { randomUUID } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { type FileHandle, mkdir, open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EditgateError } from '../../../core/errors.js';
import { readRange } from '../read/chunks.js';

const MAGIC = Buffer.from('EGPATCH1');
const HEADER = 32;

/** A span of the patch file used as replacement bytes. */
export interface FileSlice {
  handle: FileHandle;
  offset: number;
  length: number;
}

export interface PatchRecord {
  newStart: number;
  newLength: number;
  oldStart: number;
  old: FileSlice;
}

/** Folder for patches when history lives in memory only. */
export function defaultPatchDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `editgate-undo-${uid}`);
}

export class PatchWriter {
  private position = 0;
  private readonly header = Buffer.alloc(HEADER);
  private closed = false;
  private readonly buffer = Buffer.allocUnsafe(64 << 10);
  private buffered = 0;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(folder: string): Promise<PatchWriter> {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const path = join(folder, `${randomUUID()}.patch`);
    const handle = await open(path, 'wx', 0o600);
    trackPatch(path);
    const writer = new PatchWriter(path, handle);
    await writer.put(MAGIC);
    return writer;
  }

  /** Starts a span's record; its old bytes follow through `old()`. */
  async begin(newStart: number, newLength: number, oldStart: number, oldLength: number): Promise<void> {
    this.header.writeDoubleLE(newStart, 0);
    this.header.writeDoubleLE(newLength, 8);
    this.header.writeDoubleLE(oldStart, 16);
    this.header.writeDoubleLE(oldLength, 24);
    await this.put(this.header);
  }

  async old(bytes: Buffer): Promise<void> {
    await this.put(bytes);
  }

  async finish(): Promise<void> {
    await this.flush();
    await this.handle.sync();
    this.closed = true;
    await this.handle.close();
  }

  async abort(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.handle.close().catch(() => {});
    }
    await removePatch(this.path);
  }

  /** Small pieces (headers, short spans) are gathered: one write per 64 KiB, not per span. */
  private async put(bytes: Buffer): Promise<void> {
    if (bytes.length < this.buffer.length / 2) {
      if (this.buffered + bytes.length > this.buffer.length) await this.flush();
      bytes.copy(this.buffer, this.buffered);
      this.buffered += bytes.length;
      return;
    }
    await this.flush();
    await this.write(bytes);
  }

  private async flush(): Promise<void> {
    if (this.buffered === 0) return;
    const length = this.buffered;
    this.buffered = 0;
    await this.write(this.buffer.subarray(0, length));
  }

  private async write(bytes: Buffer): Promise<void> {
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done, this.position);
      done += bytesWritten;
      this.position += bytesWritten;
    }
  }
}

/** The records of a patch file, in order; `handle` must stay open while they are used. */
export async function* readPatch(handle: FileHandle, size: number): AsyncGenerator<PatchRecord> {
  const magic = await readRange(handle, 0, Math.min(size, MAGIC.length));
  if (!magic.equals(MAGIC)) throw corrupt();
  let position = MAGIC.length;
  while (position < size) {
    if (position + HEADER > size) throw corrupt();
    const header = await readRange(handle, position, HEADER);
    const newStart = header.readDoubleLE(0);
    const newLength = header.readDoubleLE(8);
    const oldStart = header.readDoubleLE(16);
    const oldLength = header.readDoubleLE(24);
    position += HEADER;
    if (position + oldLength > size) throw corrupt();
    yield { newStart, newLength, oldStart, old: { handle, offset: position, length: oldLength } };
    position += oldLength;
  }
}

function corrupt(): EditgateError {
  return new EditgateError(
    'IO',
    'The undo data for this file is damaged, so the change cannot be undone; nothing was written. Edit the file back by hand if needed.',
    { undo: 'patch' },
  );
}

// Patches of a history kept in memory are useless once the process is gone.
const live = new Set<string>();
let hooked = false;

function trackPatch(path: string): void {
  live.add(path);
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const file of live) {
      try {
        unlinkSync(file);
      } catch {}
    }
  });
}

/** A patch that history keeps on disk across processes must survive this process. */
export function keepPatch(path: string): void {
  live.delete(path);
}

export async function removePatch(path: string): Promise<void> {
  live.delete(path);
  await unlink(path).catch(() => {});
}
