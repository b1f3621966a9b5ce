/**
 * The one place a streamed edit writes: the original's bytes copied untouched around the replaced spans,
 * the replacements written in their place, into a temp file in the same folder. On the way it records the
 * reverse patch (undo-patch.ts), indexes the new content (so the next read_file of it needs no scan), and
 * keeps the first spans' positions for the preview diff. Memory: two chunk buffers, whatever the sizes.
 */
import { type FileHandle, open } from 'node:fs/promises';
import type { ProgressReporter } from '../../../core/progress.js';
import { type FileSlice, PatchWriter } from '../../reverse-patch.js';
import { readChunks, readRange, SequentialSource } from '../read/chunks.js';
import { IndexShifter } from '../read/index-shift.js';
import type { LineIndex } from '../read/line-index.js';
import { countTerminators, TerminatorCounter } from '../read/line-scan.js';
import { type FileOwner, TempWriter } from './temp-writer.js';

/** Bytes put in place of a span: in memory (new text), or a slice of a patch file (undo). */
export type Insert = Buffer | FileSlice;

/** Replace the original's bytes [start, end) by `insert`. Spans come sorted and never overlap. */
export interface Span {
  start: number;
  end: number;
  insert: Insert;
}

/**
 * No span starts before `until`: the writer may copy up to there. A planner that finds spans while the file
 * is written (a search running ahead of the writer) says so as it goes.
 */
export interface Until {
  until: number;
}

/** Where a span ended up: old bytes [start, end) are new bytes [newStart, newEnd). */
export interface SpanPlace {
  start: number;
  end: number;
  newStart: number;
  newEnd: number;
}

export interface WriteOptions {
  temp: string;
  /** The original's path: a far first span lets the kernel copy everything before it (copy_file_range). */
  sourcePath?: string;
  owner: FileOwner | null;
  chunkSize: number;
  /** Folder for the reverse patch; null: keep none (an undo is not undone again). */
  patchDir: string | null;
  /** How many spans' places to keep for the diff. */
  keep: number;
  progress?: ProgressReporter;
  /** Smallest file whose prefix is left to the filesystem to copy. Default 8 MiB (tests lower it). */
  kernelCopyMin?: number;
  /** See TempWriter.copyOf. Default 'reflink'. */
  kernelCopy?: 'reflink' | 'copy';
}

export interface WriteResult {
  temp: string;
  patch: string | null;
  size: number;
  /** Index of the new content (its key is set when the file is committed). */
  index: LineIndex;
  /** The first `keep` spans. */
  places: SpanPlace[];
  count: number;
  /** Some span's bytes differ from what they replace. */
  changed: boolean;
  /** Estimated lines removed and added by the spans beyond `keep` (they are not diffed). */
  rest: { removed: number; added: number };
}

/** A filesystem copy of the prefix pays off when the first span is this far into a file at least this big. */
const KERNEL_COPY_FROM = 0.4;
const KERNEL_COPY_MIN = 8 << 20;

