/**
 * Bytes <-> text that can be written back exactly. The core invariant: for every file decodeText accepts,
 * encodeText(decodeText(bytes)) is the same bytes. Anything that could break it (binary content, bytes
 * invalid in the encoding, characters the encoding cannot hold) is refused, never replaced.
 * Line endings are never converted here: the text keeps its own, the codec only records them.
 */
import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { EditgateError } from './errors.js';
import { formatBytes } from './format-bytes.js';
import { type Eol, eolOf, summarizeEol } from './lines.js';
import { firstIllFormedUtf8 } from './utf8-wellformed.js';

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

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;
const UTF16LE_BOM = [0xff, 0xfe] as const;
const UTF16BE_BOM = [0xfe, 0xff] as const;

/** How much of the head the heuristics look at (git looks at 8000 bytes for the same question). */
const SNIFF_BYTES = 8192;

const SUPPORTED =
  'utf8 (the default), utf16le and utf16be (detected by their byte-order mark), or any encoding iconv-lite ' +
  'knows, such as latin1, windows-1252, iso-8859-15, shift_jis, euc-jp, gbk, gb18030, big5, euc-kr, koi8-r';

/** The codec for a file that does not exist yet: UTF-8, no BOM, LF. */
export function defaultCodec(): TextCodec {
  return { encoding: 'utf8', bom: false, eol: '\n', mixedEol: false, finalNewline: true };
}

type Resolved =
  | { kind: 'utf8' }
  | { kind: 'utf16'; endian: 'le' | 'be' | 'detect' }
  | { kind: 'iconv'; name: string };

/** iconv-lite "encodings" that are byte<->string transforms, not text encodings. */
const NOT_TEXT = new Set(['base64', 'base64url', 'hex']);

function resolveEncoding(name: string): Resolved {
  // Same canonical form iconv-lite uses, so 'UTF-8', 'utf_8' and 'utf8' are one name.
  const key = name.toLowerCase().replace(/[^0-9a-z]/g, '');
  if (key === 'utf8') return { kind: 'utf8' };
  if (key === 'utf16le' || key === 'ucs2') return { kind: 'utf16', endian: 'le' };
  if (key === 'utf16be') return { kind: 'utf16', endian: 'be' };
  if (key === 'utf16') return { kind: 'utf16', endian: 'detect' };
  if (key !== '' && !NOT_TEXT.has(key) && iconv.encodingExists(key)) return { kind: 'iconv', name: key };
  throw new EditgateError(
    'INVALID_INPUT',
    `Unknown encoding ${JSON.stringify(name)}. Supported: ${SUPPORTED}. Omit encoding to use UTF-8 ` +
      '(UTF-16 files with a byte-order mark are detected automatically).',
    { encoding: name },
  );
}

/**
 * The canonical form of an encoding name: 'utf8', 'utf16le', 'utf16be', 'utf16' (endianness from the BOM),
 * or iconv-lite's key (lowercase letters and digits, e.g. 'windows1252'). Unknown names: INVALID_INPUT.
 */
export function normalizeEncodingName(name: string): string {
  const resolved = resolveEncoding(name);
  if (resolved.kind === 'utf8') return 'utf8';
  if (resolved.kind === 'utf16') return resolved.endian === 'detect' ? 'utf16' : `utf16${resolved.endian}`;
  return resolved.name;
}

