// CONTRACT STUB: owned by the core/text helper, who replaces this file with the implementation.
import type { Eol } from './lines.js';

/** Everything needed to turn decoded text back into the exact bytes it came from. */
export interface TextCodec {
  /** 'utf8' | 'utf16le' | 'utf16be' | any iconv-lite encoding name the caller asked for (e.g. 'latin1'). */
  encoding: string;
  /** The bytes started with a byte-order mark (kept on write). */
  bom: boolean;
  /** Dominant line ending: what inserted lines get. */
  eol: Eol;
  /** More than one kind of line ending occurs. */
  mixedEol: boolean;
  /** The text ends with a line ending. */
  finalNewline: boolean;
}

/** Bytes to text. Throws EditgateError BINARY (NUL bytes etc.) or ENCODING (invalid bytes); never replaces. */
export declare function decodeText(bytes: Uint8Array, options?: { encoding?: string }): { text: string; codec: TextCodec };

/** Text to bytes, with the codec's encoding and BOM; line endings are taken from the text as is. */
export declare function encodeText(text: string, codec: TextCodec): Buffer;

/** The codec for a file that does not exist yet: UTF-8, no BOM, LF. */
export declare function defaultCodec(): TextCodec;