export async function writeWithSpans(
  original: FileHandle,
  index: LineIndex,
  spans: AsyncIterable<Span | Until> | Iterable<Span | Until>,
  options: WriteOptions,
): Promise<WriteResult> {
  const { chunkSize } = options;
  const iterator =
    Symbol.asyncIterator in spans
      ? (spans as AsyncIterable<Span | Until>)[Symbol.asyncIterator]()
      : (spans as Iterable<Span | Until>)[Symbol.iterator]();
  let next = await iterator.next();
  // Everything before the first span is unchanged: when that is most of a big file, let the filesystem
  // copy it (no trip through our buffers) and stream only from the first span on.
  const firstStart = next.done ? index.size : 'until' in next.value ? -1 : next.value.start;
  let temp: TempWriter | null = null;
  if (
    firstStart >= 0 &&
    options.sourcePath &&
    firstStart - index.bodyStart >= KERNEL_COPY_FROM * index.size &&
    index.size >= (options.kernelCopyMin ?? KERNEL_COPY_MIN)
  ) {
    temp = await TempWriter.copyOf(
      options.sourcePath,
      options.temp,
      options.owner,
      firstStart,
      options.kernelCopy ?? 'reflink',
    );
  }
  temp ??= await TempWriter.create(options.temp, options.owner);
  const copied = temp.position;
  const source = new SequentialSource(original, copied, index.size, chunkSize);
  let patch: PatchWriter | null = null;
  try {
    if (options.patchDir !== null) patch = await PatchWriter.create(options.patchDir);
    const shifter = new IndexShifter(index);
    const places: SpanPlace[] = [];
    const rest = { removed: 0, added: 0 };
    let count = 0;
    let allSame = true; // every span's bytes equal what they replace
    let lengthsKept = true; // every span is as long as what it replaces
    let lastByte = -1; // the new file's last byte so far

    const write = async (bytes: Buffer) => {
      if (bytes.length === 0) return;
      lastByte = bytes[bytes.length - 1]!;
      await temp.write(bytes);
    };
    let done = 0; // the original is handled up to here
    /** The unchanged stretch up to `to`: copied (unless the kernel did), and told to the index shifter. */
    const copyUpTo = async (to: number) => {
      if (to <= done) return;
      const from = Math.max(done, index.bodyStart); // the BOM is not text
      let first = -1;
      let last = -1;
      if (to <= copied) {
        // Already in the temp file: only its first and last bytes matter, for the index.
        if (from < to) {
          first = (await readRange(original, from, 1))[0]!;
          last = (await readRange(original, to - 1, 1))[0]!;
          lastByte = last;
        }
      } else {
        await source.take(to, async (bytes) => {
          const at = source.position;
          if (first === -1 && at + bytes.length > from) first = bytes[Math.max(0, from - at)]!;
          last = bytes[bytes.length - 1]!;
          await write(bytes);
          options.progress?.report('write', at + bytes.length);
        });
      }
      if (from < to) shifter.gap(from, to, first, last);
      done = to;
    };

    while (!next.done) {
      if ('until' in next.value) {
        await copyUpTo(Math.min(next.value.until, index.size));
        next = await iterator.next();
        continue;
      }
      const span = next.value;
      if (span.start < Math.max(done, index.bodyStart) || span.end < span.start || span.end > index.size) {
        throw new Error(`span [${span.start}, ${span.end}) out of order (at ${source.position})`);
      }
      await copyUpTo(span.start);
      const insert = span.insert;
      const insertLength = insert.length;
      const oldLength = span.end - span.start;
      const newStart = temp.position;
      // Same length: compare as the old bytes go by (a span that changes nothing may make the edit a no-op).
      let same = oldLength === insertLength && Buffer.isBuffer(insert);
      const counter = count >= options.keep ? new TerminatorCounter() : null;
      await patch?.begin(newStart, insertLength, span.start, oldLength);
      await source.take(span.end, async (bytes) => {
        await patch?.old(bytes);
        shifter.old(bytes);
        counter?.feed(bytes);
        if (same) {
          const at = source.position - span.start;
          same = (insert as Buffer).subarray(at, at + bytes.length).equals(bytes);
        }
      });
      done = span.end;
      if (oldLength !== insertLength) lengthsKept = false;
      if (oldLength !== insertLength || !same) allSame = false;
      if (Buffer.isBuffer(insert)) {
        shifter.insert(insert);
        await write(insert);
      } else {
        const end = insert.offset + insert.length;
        for await (const chunk of readChunks(insert.handle, insert.offset, end, chunkSize)) {
          shifter.insert(chunk.bytes);
          await write(chunk.bytes);
        }
      }
      if (count < options.keep) {
        places.push({ start: span.start, end: span.end, newStart, newEnd: temp.position });
      } else if (counter) {
        counter.end();
        rest.removed += linesOf(counter.lf + counter.crlf + counter.cr, oldLength);
        rest.added += Buffer.isBuffer(insert) ? linesOf(countTerminators(insert), insertLength) : 1;
      }
      count++;
      options.progress?.report('write', source.position);
      next = await iterator.next();
    }
    await copyUpTo(index.size);
    options.progress?.done('write');
    await source.close();
    await temp.finish();
    await patch?.finish();
    // Spans that shift bytes can still cancel out ("a|aa" with the first "a" moved to the end): then only a
    // comparison of the whole files can tell, and only then is it needed.
    const changed =
      !allSame &&
      (temp.position !== index.size ||
        lengthsKept ||
        !(await sameBytes(original, temp.path, index.size, chunkSize)));
    return {
      temp: temp.path,
      patch: patch?.path ?? null,
      size: temp.position,
      index: shifter.finish(temp.position, lastByte),
      places,
      count,
      changed,
      rest,
    };
  } catch (error) {
    await iterator.return?.();
    await source.close().catch(() => {});
    await temp.abort();
    await patch?.abort();
    throw error;
  }
}

/** Lines a piece touches, roughly: its terminators, plus the line it ends in. */
function linesOf(terminators: number, length: number): number {
  return length === 0 ? 0 : terminators + 1;
}

async function sameBytes(
  source: FileHandle,
  path: string,
  size: number,
  chunkSize: number,
): Promise<boolean> {
  const other = await open(path, 'r');
  try {
    const theirs = Buffer.allocUnsafe(chunkSize);
    for await (const chunk of readChunks(source, 0, size, chunkSize)) {
      const { bytesRead } = await other.read(theirs, 0, chunk.bytes.length, chunk.position);
      if (bytesRead !== chunk.bytes.length || !theirs.subarray(0, bytesRead).equals(chunk.bytes))
        return false;
    }
    return true;
  } finally {
    await other.close();
  }
}
