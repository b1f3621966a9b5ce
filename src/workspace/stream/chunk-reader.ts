/**
 * Reading a byte range of a file in fixed buffers, the next read already in flight while the caller works
 * on the current one. Never a stream or readline: two reusable buffers are all the memory it takes.
 */
import type { FileHandle } from 'node:fs/promises';
import { EditgateError } from '../../core/errors.js';

export interface Chunk {
  /** Valid only until the next chunk is requested (the buffer is reused). */
  bytes: Buffer;
  /** File offset of bytes[0]. */
  position: number;
}

/** Chunks of [start, end) in order. Breaking out of the loop early is fine: the read in flight is awaited. */
export async function* readChunks(
  handle: FileHandle,
  start: number,
  end: number,
  chunkSize: number,
): AsyncGenerator<Chunk> {
  const buffers = [Buffer.allocUnsafe(chunkSize), Buffer.allocUnsafe(chunkSize)] as const;
  let position = start;
  let which = 0;
  let pending: Promise<number> | null =
    position < end ? readFully(handle, buffers[0], Math.min(chunkSize, end - position), position) : null;
  try {
    while (pending) {
      const length = await pending;
      pending = null;
      const current = buffers[which]!;
      const at = position;
      position += length;
      which ^= 1;
      if (position < end) {
        pending = readFully(handle, buffers[which]!, Math.min(chunkSize, end - position), position);
      }
      yield { bytes: current.subarray(0, length), position: at };
    }
  } finally {
    // The caller may close the handle next: no read may still be writing into our buffers then.
    if (pending) await pending.catch(() => {});
  }
}

/** Exactly `length` bytes at `position` (a short read means the file shrank under us: STALE). */
export async function readRange(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  await readFully(handle, buffer, length, position);
  return buffer;
}

async function readFully(
  handle: FileHandle,
  buffer: Buffer,
  length: number,
  position: number,
): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw shrunkError();
    done += bytesRead;
  }
  return done;
}

export function shrunkError(): EditgateError {
  return new EditgateError(
    'STALE',
    'The file changed (it got shorter) while editgate was reading it; nothing was written. Read it again with read_file, then redo the edit.',
    { reason: 'changed' },
  );
}
