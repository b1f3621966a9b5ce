/**
 * The line ending new text gets, decided exactly as neutral.ts's chooseEol decides it for the in-memory
 * path (so both paths write the same bytes), but reading only what it needs: nothing at all for a file with
 * one kind of line ending, the replaced region and the bytes up to the next line ending for a mixed one.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Eol } from '../../../core/lines.js';
import { firstLoneSurrogate, unpairedSurrogateError } from '../../../core/text.js';
import { readChunks, readRange } from '../read/chunks.js';
import { dominantEol, isMixed, type LineIndex } from '../read/line-index.js';

/**
 * Line ending for line breaks inserted in place of bytes [from, to) of the file. `region`, when given, is
 * those bytes (a match already in memory).
 */
export async function chooseEolAt(
  handle: FileHandle,
  index: LineIndex,
  from: number,
  to: number,
  chunkSize: number,
  region?: Buffer,
): Promise<Eol> {
  const dominant = dominantEol(index);
  if (!isMixed(index)) return dominant;
  const counts: Record<Eol, number> = { '\n': 0, '\r\n': 0, '\r': 0 };
  let any = false;
  const count = (bytes: Buffer, last: boolean) => {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      if (c === 10) {
        counts['\n']++;
        any = true;
      } else if (c === 13) {
        any = true;
        if (i + 1 < bytes.length && bytes[i + 1] === 10) {
          counts['\r\n']++;
          i++;
        } else if (i + 1 < bytes.length || last) counts['\r']++;
        else return true; // "\r" at a chunk end: decided by the next chunk
      }
    }
    return false;
  };
  if (region) count(region, true);
  else {
    let carry = false;
    for await (const { bytes, position } of readChunks(handle, from, to, chunkSize)) {
      let piece = bytes;
      if (carry) {
        carry = false;
        if (bytes[0] === 10) {
          counts['\r\n']++;
          piece = bytes.subarray(1);
        } else counts['\r']++;
      }
      carry = count(piece, position + bytes.length >= to);
    }
  }
  if (any) {
    let best: Eol = dominant;
    for (const eol of ['\r\n', '\n', '\r'] as const) if (counts[eol] > counts[best]) best = eol;
    return best;
  }
  // The ending of the line the region sits on: the first line ending after it.
  for await (const { bytes, position } of readChunks(handle, to, index.size, chunkSize, { first: 4096 })) {
    const lf = bytes.indexOf(10);
    const cr = bytes.indexOf(13);
    if (cr !== -1 && (lf === -1 || cr < lf)) {
      const next = cr + 1 < bytes.length ? bytes[cr + 1] : await peek(handle, position + cr + 1, index.size);
      return next === 10 ? '\r\n' : '\r';
    }
    if (lf !== -1) return '\n';
  }
  // Else the line before.
  const before = from - 1 >= index.bodyStart ? await peek(handle, from - 1, index.size) : -1;
  if (before === 10)
    return from - 2 >= index.bodyStart && (await peek(handle, from - 2, index.size)) === 13 ? '\r\n' : '\n';
  if (before === 13) return '\r';
  return dominant;
}

async function peek(handle: FileHandle, offset: number, size: number): Promise<number> {
  if (offset < 0 || offset >= size) return -1;
  return (await readRange(handle, offset, 1))[0]!;
}

/**
 * New text becomes bytes for a streamed edit: UTF-8, refused as encodeText refuses it when it holds an
 * unpaired surrogate (core's firstLoneSurrogate and its error, so both paths say the same).
 */
export function encodeInsert(text: string): Buffer {
  const index = firstLoneSurrogate(text);
  if (index !== -1) throw unpairedSurrogateError(text, index, 'utf8');
  return Buffer.from(text, 'utf8');
}

/** The text has a UTF-16 surrogate without its partner. */
export function hasLoneSurrogate(text: string): boolean {
  return firstLoneSurrogate(text) !== -1;
}
