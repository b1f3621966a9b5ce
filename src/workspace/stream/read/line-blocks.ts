/**
 * A huge file as a sequence of blocks of whole lines (about `blockBytes` each), every block followed by the
 * next `overlap` lines, decoded to text. Matching that needs lines (the tolerant tiers) runs on each block;
 * a match of at most `overlap` + 1 lines starting in a block always lies inside block + overlap, so taking
 * only matches that start in the block itself finds each match exactly once.
 *
 * Lines longer than `maxLineBytes` are skipped (never decoded into memory): matching cannot see inside
 * them. Memory: about blockBytes + maxLineBytes, whatever the file.
 */
import type { FileHandle } from 'node:fs/promises';
import type { ProgressReporter } from '../../../core/progress.js';
import { readChunks } from './chunks.js';
import type { LineIndex } from './line-index.js';
import { countTerminators } from './line-scan.js';

export interface LineBlock {
  /** The block's own lines followed by the overlap lines, as text. */
  text: string;
  /** Characters of `text` that belong to the block itself (matches must start before this). */
  ownChars: number;
  /** File offset of text[0] (a line start) and its 1-based line number. */
  start: number;
  line: number;
}

export interface BlockOptions {
  chunkSize: number;
  overlap: number;
  blockBytes?: number;
  maxLineBytes?: number;
  progress?: ProgressReporter;
  /** A cheap prefilter on a block's raw bytes: blocks it rejects are not decoded or given out. */
  wanted?: (bytes: Buffer) => boolean;
}

export async function* lineBlocks(
  handle: FileHandle,
  index: LineIndex,
  options: BlockOptions,
): AsyncGenerator<LineBlock> {
  const blockBytes = options.blockBytes ?? 1 << 20;
  const maxLineBytes = options.maxLineBytes ?? 4 << 20;
  let pending = Buffer.alloc(0); // bytes from offset `start` (a line start) on
  let start = index.bodyStart;
  let line = 1;
  let skipping = false; // inside a line longer than maxLineBytes: dropping bytes until its end
  let dropLf = false; // the skipped line ended with "\r" at a chunk end: a "\n" next is part of it

  function* flush(atEnd: boolean): Generator<LineBlock> {
    for (;;) {
      if (pending.length === 0) return;
      let own = cutAfter(pending, 0, blockBytes, 0, atEnd);
      if (own === -1) {
        if (atEnd || pending.length <= maxLineBytes) return;
        // A line too long to hold: give out the whole lines before it, then skip it.
        const last = lastLineEnd(pending);
        if (last > 0) {
          yield* give(last, last);
          continue;
        }
        start += pending.length;
        pending = Buffer.alloc(0);
        skipping = true;
        return;
      }
      let end = cutAfter(pending, own, 0, options.overlap, atEnd);
      if (end === -1) {
        // The overlap is not complete yet; past the size limit a giant line follows: use what there is.
        if (pending.length - own <= maxLineBytes) return;
        end = pending.length;
        own = Math.min(own, end);
      }
      yield* give(own, end);
    }
  }

  function* give(own: number, end: number): Generator<LineBlock> {
    const bytes = pending.subarray(0, end);
    if (!options.wanted || options.wanted(bytes)) {
      const ownText = pending.toString('utf8', 0, own);
      yield { text: ownText + pending.toString('utf8', own, end), ownChars: ownText.length, start, line };
    }
    line += countTerminators(pending.subarray(0, own));
    start += own;
    pending = pending.subarray(own);
  }

  for await (const chunk of readChunks(handle, index.bodyStart, index.size, options.chunkSize)) {
    let bytes = chunk.bytes;
    if (dropLf) {
      dropLf = false;
      if (bytes[0] === 10) {
        bytes = bytes.subarray(1);
        start++;
      }
    }
    if (skipping) {
      const end = firstLineEnd(bytes);
      if (end === -1) {
        start += bytes.length;
        continue;
      }
      skipping = false;
      // A "\r" on the last byte may be followed by a "\n" in the next chunk.
      if (end === bytes.length && bytes[end - 1] === 13) dropLf = true;
      start += end;
      line++;
      bytes = bytes.subarray(end);
    }
    pending = pending.length === 0 ? Buffer.from(bytes) : Buffer.concat([pending, bytes]);
    options.progress?.report('search', chunk.position + chunk.bytes.length);
    yield* flush(false);
  }
  if (!skipping) yield* flush(true);
}

/**
 * Offset in `bytes` after at least `minBytes` bytes from `from`, then `lines` more line ends: always a line
 * start. -1 when the bytes do not reach that far yet; at the end of the file, the end.
 */
function cutAfter(bytes: Buffer, from: number, minBytes: number, lines: number, atEnd: boolean): number {
  let position = from;
  if (minBytes > 0) {
    if (bytes.length - from < minBytes) return atEnd ? bytes.length : -1;
    const end = lineEndFrom(bytes, from + minBytes - 1);
    if (end === -1) return atEnd ? bytes.length : -1;
    position = end;
  }
  for (let left = lines; left > 0; left--) {
    if (position >= bytes.length) return atEnd ? bytes.length : -1;
    const end = lineEndFrom(bytes, position);
    if (end === -1) return atEnd ? bytes.length : -1;
    position = end;
  }
  return position;
}

/** Offset just past the first line end at or after `from`; -1 if none, or if it is a "\r" on the last byte. */
function lineEndFrom(bytes: Buffer, from: number): number {
  const lf = bytes.indexOf(10, from);
  const crIn = lf === -1 ? bytes.indexOf(13, from) : bytes.subarray(from, lf).indexOf(13);
  const cr = crIn === -1 ? -1 : lf === -1 ? crIn : from + crIn;
  if (cr !== -1) {
    if (cr + 1 >= bytes.length) return -1;
    return bytes[cr + 1] === 10 ? cr + 2 : cr + 1;
  }
  return lf === -1 ? -1 : lf + 1;
}

/** Like lineEndFrom(bytes, 0), except a "\r" on the last byte counts as a line end there. */
function firstLineEnd(bytes: Buffer): number {
  const lf = bytes.indexOf(10);
  const cr = bytes.indexOf(13);
  if (cr !== -1 && (lf === -1 || cr < lf)) return bytes[cr + 1] === 10 ? cr + 2 : cr + 1;
  return lf === -1 ? -1 : lf + 1;
}

/** Offset just past the last certain line end (a final "\r" is not certain), or -1. */
function lastLineEnd(bytes: Buffer): number {
  let end = bytes.length;
  if (bytes[end - 1] === 13) end--;
  const lf = bytes.lastIndexOf(10, end - 1);
  const cr = bytes.lastIndexOf(13, end - 1);
  const q = Math.max(lf, cr);
  return q === -1 ? -1 : q + 1;
}
