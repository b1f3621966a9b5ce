/**
 * Reading a byte range of a file in fixed buffers, the next read already in flight while the caller works
 * on the current one. Never a stream or readline: two reusable buffers are all the memory it takes.
 */
import type { FileHandle } from 'node:fs/promises';
import { EditgateError } from '../../../core/errors.js';

export interface Chunk {
  /** Valid only until the next chunk is requested (the buffer is reused). */
  bytes: Buffer;
  /** File offset of bytes[0]. */
  position: number;
}

export interface ChunkOptions {
  /**
   * Size of the first read, for callers that usually need only a little (a line lookup, a page of lines):
   * later reads grow fourfold up to chunkSize, and the read-ahead starts with the second chunk, so a short
   * lookup costs one small read. Default chunkSize.
   */
  first?: number;
}

/** Chunks of [start, end) in order. Breaking out of the loop early is fine: the read in flight is awaited. */
export async function* readChunks(
  handle: FileHandle,
  start: number,
  end: number,
  chunkSize: number,
  options: ChunkOptions = {},
): AsyncGenerator<Chunk> {
  const buffers: Buffer[] = [];
  let size = Math.max(1, Math.min(chunkSize, options.first ?? chunkSize));
  let which = 0;
  const readNext = (position: number): Promise<Chunk> => {
    const length = Math.min(size, end - position);
    size = Math.min(chunkSize, size * 4);
    let buffer = buffers[which];
    if (!buffer || buffer.length < length) buffer = buffers[which] = Buffer.allocUnsafe(length);
    which ^= 1;
    return readFully(handle, buffer, length, position).then(() => ({
      bytes: buffer.subarray(0, length),
      position,
    }));
  };
  let position = start;
  let pending: Promise<Chunk> | null = null;
  let first = true;
  try {
    while (position < end) {
      const chunk = await (pending ?? readNext(position));
      pending = null;
      position += chunk.bytes.length;
      // Read ahead only once the caller has come back for more: a one-chunk lookup reads one chunk.
      if (!first && position < end) pending = readNext(position);
      first = false;
      yield chunk;
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

function shrunkError(): EditgateError {
  return new EditgateError(
    'STALE',
    {
      happened: 'The file changed (it got shorter) while editgate was reading it; nothing was written.',
      advice: 'Read it again with read_file, then redo the edit.',
    },
    { reason: 'changed' },
  );
}

/**
 * The original file read front to back exactly once while an edit is written: gaps to copy and spans to
 * replace are taken from it in order, in pieces of the current chunk (the next chunk already being read).
 * Many small spans (a rename with a million occurrences) then cost no more reads than one big copy.
 */

export class SequentialSource {
  /** Offset of the next byte to be taken. */
  position: number;
  private readonly chunks: AsyncGenerator<Chunk>;
  private current: Chunk | null = null;

  constructor(handle: FileHandle, start: number, end: number, chunkSize: number) {
    this.position = start;
    this.chunks = readChunks(handle, start, end, chunkSize);
  }

  /**
   * Hands bytes [position, to) to `sink` in pieces; a piece is valid only during the call (the buffer is
   * reused), so the sink copies or writes it before returning.
   */
  async take(to: number, sink: (piece: Buffer) => void | Promise<void>): Promise<void> {
    while (this.position < to) {
      let chunk = this.current;
      if (!chunk || this.position >= chunk.position + chunk.bytes.length) {
        const next = await this.chunks.next();
        if (next.done) throw new Error(`source ended at ${this.position}, before ${to}`);
        chunk = this.current = next.value;
      }
      const from = this.position - chunk.position;
      const until = Math.min(to, chunk.position + chunk.bytes.length) - chunk.position;
      await sink(chunk.bytes.subarray(from, until));
      this.position += until - from;
    }
  }

  /** Stops reading (a read in flight is awaited). */
  async close(): Promise<void> {
    await this.chunks.return(undefined);
  }
}