/** Bytes to text. Throws EditgateError BINARY (NUL bytes etc.) or ENCODING (invalid bytes); never replaces. */
export function decodeText(
  bytes: Uint8Array,
  options?: { encoding?: string },
): { text: string; codec: TextCodec } {
  const buf = asBuffer(bytes);
  const requested = options?.encoding;
  if (requested === undefined) {
    if (startsWith(buf, UTF8_BOM)) return decodeUtf8(buf, true);
    if (startsWith(buf, [0xff, 0xfe, 0x00, 0x00])) {
      // A UTF-32LE BOM also starts with the UTF-16LE one; decoding it as UTF-16 would only report NULs.
      throw new EditgateError(
        'ENCODING',
        'The file starts with a UTF-32LE byte-order mark. UTF-32 is not detected automatically: pass the ' +
          'encoding explicitly, encoding: "utf-32le".',
        { offset: 0, encoding: 'utf32le' },
      );
    }
    if (startsWith(buf, UTF16LE_BOM)) return decodeUtf16(buf, 'le', true);
    if (startsWith(buf, UTF16BE_BOM)) return decodeUtf16(buf, 'be', true);
    return decodeUtf8(buf, false);
  }
  const resolved = resolveEncoding(requested);
  if (resolved.kind === 'utf8') {
    const other = startsWith(buf, UTF16LE_BOM) ? 'LE' : startsWith(buf, UTF16BE_BOM) ? 'BE' : null;
    if (other !== null) {
      // Checked first: the NULs of UTF-16 text would otherwise be reported as binary content.
      throw new EditgateError(
        'ENCODING',
        `encoding "${requested}" was requested, but the file starts with a UTF-16${other} byte-order mark. ` +
          'Omit encoding to have it detected.',
        { offset: 0, encoding: 'utf8', bom: `utf16${other.toLowerCase()}` },
      );
    }
    return decodeUtf8(buf, startsWith(buf, UTF8_BOM));
  }
  if (resolved.kind === 'utf16') {
    const bomEndian = startsWith(buf, UTF16LE_BOM) ? 'le' : startsWith(buf, UTF16BE_BOM) ? 'be' : null;
    if (resolved.endian === 'detect')
      return decodeUtf16(buf, bomEndian ?? guessUtf16Endian(buf), bomEndian !== null);
    if (bomEndian !== null && bomEndian !== resolved.endian) {
      throw new EditgateError(
        'ENCODING',
        `encoding "${requested}" was requested, but the file starts with a UTF-16${bomEndian.toUpperCase()} ` +
          'byte-order mark. Omit encoding to let the byte-order mark decide.',
        { offset: 0, encoding: `utf16${resolved.endian}`, bom: `utf16${bomEndian}` },
      );
    }
    return decodeUtf16(buf, resolved.endian, bomEndian !== null);
  }
  return decodeIconv(buf, resolved.name, requested);
}

