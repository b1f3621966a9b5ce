/**
 * A sparse line index of a huge file: every line that starts at least `stride` bytes after the previous
 * checkpoint is recorded as (line number, byte offset). Finding line n then costs one binary search and a
 * scan of at most about `stride` bytes, so a second read_file at a far offset does not rescan the file.
 * Building it is one pass that also counts line endings and checks the file is UTF-8 text.
 *
 * Memory: two Float64Arrays of at most MAX_CHECKPOINTS entries (the stride grows for files so large that
 * 16 KiB would give more), i.e. 4 MB at worst, whatever the size of the file.
 *
 * An index belongs to one version of a file: its key is the file's stat fingerprint (fingerprint.ts), and
 * the cache hands it out only for that exact version.
 */
import type { FileHandle } from 'node:fs/promises';
import type { ProgressReporter } from '../../../core/progress.js';
import { readChunks, readRange } from './chunks.js';
import { type EolCounts, firstLineStartFrom, TerminatorCounter } from './line-scan.js';
import { type BadByte, badByteError, checkStreamable, Utf8Check } from './text-check.js';

export interface LineIndex {
  /** The fingerprint token of the file version it describes. */
  key: string;
  size: number;
  bom: boolean;
  /** Offset of line 1 (after a BOM). */
  bodyStart: number;
  /** Lines as editgate counts them (lines.ts); 0 for an empty body. */
  lineCount: number;
  eol: EolCounts;
  /** The text ends with a line terminator. */
  finalNewline: boolean;
  /** Checkpoint i: line `lines[i]` starts at byte `offsets[i]`; checkpoint 0 is line 1 at bodyStart. */
  lines: Float64Array;
  offsets: Float64Array;
  checkpoints: number;
}

/** Bytes between checkpoints (raised for very large files). */
export const DEFAULT_INDEX_STRIDE = 1 << 14;
const MAX_CHECKPOINTS = 1 << 18;
const HEAD_BYTES = 8192;

export interface BuildOptions {
  chunkSize: number;
  stride?: number;
  display: string;
  encoding?: string;
  progress?: ProgressReporter;
}

/** One pass over the file: line count, line endings, checkpoints; BINARY/ENCODING/TOO_LARGE refusals. */
export async function buildLineIndex(
  handle: FileHandle,
  size: number,
  key: string,
  options: BuildOptions,
): Promise<LineIndex> {
  const head = await readRange(handle, 0, Math.min(size, HEAD_BYTES));
  const { bom, bodyStart } = checkStreamable(head, size, options.display, options.encoding);
  const builder = new IndexBuilder(bodyStart, size, options.stride);
  const check = new Utf8Check();
  const fail = async (bad: BadByte) => {
    const line = await lineAt(handle, builder.partial(key, bom), bad.offset, options.chunkSize);
    return badByteError(bad, line, head, size, options.display);
  };
  for await (const { bytes, position } of readChunks(handle, bodyStart, size, options.chunkSize)) {
    const bad = check.feed(bytes, position);
    if (bad) throw await fail(bad);
    builder.feed(bytes, position);
    options.progress?.report('index', position + bytes.length);
  }
  const bad = check.end();
  if (bad) throw await fail(bad);
  options.progress?.done('index');
  return builder.finish(key, bom);
}

/**
 * Builds a LineIndex from the bytes of a file fed in order from its body start: used on a file being read,
 * and on the temp file of an edit as it is written (so the new version is indexed without another pass).
 */
export class IndexBuilder {
  private readonly stride: number;
  private lines: Float64Array;
  private offsets: Float64Array;
  private checkpoints = 1;
  private nextBoundary: number;
  private readonly counter = new TerminatorCounter();
  private lastByte = -1;
  private fedTo: number;

