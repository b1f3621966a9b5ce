/**
 * Which files the streaming path can edit without risk: UTF-8, with or without a BOM. Everything else that
 * is too large for memory is refused before a byte is read, with what to do instead.
 */
import { EditgateError } from '../../core/errors.js';
import { formatBytes } from '../../core/format-bytes.js';

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
    `${display} is too large to hold in memory (${formatBytes(size)}), so editgate would have to stream it, but ${why}. ${next} Nothing was read or written.`,
    { path: display, size },
  );
}