/** Text to bytes, with the codec's encoding and BOM; line endings are taken from the text as is. */
export function encodeText(text: string, codec: TextCodec): Buffer {
  const resolved = resolveEncoding(codec.encoding);
  if (resolved.kind === 'iconv') return encodeIconv(text, resolved.name, codec.bom);
  // Buffer.from would silently write U+FFFD for a lone surrogate (UTF-8) or write a file we refuse to read
  // back (UTF-16): refuse instead, so encode(text) always decodes to text again.
  const bad = firstLoneSurrogate(text);
  if (bad >= 0) {
    throw unpairedSurrogateError(text, bad, resolved.kind === 'utf8' ? 'utf8' : `utf16${resolved.endian}`);
  }
  if (resolved.kind === 'utf8') {
    if (!codec.bom) return Buffer.from(text, 'utf8');
    const out = Buffer.allocUnsafe(UTF8_BOM.length + Buffer.byteLength(text, 'utf8'));
    out.set(UTF8_BOM, 0);
    out.write(text, UTF8_BOM.length, 'utf8');
    return out;
  }
  const bomLength = codec.bom ? 2 : 0;
  const out = Buffer.allocUnsafe(bomLength + text.length * 2);
  // Written little-endian first; big-endian is the same units byte-swapped (natively, one pass).
  if (codec.bom) out.set(UTF16LE_BOM, 0);
  out.write(text, bomLength, 'utf16le');
  if (resolved.endian === 'be') out.swap16();
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// UTF-8

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeUtf8(buf: Buffer, bom: boolean): { text: string; codec: TextCodec } {
  const start = bom ? UTF8_BOM.length : 0;
  const body = buf.subarray(start);
  const nul = body.indexOf(0);
  if (nul >= 0) throw binaryError(buf, { reason: 'nul', offset: start + nul });
  // isUtf8 is a native validator (simdutf); the fatal decoder below would refuse the same bytes.
  if (!isUtf8(body)) {
    const offset = start + Math.max(0, firstInvalidUtf8(body));
    const evidence = binaryEvidence(buf);
    if (evidence !== null) throw binaryError(buf, evidence);
    const line = lineOf(buf.toString('utf8', start, offset));
    throw new EditgateError(
      'ENCODING',
      {
        happened:
          `The file is not valid UTF-8: byte 0x${hex2(buf[offset] ?? 0)} at byte offset ${offset} (line ${line}) ` +
          'cannot be decoded; it probably uses another encoding. editgate never replaces undecodable bytes, ' +
          'so it cannot edit this file as UTF-8.',
        advice:
          'Pass its encoding in the encoding parameter of read_file (later edits of the file then use it too) ' +
          'or of this call, e.g. encoding: "windows-1252" or encoding: "latin1" (Western European), ' +
          'encoding: "shift_jis" (Japanese), encoding: "gbk" (Chinese).',
      },
      { encoding: 'utf8', offset, line, byte: buf[offset] ?? null },
    );
  }
  const text = utf8Decoder.decode(body);
  return { text, codec: codecFor(text, 'utf8', bom) };
}

/**
 * Offset (from the start of `bytes`) of the first byte of the first invalid UTF-8 sequence, or -1.
 * Only called once a file is known to be invalid: a native bisection narrows the search so the byte-level
 * JS scan (firstIllFormedUtf8, shared with the streaming check) covers a few KB, not the whole file.
 */
function firstInvalidUtf8(bytes: Buffer): number {
  let low = 0; // invariant: bytes[0, low) is valid UTF-8 ending on a character boundary
  let high = bytes.length;
  while (high - low > 4096) {
    let mid = low + ((high - low) >> 1);
    // Step back onto a character start so a valid character straddling mid is not mistaken for an error.
    for (let k = 0; k < 3 && mid > low && ((bytes[mid] ?? 0) & 0xc0) === 0x80; k++) mid--;
    if (isUtf8(bytes.subarray(low, mid))) low = mid;
    else high = mid;
  }
  return firstIllFormedUtf8(bytes, low);
}

// ---------------------------------------------------------------------------------------------------------
// UTF-16

function decodeUtf16(buf: Buffer, endian: 'le' | 'be', bom: boolean): { text: string; codec: TextCodec } {
  const encoding = `utf16${endian}`;
  const name = `UTF-16${endian.toUpperCase()}`;
  const start = bom ? 2 : 0;
  if ((buf.length - start) % 2 !== 0) {
    const offset = buf.length - 1;
    throw new EditgateError(
      'ENCODING',
      `The file is not valid ${name}: it has an odd number of bytes (${buf.length}), so the last byte, at ` +
        `byte offset ${offset}, is half a character. The file may be truncated or not really ${name}: ` +
        'repair it outside editgate, or pass its real encoding explicitly (e.g. encoding: "utf8"). editgate ' +
        'never drops or replaces bytes.',
      { encoding, offset },
    );
  }
  let body = buf.subarray(start);
  if (endian === 'be') body = Buffer.from(body).swap16(); // copy: never mutate the caller's bytes
  const text = body.toString('utf16le');
  const nul = text.indexOf('\0');
  if (nul >= 0) throw binaryError(buf, { reason: 'nul', offset: start + nul * 2 });
  const bad = firstLoneSurrogate(text);
  if (bad >= 0) {
    const offset = start + bad * 2;
    const line = lineOf(text.slice(0, bad));
    throw new EditgateError(
      'ENCODING',
      `The file is not valid ${name}: an unpaired surrogate (0x${hex4(text.charCodeAt(bad))}) at byte ` +
        `offset ${offset} (line ${line}) cannot be decoded. The file may be damaged or not really ${name}: ` +
        'repair it outside editgate, or pass its real encoding explicitly. editgate never replaces ' +
        'undecodable characters.',
      { encoding, offset, line },
    );
  }
  return { text, codec: codecFor(text, encoding, bom) };
}

/** UTF-16 without a BOM: mostly-ASCII text has its zero bytes at odd offsets in LE, even offsets in BE. */
function guessUtf16Endian(buf: Buffer): 'le' | 'be' {
  const [even, odd] = zeroBytesByParity(buf);
  return even > odd ? 'be' : 'le';
}

function zeroBytesByParity(buf: Buffer): [number, number] {
  const end = Math.min(buf.length, SNIFF_BYTES);
  let even = 0;
  let odd = 0;
  for (let i = 0; i < end; i++) {
    if (buf[i] === 0) {
      if (i % 2 === 0) even++;
      else odd++;
    }
  }
  return [even, odd];
}

const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * New text holds a UTF-16 surrogate without its partner (at `index`): no Unicode file can hold it, and
 * Buffer.from would silently write U+FFFD. One refusal for every way new text becomes bytes.
 */
export function unpairedSurrogateError(text: string, index: number, encoding: string): EditgateError {
  const line = lineOf(text.slice(0, index));
  return new EditgateError(
    'ENCODING',
    `The text contains an unpaired UTF-16 surrogate (\\u${hex4(text.charCodeAt(index))}) at character ${index} ` +
      `(line ${line}), which no Unicode file can hold. Remove it or write the intended character instead.`,
    { encoding, index, line },
  );
}

/** Index of the first unpaired surrogate, or -1. Most text has no surrogates at all: one cheap test. */
export function firstLoneSurrogate(text: string): number {
  if (!SURROGATE.test(text)) return -1;
  return text.search(LONE_SURROGATE);
}

// ---------------------------------------------------------------------------------------------------------
// Other encodings, through iconv-lite, only when the caller names one

const wideCache = new Map<string, boolean>();

/** Encodings whose code units contain zero bytes (UTF-32...): there a NUL byte is not a binary signal. */
function isWide(name: string): boolean {
  let wide = wideCache.get(name);
  if (wide === undefined) {
    wide = iconvEncode('\n', name).includes(0);
    wideCache.set(name, wide);
  }
  return wide;
}

function iconvEncode(text: string, name: string): Buffer {
  return iconv.encode(text, name as iconv.Encoding, { addBOM: false });
}

function iconvDecode(bytes: Uint8Array, name: string): string {
  return iconv.decode(bytes, name as iconv.Encoding, { stripBOM: false });
}

function decodeIconv(buf: Buffer, name: string, requested: string): { text: string; codec: TextCodec } {
  if (!isWide(name)) {
    const nul = buf.indexOf(0);
    if (nul >= 0) throw binaryError(buf, { reason: 'nul', offset: nul });
  }
  let text = iconvDecode(buf, name);
  if (isWide(name)) {
    const nul = text.indexOf('\0');
    if (nul >= 0)
      throw binaryError(buf, { reason: 'nul', offset: iconvEncode(text.slice(0, nul), name).length });
  }
  // A BOM decodes to U+FEFF: record it like the UTF-8/16 BOMs so the text never carries it.
  const bom = text.charCodeAt(0) === 0xfeff;
  if (bom) text = text.slice(1);
  // iconv-lite replaces what it cannot decode; the only proof nothing was replaced is getting the exact
  // bytes back. Without a BOM, that also proves decode(encode(text)) === text, the check encodeText makes;
  // with one, the body is decoded again on its own, as encodeText will.
  const bomBytes = bom ? iconvEncode('\uFEFF', name) : null;
  const body = iconvEncode(text, name);
  const raw = bomBytes === null ? body : Buffer.concat([bomBytes, body]);
  const exact = raw.equals(buf) && (bomBytes === null || iconvDecode(body, name) === text);
  if (!exact) {
    const offset = firstDifference(buf, raw);
    const evidence = binaryEvidence(buf);
    if (evidence !== null) throw binaryError(buf, evidence);
    const line = lineOf(iconvDecode(buf.subarray(0, offset), name));
    throw new EditgateError(
      'ENCODING',
      `The file is not valid ${requested}: the bytes at byte offset ${offset} (line ${line}, first byte ` +
        `0x${hex2(buf[offset] ?? 0)}) do not decode and re-encode to themselves, so editing would change them. ` +
        'Pass the encoding the file really uses (omit encoding for UTF-8; e.g. encoding: "latin1" reads any ' +
        'byte). editgate never replaces undecodable bytes.',
      { encoding: name, offset, line, byte: buf[offset] ?? null },
    );
  }
  return { text, codec: codecFor(text, name, bom) };
}

function encodeIconv(text: string, name: string, bom: boolean): Buffer {
  const body = iconvEncode(text, name);
  // iconv-lite writes a substitute ('?') for characters the encoding lacks; decoding back exposes that.
  if (iconvDecode(body, name) !== text) {
    const index = firstUnrepresentable(text, name);
    const codePoint = text.codePointAt(index) ?? 0xfffd;
    const char = String.fromCodePoint(codePoint);
    const line = lineOf(text.slice(0, index));
    throw new EditgateError(
      'ENCODING',
      `The character ${JSON.stringify(char)} (U+${hex4(codePoint)}) ` +
        `at line ${line} cannot be written in the file's encoding (${name}). Use characters that encoding ` +
        'has (e.g. plain ASCII, or an escape sequence your language supports) instead.',
      { encoding: name, index, line, char },
    );
  }
  return bom ? Buffer.concat([iconvEncode('\uFEFF', name), body]) : body;
}

/** Index of the first character that does not survive encoding, found by bisecting on prefixes. */
function firstUnrepresentable(text: string, name: string): number {
  const survives = (end: number) => {
    const prefix = text.slice(0, end);
    return iconvDecode(iconvEncode(prefix, name), name) === prefix;
  };
  let low = 0; // text[0, low) survives
  let high = text.length; // text[0, high) does not
  while (high - low > 1) {
    let mid = (low + high) >> 1;
    const code = text.charCodeAt(mid - 1);
    if (code >= 0xd800 && code <= 0xdbff && mid < high) mid++; // keep surrogate pairs whole
    if (mid >= high) break;
    if (survives(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/** First offset where two buffers differ: native comparison of 64 KB blocks, then bytes in one block. */
function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  const block = 65536;
  let start = 0;
  while (
    start < n &&
    a.compare(b, start, Math.min(n, start + block), start, Math.min(n, start + block)) === 0
  ) {
    start += block;
  }
  for (let i = start; i < Math.min(n, start + block); i++) if (a[i] !== b[i]) return i;
  return Math.min(n, a.length - 1);
}

// ---------------------------------------------------------------------------------------------------------
// Binary content

interface BinaryEvidence {
  reason: 'nul' | 'signature' | 'control';
  offset?: number;
}

/**
 * Known formats, for the description and, for bytes that do not decode, as proof the file is not text.
 * `weak` ones are plain letters a text file could start with: they describe, they never prove.
 */
const SIGNATURES: { offset: number; bytes: readonly number[] | string; kind: string; weak?: boolean }[] = [
  { offset: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], kind: 'PNG image' },
  { offset: 0, bytes: [0xff, 0xd8, 0xff], kind: 'JPEG image' },
  { offset: 0, bytes: 'GIF87a', kind: 'GIF image' },
  { offset: 0, bytes: 'GIF89a', kind: 'GIF image' },
  { offset: 8, bytes: 'WEBP', kind: 'WebP image' },
  { offset: 8, bytes: 'WAVE', kind: 'WAV audio' },
  { offset: 8, bytes: 'AVI ', kind: 'AVI video' },
  { offset: 0, bytes: [0x49, 0x49, 0x2a, 0x00], kind: 'TIFF image' },
  { offset: 0, bytes: [0x4d, 0x4d, 0x00, 0x2a], kind: 'TIFF image' },
  { offset: 0, bytes: [0x00, 0x00, 0x01, 0x00], kind: 'ICO image' },
  { offset: 0, bytes: '8BPS', kind: 'Photoshop image' },
  { offset: 0, bytes: '%PDF-', kind: 'PDF document' },
  { offset: 0, bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], kind: 'legacy Office document' },
  { offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04], kind: 'ZIP archive' },
  { offset: 0, bytes: [0x50, 0x4b, 0x05, 0x06], kind: 'ZIP archive' },
  { offset: 0, bytes: [0x1f, 0x8b], kind: 'gzip archive' },
  { offset: 0, bytes: 'BZh', kind: 'bzip2 archive', weak: true },
  { offset: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], kind: 'xz archive' },
  { offset: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd], kind: 'zstd archive' },
  { offset: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], kind: '7-Zip archive' },
  { offset: 0, bytes: 'Rar!\x1a\x07', kind: 'RAR archive' },
  { offset: 257, bytes: 'ustar', kind: 'tar archive' },
  { offset: 0, bytes: [0x7f, 0x45, 0x4c, 0x46], kind: 'ELF executable' },
  { offset: 0, bytes: [0xfe, 0xed, 0xfa, 0xce], kind: 'Mach-O executable' },
  { offset: 0, bytes: [0xfe, 0xed, 0xfa, 0xcf], kind: 'Mach-O executable' },
  { offset: 0, bytes: [0xce, 0xfa, 0xed, 0xfe], kind: 'Mach-O executable' },
  { offset: 0, bytes: [0xcf, 0xfa, 0xed, 0xfe], kind: 'Mach-O executable' },
  { offset: 0, bytes: [0xca, 0xfe, 0xba, 0xbe], kind: 'Java class file or Mach-O universal binary' },
  { offset: 0, bytes: 'MZ', kind: 'Windows executable', weak: true },
  { offset: 0, bytes: [0x00, 0x61, 0x73, 0x6d], kind: 'WebAssembly module' },
  { offset: 0, bytes: 'SQLite format 3\0', kind: 'SQLite database' },
  { offset: 0, bytes: 'ID3', kind: 'MP3 audio', weak: true },
  { offset: 0, bytes: 'OggS', kind: 'Ogg media' },
  { offset: 0, bytes: 'fLaC', kind: 'FLAC audio' },
  { offset: 4, bytes: 'ftyp', kind: 'MP4/QuickTime media' },
  { offset: 0, bytes: [0x1a, 0x45, 0xdf, 0xa3], kind: 'Matroska/WebM video' },
  { offset: 0, bytes: 'wOFF', kind: 'WOFF font' },
  { offset: 0, bytes: 'wOF2', kind: 'WOFF2 font' },
  { offset: 0, bytes: 'OTTO', kind: 'OpenType font' },
  { offset: 0, bytes: [0x00, 0x01, 0x00, 0x00, 0x00], kind: 'TrueType font' },
];

