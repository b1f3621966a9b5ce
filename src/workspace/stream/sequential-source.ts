/**
 * The original file read front to back exactly once while an edit is written: gaps to copy and spans to
 * replace are taken from it in order, in pieces of the current chunk (the next chunk already being read).
 * Many small spans (a rename with a million occurrences) then cost no more reads than one big copy.
 */
import type { FileHandle } from 'node:fs/promises';
import { type Chunk, readChunks } from './chunk-reader.js';

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