  /** `size`: the final size when known (checkpoints are sized by it); a line start at the end is none. */
  constructor(
    private readonly bodyStart: number,
    private size: number,
    stride = DEFAULT_INDEX_STRIDE,
  ) {
    this.stride = Math.max(stride, Math.ceil(size / MAX_CHECKPOINTS), 1);
    const capacity = Math.min(MAX_CHECKPOINTS, Math.floor(size / this.stride) + 2);
    this.lines = new Float64Array(Math.max(2, capacity));
    this.offsets = new Float64Array(Math.max(2, capacity));
    this.lines[0] = 1;
    this.offsets[0] = bodyStart;
    this.nextBoundary = bodyStart + this.stride;
    this.fedTo = bodyStart;
  }

  /** Bytes at file offset `position` (= everything fed so far ends there). */
  feed(bytes: Buffer, position: number): void {
    if (bytes.length === 0) return;
    const end = position + bytes.length;
    let fed = position;
    while (this.nextBoundary < end) {
      const from = Math.max(this.nextBoundary, position) - position;
      const start = firstLineStartFrom(bytes, from, bytes.length);
      if (start === -1 || position + start >= end) break;
      this.counter.feed(bytes, fed - position, start);
      fed = position + start;
      if (this.checkpoints === this.lines.length) {
        if (this.checkpoints >= MAX_CHECKPOINTS) break;
        this.lines = grow(this.lines);
        this.offsets = grow(this.offsets);
      }
      this.lines[this.checkpoints] = this.counter.count + 1;
      this.offsets[this.checkpoints] = fed;
      this.checkpoints++;
      this.nextBoundary = fed + this.stride;
    }
    this.counter.feed(bytes, fed - position, bytes.length);
    this.lastByte = bytes[bytes.length - 1]!;
    this.fedTo = end;
  }

  /** The index of everything fed, as a complete file of that size. */
  finish(key: string, bom: boolean): LineIndex {
    this.counter.end();
    this.size = this.fedTo;
    const finalNewline = this.lastByte === 10 || this.lastByte === 13;
    const counts = this.counter.counts;
    const terminators = counts.lf + counts.crlf + counts.cr;
    // A checkpoint exactly at the end (after a final newline) is not a line start.
    let checkpoints = this.checkpoints;
    while (checkpoints > 1 && this.offsets[checkpoints - 1]! >= this.size) checkpoints--;
    return {
      key,
      size: this.size,
      bom,
      bodyStart: this.bodyStart,
      lineCount: this.size > this.bodyStart ? terminators + (finalNewline ? 0 : 1) : 0,
      eol: counts,
      finalNewline,
      lines: this.lines.subarray(0, checkpoints),
      offsets: this.offsets.subarray(0, checkpoints),
      checkpoints,
    };
  }

  /** What is known so far, good enough for lineAt() below the point reached (error messages). */
  partial(key: string, bom: boolean): LineIndex {
    return {
      key,
      size: this.size,
      bom,
      bodyStart: this.bodyStart,
      lineCount: 0,
      eol: this.counter.counts,
      finalNewline: false,
      lines: this.lines.subarray(0, this.checkpoints),
      offsets: this.offsets.subarray(0, this.checkpoints),
      checkpoints: this.checkpoints,
    };
  }
}

function grow(array: Float64Array): Float64Array {
  const bigger = new Float64Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** The file uses more than one kind of line ending. */
export function isMixed(index: LineIndex): boolean {
  const { lf, crlf, cr } = index.eol;
  return (lf > 0 ? 1 : 0) + (crlf > 0 ? 1 : 0) + (cr > 0 ? 1 : 0) > 1;
}

/** The dominant line ending, with lines.ts's tie-breaking ("\n", then "\r\n", then "\r" must win outright). */
export function dominantEol(index: LineIndex): '\n' | '\r\n' | '\r' {
  const { lf, crlf, cr } = index.eol;
  let best: '\n' | '\r\n' | '\r' = '\n';
  let count = lf;
  if (crlf > count) {
    best = '\r\n';
    count = crlf;
  }
  if (cr > count) best = '\r';
  return best;
}

/** Index of the last checkpoint at or before line `line` (below: byte `offset`). */
export function checkpointForLine(index: LineIndex, line: number): number {
  let low = 0;
  let high = index.checkpoints - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (index.lines[mid]! <= line) low = mid;
    else high = mid - 1;
  }
  return low;
}

