/**
 * What undo needs after any change: a reverse patch, never a copy of the file. For every replaced span it
 * records where the new bytes are in the new file and the old bytes they replaced, so undo puts the old
 * bytes back into the file as editgate left it. A one-line edit keeps a few dozen bytes, of a 60 KB file
 * or of a 2 GB one.
 *
 * A change held in memory keeps its one span in memory (`memory`), written to a patch file only when the
 * history is kept on disk. A streamed change writes its patch file from the start (a deletion of a million
 * lines must not sit in memory): in the history folder when the session keeps history on disk, else in a
 * private temp folder, removed when the history entry is dropped or undone, or when the process exits.
 *
 * Format: "EGPATCH1", then per span a 32-byte header of four little-endian float64 (new offset, new length,
 * old offset, old length) followed by the old bytes.
 *
 * A history kept on disk writes the patch of a change held in memory without fsync (`writePatchFile`): it is
 * not what the change is (the file is, and that was fsynced), only how to undo it. Its size and sha256 go
 * into the history entry, and undo checks both before it uses a byte, so a patch that a crash lost, cut
 * short or left as zeros makes undo refuse; it never applies a wrong patch.
 */

import { createHash, randomUUID } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { type FileHandle, open, readFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EditgateError } from '../core/errors.js';
import { letGo, removeAtExit } from './io.js';
import { ensurePrivateFolder } from './private-folder.js';
import { type ChangePlan, readRange, type Span } from './stream/index.js';

const MAGIC = Buffer.from('EGPATCH1');
const HEADER = 32;

/** How to put back what a change replaced. */
export type ReversePatch =
  | { kind: 'memory'; spans: ReverseSpan[] }
  /** `size` and `hash` (sha256, hex) when it was written without fsync: undo checks them first. */
  | { kind: 'file'; path: string; size?: number; hash?: string }
  /** History written by an older editgate: the whole old content, which `size` bytes replaced. */
  | { kind: 'blob'; path: string; size: number };

/** A replaced span held in memory: the new bytes [newStart, newStart + newLength) replaced `old`. */
export interface ReverseSpan {
  newStart: number;
  newLength: number;
  oldStart: number;
  old: Buffer;
}

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

  static async create(folder: string, name = `${randomUUID()}.patch`): Promise<PatchWriter> {
    // The default folder is in the shared temp folder: it must be this user's alone.
    await ensurePrivateFolder(folder, 'undo');
    const path = join(folder, name);
    const handle = await open(path, 'wx', 0o600);
    // Patches of a history kept in memory are useless once the process is gone.
    removeAtExit(path);
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

/** The records of a reverse patch in order, its old bytes in memory or as slices of its open patch file. */
export async function* reverseRecords(
  patch: ReversePatch,
): AsyncGenerator<{ newStart: number; newLength: number; oldStart: number; old: Buffer | FileSlice }> {
  if (patch.kind === 'memory') {
    yield* patch.spans;
    return;
  }
  if (patch.kind === 'blob') {
    let old: Buffer;
    try {
      old = await readFile(patch.path);
    } catch {
      throw gone();
    }
    yield { newStart: 0, newLength: patch.size, oldStart: 0, old };
    return;
  }
  let handle: FileHandle;
  try {
    handle = await open(patch.path, 'r');
  } catch {
    throw gone();
  }
  try {
    const size = (await handle.stat()).size;
    await checkWhole(handle, size, patch);
    for await (const record of readPatch(handle, size)) {
      yield {
        newStart: record.newStart,
        newLength: record.newLength,
        oldStart: record.oldStart,
        old: record.old,
      };
    }
  } finally {
    await handle.close().catch(() => {});
  }
}

/** The content before the change, from the content after it (held in memory) and its reverse patch. */
export async function applyReverse(current: Buffer, patch: ReversePatch): Promise<Buffer> {
  const pieces: Buffer[] = [];
  let position = 0;
  for await (const record of reverseRecords(patch)) {
    if (record.newStart < position || record.newStart + record.newLength > current.length) throw corrupt();
    pieces.push(current.subarray(position, record.newStart));
    pieces.push(
      Buffer.isBuffer(record.old)
        ? record.old
        : await readRange(record.old.handle, record.old.offset, record.old.length),
    );
    position = record.newStart + record.newLength;
  }
  pieces.push(current.subarray(position));
  return Buffer.concat(pieces);
}

/** A patch file's name, size and sha256 (hex). */
export interface WrittenPatch {
  path: string;
  size: number;
  hash: string;
}

/**
 * A patch kept in memory, written to the new file `path` (a history kept on disk), without fsync: the caller
 * records its size and hash so undo can tell a patch a crash cut short (see the top of this file). A few
 * dozen bytes for an edit: one synchronous open, write and close.
 */
export function writePatchFile(path: string, spans: readonly ReverseSpan[]): WrittenPatch {
  const pieces: Buffer[] = [MAGIC];
  for (const span of spans) {
    const header = Buffer.alloc(HEADER);
    header.writeDoubleLE(span.newStart, 0);
    header.writeDoubleLE(span.newLength, 8);
    header.writeDoubleLE(span.oldStart, 16);
    header.writeDoubleLE(span.old.length, 24);
    pieces.push(header, span.old);
  }
  const bytes = Buffer.concat(pieces);
  const fd = openSync(path, 'wx', 0o600);
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } catch (error) {
    closeSync(fd);
    void removePatch(path);
    throw error;
  }
  closeSync(fd);
  return { path, size: bytes.length, hash: createHash('sha256').update(bytes).digest('hex') };
}

/** A patch written without fsync must still be the one its history entry describes (size, then hash). */
async function checkWhole(handle: FileHandle, size: number, patch: ReversePatch): Promise<void> {
  if (patch.kind !== 'file') return;
  if (patch.size !== undefined && size !== patch.size) throw corrupt();
  if (patch.hash === undefined) return;
  const hash = createHash('sha256');
  for (let position = 0; position < size; position += 1 << 20) {
    hash.update(await readRange(handle, position, Math.min(1 << 20, size - position)));
  }
  if (hash.digest('hex') !== patch.hash) throw corrupt();
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

function gone(): EditgateError {
  return new EditgateError(
    'IO',
    'The undo data for this file is gone (its temp folder was cleaned, or the system stopped before it was saved), so the change cannot be undone; nothing was written. Edit the file back by hand if needed.',
    { undo: 'patch' },
  );
}

function corrupt(): EditgateError {
  return new EditgateError(
    'IO',
    'The undo data for this file is damaged (cut short or changed, as when the system stops before it is saved), so the change cannot be undone; nothing was written. Edit the file back by hand if needed.',
    { undo: 'patch' },
  );
}

/** A patch that history keeps on disk across processes must survive this process. */
export function keepPatch(path: string): void {
  letGo(path);
}

export async function removePatch(path: string): Promise<void> {
  letGo(path);
  await unlink(path).catch(() => {});
}

/**
 * The streaming path's plan that restores the content from before a change: each span the change wrote
 * put back to the old bytes its reverse patch kept. An undo keeps no reverse patch of its own: history
 * steps back instead.
 */
export function undoPlan(patch: ReversePatch): ChangePlan {
  return {
    reversible: false,
    spans: async function* (): AsyncGenerator<Span> {
      for await (const record of reverseRecords(patch)) {
        yield { start: record.newStart, end: record.newStart + record.newLength, insert: record.old };
      }
    },
  };
}
