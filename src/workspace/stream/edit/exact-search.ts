/**
 * Every occurrence of old text in a huge file, across chunk borders, as in-memory exact matching finds it:
 * on the line-ending-neutral view (every "\r\n", "\n" and lone "\r" read as "\n"), overlapping occurrences
 * included, with offsets into the original bytes.
 *
 * A file with one kind of line ending needs no view: the old text is given that ending and searched in the
 * raw bytes (native Buffer.indexOf). Only a file with mixed endings is converted, window by window.
 * Matching UTF-8 bytes is matching characters: UTF-8 is self-synchronising, so a byte match of a whole
 * character sequence can only start on a character boundary.
 */
import type { FileHandle } from 'node:fs/promises';
import type { ProgressReporter } from '../../../core/progress.js';
import { readChunks } from '../read/chunks.js';
import { dominantEol, hasCr, isMixed, type LineIndex } from '../read/line-index.js';

export interface Match {
  start: number;
  end: number;
}

/** Every match starting before `frontier` has been given out: the bytes up to it can be copied. */
export interface Frontier {
  frontier: number;
}

export type SearchItem = Match | Frontier;

export interface SearchOptions {
  chunkSize: number;
  progress?: ProgressReporter;
}

/**
 * Matches of `needleLf` (old text with "\n" line breaks, not empty) in order of their start, with a
 * frontier after each chunk (a writer following the search copies up to it while the search goes on).
 */
export function findAll(
  handle: FileHandle,
  index: LineIndex,
  needleLf: string,
  options: SearchOptions,
): AsyncGenerator<SearchItem> {
  if (!hasCr(index)) return findRaw(handle, index, Buffer.from(needleLf, 'utf8'), options);
  if (!isMixed(index)) {
    const eol = dominantEol(index);
    return findRaw(handle, index, Buffer.from(needleLf.split('\n').join(eol), 'utf8'), options);
  }
  return findNeutral(handle, index, Buffer.from(needleLf, 'utf8'), options);
}

/**
 * Raw search, chunk by chunk in the read buffer itself: only the few bytes around each chunk border are
 * copied (the previous chunk's last length - 1 bytes and this one's first), to find the matches that
 * straddle it. Copying every chunk into a window measured a third slower.
 */
async function* findRaw(
  handle: FileHandle,
  index: LineIndex,
  needle: Buffer,
  options: SearchOptions,
): AsyncGenerator<SearchItem> {
  const length = needle.length;
  const keep = length - 1;
  const stitch = Buffer.allocUnsafe(2 * keep);
  const tail = Buffer.allocUnsafe(keep); // the last `keep` bytes before the current chunk
  let tailLength = 0;
  for await (const { bytes, position } of readChunks(
    handle,
    index.bodyStart,
    index.size,
    options.chunkSize,
  )) {
    if (tailLength > 0) {
      // Matches that start in the tail and end in this chunk.
      tail.copy(stitch, 0, 0, tailLength);
      const head = Math.min(keep, bytes.length);
      bytes.copy(stitch, tailLength, 0, head);
      const joined = stitch.subarray(0, tailLength + head);
      const base = position - tailLength;
      for (let p = joined.indexOf(needle); p !== -1 && p < tailLength; p = joined.indexOf(needle, p + 1)) {
        yield { start: base + p, end: base + p + length };
      }
    }
    for (let p = bytes.indexOf(needle); p !== -1; p = bytes.indexOf(needle, p + 1)) {
      yield { start: position + p, end: position + p + length };
    }
    const end = position + bytes.length;
    yield { frontier: end >= index.size ? index.size : end - keep };
    if (keep > 0) {
      if (bytes.length >= keep) {
        bytes.copy(tail, 0, bytes.length - keep);
        tailLength = keep;
      } else {
        // A chunk shorter than the needle (tests): the tail spans several chunks.
        const total = tailLength + bytes.length;
        const drop = Math.max(0, total - keep);
        tail.copyWithin(0, drop, tailLength);
        bytes.copy(tail, tailLength - drop);
        tailLength = total - drop;
      }
    }
    options.progress?.report('search', position + bytes.length);
  }
}

async function* findNeutral(
  handle: FileHandle,
  index: LineIndex,
  needle: Buffer,
  options: SearchOptions,
): AsyncGenerator<SearchItem> {
  const length = needle.length;
  // Original bytes: carried ones (at most length - 1 view bytes, plus a held-back "\r" and the CRs folded
  // into them, so up to twice that) followed by the new chunk.
  let window = Buffer.allocUnsafe(2 * length + 1 + options.chunkSize);
  const view = Buffer.allocUnsafe(window.length);
  let carry = 0;
  let windowStart = index.bodyStart;
  for await (const { bytes, position } of readChunks(
    handle,
    index.bodyStart,
    index.size,
    options.chunkSize,
  )) {
    if (carry + bytes.length > window.length) {
      const bigger = Buffer.allocUnsafe(carry + bytes.length);
      window.copy(bigger, 0, 0, carry);
      window = bigger;
    }
    bytes.copy(window, carry);
    const filled = carry + bytes.length;
    const last = position + bytes.length >= index.size;
    // A "\r" at the end might be half of a "\r\n": leave it for the next window.
    const usable = !last && window[filled - 1] === 13 ? filled - 1 : filled;
    const { length: viewLength, collapsed } = toView(window, usable, view);
    const toOriginal = (offset: number) => windowStart + offset + countBelow(collapsed, offset);
    const searched = view.subarray(0, viewLength);
    for (let p = searched.indexOf(needle); p !== -1; p = searched.indexOf(needle, p + 1)) {
      yield { start: toOriginal(p), end: toOriginal(p + length) };
    }
    const keepFrom = toOriginal(Math.max(0, viewLength - (length - 1))) - windowStart;
    yield { frontier: last ? index.size : windowStart + keepFrom };
    window.copyWithin(0, keepFrom, filled);
    windowStart += keepFrom;
    carry = filled - keepFrom;
    options.progress?.report('search', position + bytes.length);
  }
}

/**
 * The neutral view of bytes[0, length) into `out`; `collapsed` holds the view offsets of the "\n" that
 * stand for a "\r\n" (each makes the view one byte shorter than the original), ascending.
 */
function toView(bytes: Buffer, length: number, out: Buffer): { length: number; collapsed: number[] } {
  const collapsed: number[] = [];
  let read = 0;
  let written = 0;
  for (let q = bytes.indexOf(13); q !== -1 && q < length; q = bytes.indexOf(13, q + 1)) {
    written += bytes.copy(out, written, read, q);
    out[written] = 10;
    if (q + 1 < length && bytes[q + 1] === 10) {
      collapsed.push(written);
      read = q + 2;
      q++;
    } else read = q + 1;
    written++;
  }
  written += bytes.copy(out, written, read, length);
  return { length: written, collapsed };
}

/** How many entries of the ascending list are below `offset`. */
function countBelow(sorted: readonly number[], offset: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! < offset) low = mid + 1;
    else high = mid;
  }
  return low;
}