function signatureKind(bytes: Uint8Array, strongOnly = false): string | null {
  for (const signature of SIGNATURES) {
    if (strongOnly && signature.weak) continue;
    const expected =
      typeof signature.bytes === 'string'
        ? Array.from(signature.bytes, (c) => c.charCodeAt(0))
        : signature.bytes;
    if (startsWith(bytes, expected, signature.offset)) return signature.kind;
  }
  return null;
}

/**
 * Proof that bytes which already failed to decode are binary rather than text in another encoding: a known
 * binary format, or a head dense with control characters no text uses (tab, line breaks, form feed and
 * ESC, for ANSI colours, excepted).
 */
function binaryEvidence(bytes: Uint8Array): BinaryEvidence | null {
  if (signatureKind(bytes, true) !== null) return { reason: 'signature' };
  const end = Math.min(bytes.length, SNIFF_BYTES);
  let controls = 0;
  for (let i = 0; i < end; i++) {
    const b = bytes[i]!;
    // Zero is left out: where NUL bytes are not already refused, the encoding is a wide one (UTF-32).
    if (
      b < 0x20 &&
      b !== 0x00 &&
      b !== 0x09 &&
      b !== 0x0a &&
      b !== 0x0b &&
      b !== 0x0c &&
      b !== 0x0d &&
      b !== 0x1b
    )
      controls++;
  }
  return end > 0 && controls * 10 > end ? { reason: 'control' } : null;
}

