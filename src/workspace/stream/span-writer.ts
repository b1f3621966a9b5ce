/**
 * The one place a streamed edit writes: the original's bytes copied untouched around the replaced spans,
 * the replacements written in their place, into a temp file in the same folder. On the way it records the
 * reverse patch (undo-patch.ts), indexes the new content (so the next read_file of it needs no scan), and
 * keeps the first spans' positions for the preview diff. Memory: two chunk buffers, whatever the sizes.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { readChunks } from './chunk-reader.js';
import { IndexBuilder, type LineIndex } from './line-index.js';
import { countTerminators, TerminatorCounter } from './line-scan.js';
import type { ProgressReporter } from './progress.js';
import { SequentialSource } from './sequential-source.js';
import { type FileOwner, TempWriter } from './temp-writer.js';
import { type FileSlice, PatchWriter } from './undo-patch.js';

/** Bytes put in place of a span: in memory (new text), or a slice of a patch file (undo). */
export type Insert = Buffer | FileSlice;

/** Replace the original's bytes [start, end) by `insert`. Spans come sorted and never overlap. */
export interface Span {
  start: number;
  end: number;
  insert: Insert;
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
  owner: FileOwner | null;
  chunkSize: number;
  /** Folder for the reverse patch; null: keep none (an undo is not undone again). */
  patchDir: string | null;
  /** How many spans' places to keep for the diff. */
  keep: number;
  stride?: number;
  progress?: ProgressReporter;
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

export async function writeWithSpans(
  original: FileHandle,
  index: LineIndex,
  spans: AsyncIterable<Span> | Iterable<Span>,
  options: WriteOptions,
): Promise<WriteResult> {
  const { chunkSize } = options;
  const temp = await TempWriter.create(options.temp, options.owner);
  const source = new SequentialSource(original, 0, index.size, chunkSize);
  let patch: PatchWriter | null = null;
  try {
    if (options.patchDir !== null) patch = await PatchWriter.create(options.patchDir);
    const builder = new IndexBuilder(index.bodyStart, index.size, options.stride);
    const places: SpanPlace[] = [];
    const rest = { removed: 0, added: 0 };
    let count = 0;
    let allSame = true; // every span's bytes equal what they replace
    let lengthsKept = true; // every span is as long as what it replaces

    // Text goes through the index builder; the BOM (if any) is copied as is and is not text.
    const put = async (bytes: Buffer) => {
      if (temp.position >= index.bodyStart) builder.feed(bytes, temp.position);
      await temp.write(bytes);
    };
    await source.take(index.bodyStart, (bytes) => temp.write(bytes));

    for await (const span of spans) {
      if (span.start < source.position || span.end < span.start || span.end > index.size) {
        throw new Error(`span [${span.start}, ${span.end}) out of order (at ${source.position})`);
      }
      await source.take(span.start, put);
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
        counter?.feed(bytes);
        if (same) {
          const at = source.position - span.start;
          same = (insert as Buffer).subarray(at, at + bytes.length).equals(bytes);
        }
      });
      if (oldLength !== insertLength) lengthsKept = false;
      if (oldLength !== insertLength || !same) allSame = false;
      if (Buffer.isBuffer(insert)) await put(insert);
      else {
        for await (const chunk of readChunks(
          insert.handle,
          insert.offset,
          insert.offset + insert.length,
          chunkSize,
        )) {
          await put(chunk.bytes);
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
    }
    await source.take(index.size, async (bytes) => {
      await put(bytes);
      options.progress?.report('write', source.position);
    });
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
      index: builder.finish('', index.bom),
      places,
      count,
      changed,
      rest,
    };
  } catch (error) {
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