function checkpointForOffset(index: LineIndex, offset: number): number {
  let low = 0;
  let high = index.checkpoints - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (index.offsets[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * Byte offset where line `line` starts; for line lineCount + 1 (just past the end), the file size. Reads at
 * most from the nearest checkpoint to the line.
 */
export async function lineStart(
  handle: FileHandle,
  index: LineIndex,
  line: number,
  chunkSize: number,
): Promise<number> {
  if (line > index.lineCount) return index.size;
  if (line <= 1) return index.bodyStart;
  const cp = checkpointForLine(index, line);
  return skipLines(handle, index.offsets[cp]!, line - index.lines[cp]!, index.size, chunkSize, hasCr(index));
}

/** The file has "\r" line endings (alone or in "\r\n"); without them scans look for "\n" only. */
export function hasCr(index: LineIndex): boolean {
  return index.eol.crlf > 0 || index.eol.cr > 0;
}

/** The offset just past the `count`-th terminator from `from` (which is a line start). */
export async function skipLines(
  handle: FileHandle,
  from: number,
  count: number,
  size: number,
  chunkSize: number,
  crs = true,
): Promise<number> {
  if (count <= 0) return from;
  let left = count;
  let pendingCr = -1; // offset of a "\r" that ended the previous chunk
  // Usually the line is within one stride of the checkpoint: start small.
  for await (const { bytes, position } of readChunks(handle, from, size, chunkSize, { first: 16 << 10 })) {
    let i = 0;
    if (pendingCr !== -1) {
      const end = bytes[0] === 10 ? position + 1 : position;
      pendingCr = -1;
      if (--left === 0) return end;
      if (end > position) i = 1;
    }
    while (i < bytes.length) {
      const q = nextTerminator(bytes, i, crs);
      if (q === -1) break;
      if (bytes[q] === 13) {
        if (q + 1 === bytes.length) {
          pendingCr = position + q;
          break;
        }
        i = bytes[q + 1] === 10 ? q + 2 : q + 1;
      } else i = q + 1;
      if (--left === 0) return position + i;
    }
  }
  return size;
}

/** The first "\n" or "\r" at or after `from`, or -1; `crs` false: the bytes have no "\r". */
export function nextTerminator(bytes: Buffer, from: number, crs = true): number {
  const lf = bytes.indexOf(10, from);
  if (!crs) return lf;
  // Looking for "\r" only up to the "\n" keeps LF files at one memchr per line.
  const cr = lf === -1 ? bytes.indexOf(13, from) : bytes.subarray(from, lf).indexOf(13);
  if (lf === -1) return cr;
  return cr === -1 ? lf : from + cr;
}

/** 1-based number of the line holding byte `offset` (an offset at the end belongs to the last line). */
export async function lineAt(
  handle: FileHandle,
  index: LineIndex,
  offset: number,
  chunkSize: number,
): Promise<number> {
  const cp = checkpointForOffset(index, offset);
  const from = index.offsets[cp]!;
  const counter = new TerminatorCounter();
  for await (const { bytes } of readChunks(handle, from, offset, chunkSize)) counter.feed(bytes);
  const line = index.lines[cp]! + counter.count;
  return index.lineCount > 0 ? Math.min(line, index.lineCount) : line;
}

/** Indexes by path, each valid for one version; the few most recently used are kept. */
export class LineIndexCache {
  private readonly entries = new Map<string, LineIndex>();

  constructor(private readonly max = 8) {}

  get(path: string, key: string): LineIndex | undefined {
    const index = this.entries.get(path);
    if (!index || index.key !== key) return undefined;
    this.entries.delete(path);
    this.entries.set(path, index);
    return index;
  }

  set(path: string, index: LineIndex): void {
    this.entries.delete(path);
    this.entries.set(path, index);
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  forget(path: string): void {
    this.entries.delete(path);
  }
}
