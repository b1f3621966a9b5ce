/**
 * Checking that a file is UTF-8 text while it streams past: no NUL bytes, and valid UTF-8 (the native
 * simdutf validator, per chunk). A character cut by a chunk border is carried over to the next chunk.
 * The normal path refuses such files on read; so does this one, so a streamed edit can never hand a model
 * mojibake or write bytes it could not read back.
 */
import { isUtf8 } from 'node:buffer';
import { EditgateError } from '../../../core/errors.js';
import { formatBytes } from '../../../core/format-bytes.js';
import { describeBinary, isBinary } from '../../../core/text.js';
import { firstIllFormedUtf8 } from '../../../core/utf8-wellformed.js';

export interface BadByte {
  kind: 'nul' | 'utf8';
  /** File offset of the offending byte. */
  offset: number;
  byte: number;
}

export class Utf8Check {
  private readonly carry = Buffer.alloc(4);
  private carryLength = 0;
  private carryOffset = 0;

  /** Checks bytes (starting at file offset `position`); returns the first bad byte, or null. */
  feed(bytes: Buffer, position: number): BadByte | null {
    const nul = bytes.indexOf(0);
    if (nul !== -1) return { kind: 'nul', offset: position + nul, byte: 0 };
    let from = 0;
    if (this.carryLength > 0) {
      const need = sequenceLength(this.carry[0]!) - this.carryLength;
      const take = Math.min(need, bytes.length);
      bytes.copy(this.carry, this.carryLength, 0, take);
      this.carryLength += take;
      from = take;
      if (take < need) return null;
      if (!isUtf8(this.carry.subarray(0, this.carryLength))) {
        return { kind: 'utf8', offset: this.carryOffset, byte: this.carry[0]! };
      }
      this.carryLength = 0;
    }
    let end = bytes.length;
    // Step back to the start of the last character; carry it if it is not complete.
    let lead = end - 1;
    while (lead >= from && lead > end - 4 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead--;
    if (lead >= from && lead + sequenceLength(bytes[lead]!) > end && isLeadByte(bytes[lead]!)) {
      bytes.copy(this.carry, 0, lead, end);
      this.carryLength = end - lead;
      this.carryOffset = position + lead;
      end = lead;
    }
    if (from < end && !isUtf8(bytes.subarray(from, end))) {
      const bad = from + firstInvalid(bytes.subarray(from, end));
      return { kind: 'utf8', offset: position + bad, byte: bytes[bad] ?? 0 };
    }
    return null;
  }

  /** End of the file: a character still incomplete is invalid. */
  end(): BadByte | null {
    if (this.carryLength === 0) return null;
    return { kind: 'utf8', offset: this.carryOffset, byte: this.carry[0]! };
  }
}

/** The error for a bad byte, worded like the normal path's, with the streaming path's way out. */
export function badByteError(bad: BadByte, line: number, head: Buffer, size: number, display: string) {
  if (bad.kind === 'nul' || isBinary(head)) {
    const description = describeBinary(head, size);
    return new EditgateError(
      'BINARY',
      `This is a ${description}: editgate edits text files only, so it will not read or change it as text.${bad.kind === 'nul' ? ` It contains a NUL byte at byte offset ${bad.offset}.` : ''}`,
      {
        reason: bad.kind === 'nul' ? 'nul' : 'control',
        offset: bad.offset,
        size,
        description,
        path: display,
      },
    );
  }
  return new EditgateError(
    'ENCODING',
    {
      happened: `${display} is not valid UTF-8: byte 0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')} at byte offset ${bad.offset} (line ${line}) cannot be decoded. It probably uses another encoding, and a file this large is streamed only as UTF-8: it can be converted first (e.g. iconv -f windows-1252 -t UTF-8 ${display} > converted) and the converted file edited. editgate never replaces undecodable bytes.`,
      advice: 'Convert it, or ask the user to.',
    },
    { encoding: 'utf8', offset: bad.offset, line, byte: bad.byte, path: display },
  );
}

function isLeadByte(byte: number): boolean {
  return byte >= 0xc2 && byte <= 0xf4;
}

function sequenceLength(byte: number): number {
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 1;
}

/**
 * Offset of the first ill-formed byte (core's table 3-7 walk); only on the error path. The native validator
 * has already refused these bytes, so the walk finds one; if it did not, the last byte is blamed.
 */
function firstInvalid(bytes: Buffer): number {
  const bad = firstIllFormedUtf8(bytes);
  return bad === -1 ? Math.max(0, bytes.length - 1) : bad;
}

/**
 * Which files the streaming path can edit without risk: UTF-8, with or without a BOM. Everything else that
 * is too large for memory is refused before a byte is read, with what to do instead.
 */

export interface Streamable {
  /** The file starts with a UTF-8 BOM: the text (line 1) starts after it. */
  bom: boolean;
  /** Offset of the first byte of text. */
  bodyStart: number;
}

/** Checks the head of a file (its first bytes) and the encoding the caller asked for. */
export function checkStreamable(head: Buffer, size: number, display: string, requested?: string): Streamable {
  if (requested !== undefined && !isUtf8Name(requested)) {
    throw tooLarge(
      display,
      size,
      `it was asked to be read as ${requested}, and files this large are streamed only as UTF-8`,
      `Convert it to UTF-8 first (e.g. iconv -f ${requested} -t UTF-8 ${display} > converted), or omit encoding if it is UTF-8 already.`,
    );
  }
  const utf16 =
    head[0] === 0xff && head[1] === 0xfe
      ? 'UTF-16LE'
      : head[0] === 0xfe && head[1] === 0xff
        ? 'UTF-16BE'
        : null;
  if (utf16) {
    throw tooLarge(
      display,
      size,
      `it is ${utf16} (it starts with a ${utf16} byte-order mark), and files this large are streamed only as UTF-8`,
      `Convert it to UTF-8 first (e.g. iconv -f ${utf16} -t UTF-8 ${display} > converted) and edit the converted file, or ask the user to.`,
    );
  }
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  return { bom, bodyStart: bom ? 3 : 0 };
}

function isUtf8Name(name: string): boolean {
  const key = name.toLowerCase().replace(/[^0-9a-z]/g, '');
  return key === 'utf8';
}

function tooLarge(display: string, size: number, why: string, next: string): EditgateError {
  return new EditgateError(
    'TOO_LARGE',
    {
      happened: `${display} is too large to hold in memory (${formatBytes(size)}), so editgate would have to stream it, but ${why}. Nothing was read or written.`,
      advice: next,
    },
    { path: display, size },
  );
}
