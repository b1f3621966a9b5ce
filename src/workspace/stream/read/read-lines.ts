/**
 * read_file on a huge file: from the nearest checkpoint of the line index, read forward only as far as the
 * lines asked for, in one read sized by the file's average line length when that guess is right. Lines are
 * decoded straight from the read buffer; only a line that crosses a chunk border is gathered. A line longer
 * than `maxLineBytes` is cut (at a character boundary), so memory stays bounded even for a file that is one
 * 2 GB line; the cut is reported, never hidden.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Eol } from '../../../core/lines.js';
import { readChunks } from './chunks.js';
import { checkpointForLine, hasCr, type LineIndex, nextTerminator } from './line-index.js';

export interface ReadLine {
  /** 1-based line number. */
  number: number;
  /** The line without its terminator (cut when `fullBytes` says so). */
  text: string;
  /** Its terminator; '' for a last line without one. */
  eol: Eol | '';
  /** Set when the line was cut: its whole length in bytes. */
  fullBytes?: number;
}

export interface ReadLinesOptions {
  chunkSize: number;
  /** Longer lines are cut to this many bytes. */
  maxLineBytes: number;
  onBytes?: (reached: number) => void;
}

/**
 * Lines first, first + 1, ... while `accept` says yes to each (it sees the line and returns false to stop
 * before it), at most `limit` of them.
 */