/**
 * Does this look like a binary file? NUL bytes anywhere, or bytes that are not UTF-8 and belong to a known
 * binary format or are dense with control characters. UTF-16 with a byte-order mark is text (its zero bytes
 * are half characters). Works on a file's head too.
 */
export function isBinary(bytes: Uint8Array): boolean {
  if (startsWith(bytes, UTF16LE_BOM) || startsWith(bytes, UTF16BE_BOM)) return false;
  if (bytes.indexOf(0) >= 0) return true;
  return !isUtf8(bytes) && binaryEvidence(bytes) !== null;
}

/** A short description for people and models, e.g. "binary file (PNG image, 12.3 KB)". */
export function describeBinary(bytes: Uint8Array, size: number = bytes.length): string {
  const kind = signatureKind(bytes);
  return `binary file (${kind === null ? '' : `${kind}, `}${formatBytes(size)})`;
}

function binaryError(buf: Buffer, evidence: BinaryEvidence): EditgateError {
  const description = describeBinary(buf);
  const where =
    evidence.reason === 'nul'
      ? ` It contains a NUL byte at byte offset ${evidence.offset}.`
      : evidence.reason === 'control'
        ? ' It is full of control characters.'
        : '';
  const hint = utf16Hint(buf);
  return new EditgateError(
    'BINARY',
    `This is a ${description}: editgate edits text files only, so it will not read or change it as text.` +
      where +
      hint,
    {
      reason: evidence.reason,
      offset: evidence.offset ?? null,
      kind: signatureKind(buf),
      size: buf.length,
      description,
    },
  );
}

