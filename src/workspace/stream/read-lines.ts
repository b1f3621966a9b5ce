/**
 * read_file on a huge file: from the nearest checkpoint of the line index, read forward only as far as the
 * lines asked for. A line longer than `maxLineBytes` is cut (at a character boundary) so memory stays
 * bounded even for a file that is one 2 GB line; the cut is reported, never hidden.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Eol } from '../../core/lines.js';
import { readChunks } from './chunk-reader.js';
import { hasCr, type LineIndex, lineStart, nextTerminator } from './line-index.js';

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
  const start = await lineStart(handle, index, first, options.chunkSize);
  let number = first;
  let left = limit;
  const pieces: Buffer[] = [];
  let kept = 0; // bytes of the current line kept in `pieces`
  let length = 0; // bytes of the current line in all
  let pendingCr = false; // the line ended with "\r" at a chunk end: "\r" or "\r\n", the next chunk says

  // Returns false when reading should stop.
  const emit = (eol: Eol | ''): boolean => {
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, kept);
    const cut = length > kept;
    const line: ReadLine = { number, text: decode(bytes, cut), eol };
    if (cut) line.fullBytes = length;
    pieces.length = 0;
    kept = 0;
    length = 0;
    if (!accept(line)) return false;
    number++;
    return --left > 0;
  };
  const keep = (bytes: Buffer, from: number, to: number) => {
    length += to - from;
    const room = options.maxLineBytes - kept;
    if (room <= 0 || to <= from) return;
    // Copied: the chunk buffer is reused for the next read.
    const piece = Buffer.from(bytes.subarray(from, Math.min(to, from + room)));
    pieces.push(piece);
    kept += piece.length;
  };

  for await (const { bytes, position } of readChunks(handle, start, index.size, options.chunkSize)) {
    let i = 0;
    if (pendingCr) {
      pendingCr = false;
      const crlf = bytes[0] === 10;
      if (crlf) i = 1;
      if (!emit(crlf ? '\r\n' : '\r')) return;
    }
    while (i < bytes.length) {
      const q = nextTerminator(bytes, i, crs);
      if (q === -1) {
        keep(bytes, i, bytes.length);
        break;
      }
      keep(bytes, i, q);
      let eol: Eol;
      if (bytes[q] === 13) {
        if (q + 1 === bytes.length) {
          pendingCr = true;
          i = q + 1;
          break;
        }
        eol = bytes[q + 1] === 10 ? '\r\n' : '\r';
        i = q + eol.length;
      } else {
        eol = '\n';
        i = q + 1;
      }
      if (!emit(eol)) return;
    }
    options.onBytes?.(position + bytes.length);
  }
  if (pendingCr) emit('\r');
  // The last line has no terminator.
  else if (length > 0) emit('');
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