export async function readLines(
  handle: FileHandle,
  index: LineIndex,
  first: number,
  limit: number,
  accept: (line: ReadLine) => boolean,
  options: ReadLinesOptions,
): Promise<void> {
  if (first > index.lineCount || limit <= 0) return;
  const crs = hasCr(index);
  const checkpoint = checkpointForLine(index, first);
  let number = index.lines[checkpoint]!; // the line the scan is in
  let left = limit;
  const pieces: Buffer[] = []; // the current line's bytes from earlier chunks
  let kept = 0; // bytes of the current line kept in `pieces`
  let length = 0; // bytes of the current line in all
  let pendingCr = false; // the line ended with "\r" at a chunk end: "\r" or "\r\n", the next chunk says

  // The line number..end of the current line ends at bytes[from, to); false when reading should stop.
  const emit = (bytes: Buffer, from: number, to: number, eol: Eol | ''): boolean => {
    if (number < first) {
      number++;
      pieces.length = 0;
      kept = length = 0;
      return true;
    }
    let text: string;
    const total = length + (to - from);
    const cut = total > options.maxLineBytes;
    if (pieces.length === 0 && !cut) text = bytes.toString('utf8', from, to);
    else {
      keep(bytes, from, to);
      const joined = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, kept);
      text = decode(joined, cut);
    }
    const line: ReadLine = { number, text, eol };
    if (cut) line.fullBytes = total;
    if (pieces.length > 0) pieces.length = 0;
    kept = length = 0;
    if (!accept(line)) return false;
    number++;
    return --left > 0;
  };
  // Whole lines inside one chunk, decoded in one go (one string, split): false when reading should stop.
  const batch = (text: string): boolean => {
    // Without "\r" in the file every terminator is "\n": a plain split, much faster than the regex.
    const parts = crs ? text.split(TERMINATOR) : text.split('\n');
    const step = crs ? 2 : 1;
    for (let k = 0; k + 1 < parts.length; k += step) {
      let line = parts[k]!;
      let fullBytes: number | undefined;
      // Characters are at most 3 bytes: only a line that long can be over the limit.
      if (line.length * 3 > options.maxLineBytes && Buffer.byteLength(line) > options.maxLineBytes) {
        fullBytes = Buffer.byteLength(line);
        line = decode(Buffer.from(line).subarray(0, options.maxLineBytes), true);
      }
      const read: ReadLine = { number, text: line, eol: crs ? (parts[k + 1] as Eol) : '\n' };
      if (fullBytes !== undefined) read.fullBytes = fullBytes;
      if (!accept(read)) return false;
      number++;
      if (--left === 0) return false;
    }
    return true;
  };
  // The part of a line in this chunk, kept (copied: the buffer is reused) until the line ends.
  const keep = (bytes: Buffer, from: number, to: number) => {
    length += to - from;
    const room = options.maxLineBytes - kept;
    if (room <= 0 || to <= from || number < first) return;
    const piece = Buffer.from(bytes.subarray(from, Math.min(to, from + room)));
    pieces.push(piece);
    kept += piece.length;
  };

  // One read, if the average line length holds: the lines to skip from the checkpoint, then those wanted.
  const average = index.lineCount > 0 ? (index.size - index.bodyStart) / index.lineCount : 80;
  const wanted = first - number + Math.min(limit, index.lineCount - first + 1);
  const firstRead = Math.ceil(wanted * average * 1.25) + 4096;
  const start = index.offsets[checkpoint]!;
  for await (const { bytes, position } of readChunks(handle, start, index.size, options.chunkSize, {
    first: firstRead,
  })) {
    let i = 0;
    if (pendingCr) {
      pendingCr = false;
      const crlf = bytes[0] === 10;
      if (crlf) i = 1;
      if (!emit(bytes, 0, 0, crlf ? '\r\n' : '\r')) return;
    }
    while (i < bytes.length) {
      if (number >= first && length === 0) {
        // At the start of a wanted line: the complete lines ahead, as far as still needed, in one decode.
        const cap = Math.min(bytes.length, i + Math.ceil(left * average * 1.5) + 4096);
        const end = lastLineEnd(bytes, i, cap, crs);
        if (end > i) {
          if (!batch(bytes.toString('utf8', i, end))) return;
          i = end;
          continue;
        }
      }
      const q = nextTerminator(bytes, i, crs);
      if (q === -1) {
        keep(bytes, i, bytes.length);
        break;
      }
      let eol: Eol;
      if (bytes[q] === 13) {
        if (q + 1 === bytes.length) {
          keep(bytes, i, q);
          pendingCr = true;
          i = q + 1;
          break;
        }
        eol = bytes[q + 1] === 10 ? '\r\n' : '\r';
      } else eol = '\n';
      if (!emit(bytes, i, q, eol)) return;
      i = q + eol.length;
    }
    options.onBytes?.(position + bytes.length);
  }
  if (pendingCr) emit(Buffer.alloc(0), 0, 0, '\r');
  // The last line has no terminator.
  else if (length > 0) emit(Buffer.alloc(0), 0, 0, '');
}

const TERMINATOR = /(\r\n|\r|\n)/;

/**
 * The end of the last line end in bytes[from, cap) (the terminator may reach past cap), or -1. A "\r" on the
 * chunk's last byte does not count: a "\n" may follow in the next chunk.
 */
function lastLineEnd(bytes: Buffer, from: number, cap: number, crs: boolean): number {
  let to = cap;
  while (to > from) {
    const lf = bytes.lastIndexOf(10, to - 1);
    const cr = crs ? bytes.lastIndexOf(13, to - 1) : -1;
    const q = Math.max(lf, cr);
    if (q < from) return -1;
    if (bytes[q] === 10) return q + 1;
    if (q + 1 < bytes.length) return bytes[q + 1] === 10 ? q + 2 : q + 1;
    to = q; // a "\r" at the very end of the chunk: look before it
  }
  return -1;
}

/** UTF-8 text of a line; a cut line loses the partial character at its end instead of showing U+FFFD. */
function decode(bytes: Buffer, cut: boolean): string {
  if (!cut) return bytes.toString('utf8');
  let end = bytes.length;
  let lead = end - 1;
  while (lead > 0 && lead > end - 4 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead--;
  const first = bytes[lead] ?? 0;
  const need = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  if (lead + need > end) end = lead;
  return bytes.toString('utf8', 0, end);
}