/** UTF-16 text without a BOM looks binary (every other byte is zero); say so rather than leave it a mystery. */
function utf16Hint(buf: Buffer): string {
  const sample = Math.min(buf.length, SNIFF_BYTES);
  // Too few bytes to tell a pattern from chance.
  if (sample < 32 || signatureKind(buf) !== null) return '';
  const [even, odd] = zeroBytesByParity(buf);
  const half = sample / 2;
  if (odd > half * 0.3 && even < half * 0.02) {
    return ' If it is UTF-16 text without a byte-order mark, pass encoding: "utf-16le".';
  }
  if (even > half * 0.3 && odd < half * 0.02) {
    return ' If it is UTF-16 text without a byte-order mark, pass encoding: "utf-16be".';
  }
  return '';
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

function codecFor(text: string, encoding: string, bom: boolean): TextCodec {
  const eol = eolOf(text);
  return { encoding, bom, eol: eol.dominant, mixedEol: eol.mixed, finalNewline: eol.finalNewline };
}

/** 1-based line at the end of `prefix` (the line holding the character right after it). */
function lineOf(prefix: string): number {
  const { counts } = summarizeEol(prefix);
  return 1 + counts['\n'] + counts['\r\n'] + counts['\r'];
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function hex2(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, '0');
}

function hex4(unit: number): string {
  return unit.toString(16).toUpperCase().padStart(4, '0');
}
