import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { type EditgateError, isEditgateError } from '../../src/core/errors.js';
import {
  decodeText,
  defaultCodec,
  describeBinary,
  encodeText,
  isBinary,
  normalizeEncodingName,
  type TextCodec,
} from '../../src/core/text.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const bytes = (...values: number[]) => Buffer.from(values);
const UTF8_BOM = bytes(0xef, 0xbb, 0xbf);
const utf16le = (s: string, bom = true) =>
  Buffer.concat([bom ? bytes(0xff, 0xfe) : bytes(), Buffer.from(s, 'utf16le')]);
const utf16be = (s: string, bom = true) =>
  Buffer.concat([bom ? bytes(0xfe, 0xff) : bytes(), Buffer.from(s, 'utf16le').swap16()]);

/** Decodes, checks encode(decode(x)) == x, and returns the result. */
function roundTrip(input: Uint8Array, options?: { encoding?: string }): { text: string; codec: TextCodec } {
  const decoded = decodeText(input, options);
  expect(Buffer.compare(encodeText(decoded.text, decoded.codec), input)).toBe(0);
  return decoded;
}

function thrown(fn: () => unknown): EditgateError {
  try {
    fn();
  } catch (error) {
    if (isEditgateError(error)) return error;
    throw error;
  }
  throw new Error('expected an EditgateError');
}

describe('defaultCodec', () => {
  it('is UTF-8, no BOM, LF, not mixed, with a final newline', () => {
    expect(defaultCodec()).toEqual({
      encoding: 'utf8',
      bom: false,
      eol: '\n',
      mixedEol: false,
      finalNewline: true,
    });
  });

  it('returns a fresh object each time', () => {
    const a = defaultCodec();
    a.eol = '\r\n';
    expect(defaultCodec().eol).toBe('\n');
  });

  it('encodes plain UTF-8', () => {
    expect(encodeText('héllo\n', defaultCodec())).toEqual(utf8('héllo\n'));
  });
});

describe('UTF-8', () => {
  it('decodes without a BOM', () => {
    const { text, codec } = roundTrip(utf8('const a = "é日本😀";\n'));
    expect(text).toBe('const a = "é日本😀";\n');
    expect(codec).toEqual({ encoding: 'utf8', bom: false, eol: '\n', mixedEol: false, finalNewline: true });
  });

  it('recognises and keeps a BOM, without putting it in the text', () => {
    const input = Buffer.concat([UTF8_BOM, utf8('a\r\nb\r\n')]);
    const { text, codec } = roundTrip(input);
    expect(text).toBe('a\r\nb\r\n');
    expect(codec.bom).toBe(true);
    expect(codec.encoding).toBe('utf8');
    expect(encodeText('x', codec)).toEqual(Buffer.concat([UTF8_BOM, utf8('x')]));
  });

  it('keeps a second BOM as text (only the first is the mark)', () => {
    const { text, codec } = roundTrip(Buffer.concat([UTF8_BOM, UTF8_BOM, utf8('a')]));
    expect(text).toBe('\uFEFFa');
    expect(codec.bom).toBe(true);
  });

  it('keeps a genuine U+FFFD that is in the file', () => {
    expect(roundTrip(utf8('a\uFFFDb')).text).toBe('a\uFFFDb');
  });

  it('recognises the BOM also when utf8 is named explicitly', () => {
    const { text, codec } = roundTrip(Buffer.concat([UTF8_BOM, utf8('a')]), { encoding: 'UTF-8' });
    expect(text).toBe('a');
    expect(codec).toMatchObject({ encoding: 'utf8', bom: true });
  });
});

describe('line endings are recorded, never converted', () => {
  it.each([
    ['LF', 'a\nb\n', '\n', false, true],
    ['CRLF', 'a\r\nb\r\n', '\r\n', false, true],
    ['CR', 'a\rb\r', '\r', false, true],
    ['mixed, CRLF dominant', 'a\r\nb\r\nc\nd', '\r\n', true, false],
    ['mixed, LF dominant', 'a\nb\nc\r\nd\re\n', '\n', true, true],
    ['no final newline', 'a\nb', '\n', false, false],
    ['no line ending at all', 'abc', '\n', false, false],
  ] as const)('%s', (_name, source, eol, mixedEol, finalNewline) => {
    const { text, codec } = roundTrip(utf8(source));
    expect(text).toBe(source);
    expect(codec).toEqual({ encoding: 'utf8', bom: false, eol, mixedEol, finalNewline });
  });

  it('encodeText writes the text line endings as they are, whatever the codec says', () => {
    const codec: TextCodec = { ...defaultCodec(), eol: '\r\n' };
    expect(encodeText('a\nb\rc\r\n', codec)).toEqual(utf8('a\nb\rc\r\n'));
  });
});

describe('empty files', () => {
  it('decodes 0 bytes as empty UTF-8 text', () => {
    const { text, codec } = roundTrip(bytes());
    expect(text).toBe('');
    expect(codec).toEqual({ encoding: 'utf8', bom: false, eol: '\n', mixedEol: false, finalNewline: false });
  });

  it('decodes a file that is only a UTF-8 BOM', () => {
    const { text, codec } = roundTrip(UTF8_BOM);
    expect(text).toBe('');
    expect(codec).toMatchObject({ encoding: 'utf8', bom: true });
  });

  it('decodes files that are only a UTF-16 BOM', () => {
    expect(roundTrip(bytes(0xff, 0xfe))).toMatchObject({
      text: '',
      codec: { encoding: 'utf16le', bom: true },
    });
    expect(roundTrip(bytes(0xfe, 0xff))).toMatchObject({
      text: '',
      codec: { encoding: 'utf16be', bom: true },
    });
  });

  it('decodes 0 bytes in a named encoding', () => {
    expect(roundTrip(bytes(), { encoding: 'latin1' })).toMatchObject({
      text: '',
      codec: { encoding: 'latin1' },
    });
  });
});

describe('UTF-16', () => {
  const sample = 'line one\r\nsmile 😀 and 𝄞\r\n日本語\r\n';

  it('decodes LE by its BOM, surrogate pairs included', () => {
    const { text, codec } = roundTrip(utf16le(sample));
    expect(text).toBe(sample);
    expect(codec).toEqual({
      encoding: 'utf16le',
      bom: true,
      eol: '\r\n',
      mixedEol: false,
      finalNewline: true,
    });
  });

  it('decodes BE by its BOM, surrogate pairs included', () => {
    const { text, codec } = roundTrip(utf16be(sample));
    expect(text).toBe(sample);
    expect(codec).toEqual({
      encoding: 'utf16be',
      bom: true,
      eol: '\r\n',
      mixedEol: false,
      finalNewline: true,
    });
  });

  it('does not mutate the input when decoding big-endian', () => {
    const input = utf16be('ab');
    const copy = Buffer.from(input);
    decodeText(input);
    expect(input).toEqual(copy);
  });

  it('encodes new text with the same BOM and byte order', () => {
    const { codec } = decodeText(utf16be('x'));
    expect(encodeText('é😀', codec)).toEqual(utf16be('é😀'));
    const le = decodeText(utf16le('x')).codec;
    expect(encodeText('é😀', le)).toEqual(utf16le('é😀'));
  });

  it('decodes BOM-less UTF-16 only when named', () => {
    expect(roundTrip(utf16le('hi\n', false), { encoding: 'utf-16le' })).toMatchObject({
      text: 'hi\n',
      codec: { encoding: 'utf16le', bom: false },
    });
    expect(roundTrip(utf16be('hi\n', false), { encoding: 'UTF16BE' })).toMatchObject({
      text: 'hi\n',
      codec: { encoding: 'utf16be', bom: false },
    });
  });

  it('"utf-16" takes the byte order from the BOM, or guesses it from the zero bytes', () => {
    expect(roundTrip(utf16be('hi'), { encoding: 'utf-16' }).codec).toMatchObject({
      encoding: 'utf16be',
      bom: true,
    });
    expect(roundTrip(utf16be('hello', false), { encoding: 'utf-16' }).codec.encoding).toBe('utf16be');
    expect(roundTrip(utf16le('hello', false), { encoding: 'utf-16' }).codec.encoding).toBe('utf16le');
  });

  it('refuses an odd number of bytes with ENCODING and the offset of the stray byte', () => {
    const input = Buffer.concat([utf16le('abc'), bytes(0x41)]);
    const error = thrown(() => decodeText(input));
    expect(error.code).toBe('ENCODING');
    expect(error.details).toMatchObject({ encoding: 'utf16le', offset: 8 });
    expect(error.message).toContain('odd number of bytes');
    expect(error.message).toContain('byte offset 8');
  });

  it('refuses an unpaired surrogate with ENCODING and its byte offset', () => {
    const input = utf16le('ab\uD800c');
    const error = thrown(() => decodeText(input));
    expect(error.code).toBe('ENCODING');
    expect(error.details).toMatchObject({ encoding: 'utf16le', offset: 6, line: 1 });
    const lone = utf16be('a\nb\uDC00');
    expect(thrown(() => decodeText(lone)).details).toMatchObject({ encoding: 'utf16be', offset: 8, line: 2 });
  });

  it('refuses a NUL character as binary', () => {
    expect(thrown(() => decodeText(utf16le('a\0b'))).code).toBe('BINARY');
  });

  it('refuses a BOM that contradicts the named byte order', () => {
    const error = thrown(() => decodeText(utf16be('a'), { encoding: 'utf16le' }));
    expect(error.code).toBe('ENCODING');
    expect(error.message).toContain('UTF-16BE byte-order mark');
  });

  it('refuses utf8 named for a file with a UTF-16 BOM', () => {
    const error = thrown(() => decodeText(utf16le('abc'), { encoding: 'utf8' }));
    expect(error.code).toBe('ENCODING');
    expect(error.message).toContain('Omit encoding');
  });

  it('points at UTF-32 instead of misreading its BOM as UTF-16', () => {
    const input = iconv.encode('\uFEFFhi', 'utf32le', { addBOM: false });
    const error = thrown(() => decodeText(input));
    expect(error.code).toBe('ENCODING');
    expect(error.message).toContain('utf-32le');
    const { text, codec } = roundTrip(input, { encoding: 'utf-32le' });
    expect(text).toBe('hi');
    expect(codec).toMatchObject({ encoding: 'utf32le', bom: true });
  });
});

describe('other encodings, when named', () => {
  it('decodes Latin-1', () => {
    const input = bytes(0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a, 0xff, 0x0d, 0x0a, 0x80); // "café\r\nÿ\r\n\u0080"
    const { text, codec } = roundTrip(input, { encoding: 'latin1' });
    expect(text).toBe('café\r\nÿ\r\n\u0080');
    expect(codec).toEqual({
      encoding: 'latin1',
      bom: false,
      eol: '\r\n',
      mixedEol: false,
      finalNewline: false,
    });
  });

  it('decodes windows-1252, including its 0x80-0x9F punctuation', () => {
    const input = bytes(0x80, 0x20, 0x93, 0x71, 0x94, 0x20, 0x85, 0x0a); // '€ “q” …\n'
    const { text, codec } = roundTrip(input, { encoding: 'windows-1252' });
    expect(text).toBe('€ “q” …\n');
    expect(codec.encoding).toBe('windows1252');
    expect(encodeText('€uro\n', codec)).toEqual(bytes(0x80, 0x75, 0x72, 0x6f, 0x0a));
  });

  it('decodes shift_jis', () => {
    const input = iconv.encode('日本語のテキスト\n', 'shift_jis');
    expect(roundTrip(input, { encoding: 'Shift_JIS' })).toMatchObject({
      text: '日本語のテキスト\n',
      codec: { encoding: 'shiftjis' },
    });
  });

  it('refuses bytes that do not round-trip, with the offset of the first one', () => {
    // 0x81 is undefined in windows-1252.
    const input = bytes(0x61, 0x0a, 0x62, 0x81, 0x63);
    const error = thrown(() => decodeText(input, { encoding: 'windows-1252' }));
    expect(error.code).toBe('ENCODING');
    expect(error.details).toMatchObject({ encoding: 'windows1252', offset: 3, line: 2 });
    expect(error.message).toContain('byte offset 3');
    expect(error.message).toContain('latin1');
  });

  it('refuses invalid shift_jis', () => {
    const input = Buffer.concat([iconv.encode('あ', 'shift_jis'), bytes(0x82)]);
    expect(thrown(() => decodeText(input, { encoding: 'shift_jis' })).details).toMatchObject({ offset: 2 });
  });

  it('refuses to encode characters the encoding cannot hold, instead of writing "?"', () => {
    const { codec } = decodeText(utf8('abc'), { encoding: 'latin1' });
    const error = thrown(() => encodeText('ok\nthe € sign', codec));
    expect(error.code).toBe('ENCODING');
    expect(error.details).toMatchObject({ encoding: 'latin1', index: 7, line: 2, char: '€' });
    expect(thrown(() => encodeText('x😀', codec)).details).toMatchObject({ index: 1, char: '😀' });
  });

  it('refuses NUL bytes as binary', () => {
    expect(thrown(() => decodeText(bytes(0x61, 0x00, 0x62), { encoding: 'latin1' })).code).toBe('BINARY');
  });
});

describe('encoding names', () => {
  it.each([
    ['utf8', 'utf8'],
    ['UTF-8', 'utf8'],
    ['utf_8', 'utf8'],
    ['UTF16LE', 'utf16le'],
    ['utf-16le', 'utf16le'],
    ['ucs2', 'utf16le'],
    ['UTF-16BE', 'utf16be'],
    ['utf-16', 'utf16'],
    ['Latin1', 'latin1'],
    ['ISO-8859-1', 'iso88591'],
    ['windows-1252', 'windows1252'],
    ['Shift_JIS', 'shiftjis'],
  ])('%s -> %s', (name, expected) => {
    expect(normalizeEncodingName(name)).toBe(expected);
  });

  it.each(['klingon', '', 'base64', 'hex'])(
    'refuses %j with INVALID_INPUT listing what is supported',
    (name) => {
      const error = thrown(() => decodeText(utf8('a'), { encoding: name }));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toContain('Supported');
      expect(error.message).toContain('latin1');
      expect(error.details).toEqual({ encoding: name });
      expect(thrown(() => normalizeEncodingName(name)).code).toBe('INVALID_INPUT');
    },
  );

  it('refuses an unknown encoding in a codec passed to encodeText', () => {
    expect(thrown(() => encodeText('a', { ...defaultCodec(), encoding: 'klingon' })).code).toBe(
      'INVALID_INPUT',
    );
  });
});

describe('binary content', () => {
  const png = Buffer.concat([
    bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d),
    Buffer.alloc(12_600, 7),
  ]);

  it('refuses NUL bytes with BINARY, saying editgate edits text only', () => {
    const error = thrown(() => decodeText(utf8('abc\0def')));
    expect(error.code).toBe('BINARY');
    expect(error.message).toContain('binary');
    expect(error.message).toContain('text files only');
    expect(error.details).toMatchObject({ reason: 'nul', offset: 3 });
    expect(error.message).not.toContain('UTF-16');
  });

  it('finds a NUL far beyond the head of the file', () => {
    const input = Buffer.concat([Buffer.alloc(100_000, 0x61), bytes(0)]);
    expect(thrown(() => decodeText(input)).details).toMatchObject({ reason: 'nul', offset: 100_000 });
  });

  it('describes known formats', () => {
    const error = thrown(() => decodeText(png));
    expect(error.code).toBe('BINARY');
    expect(error.message).toContain('PNG image, 12.3 KB');
    expect(error.details).toMatchObject({ kind: 'PNG image', size: png.length });
    expect(describeBinary(png)).toBe('binary file (PNG image, 12.3 KB)');
    expect(describeBinary(bytes(1, 2, 3))).toBe('binary file (3 bytes)');
    expect(describeBinary(png.subarray(0, 16), 5 * 1024 * 1024)).toBe('binary file (PNG image, 5.0 MB)');
  });

  it('calls undecodable bytes of a known binary format BINARY, not ENCODING', () => {
    const jpeg = bytes(0xff, 0xd8, 0xff, 0xe0, 0x10, 0x4a, 0x46, 0x49, 0x46);
    expect(thrown(() => decodeText(jpeg)).code).toBe('BINARY');
  });

  it('calls undecodable bytes dense with control characters BINARY', () => {
    const noise = Buffer.from(Array.from({ length: 512 }, (_, i) => [0x01, 0x02, 0xfe, 0x41][i % 4]!));
    expect(thrown(() => decodeText(noise)).details).toMatchObject({ reason: 'control' });
  });

  it('hints at UTF-16 when a BOM-less file looks like it', () => {
    const error = thrown(() => decodeText(utf16le('hello world, this is UTF-16 text\n', false)));
    expect(error.code).toBe('BINARY');
    expect(error.message).toContain('encoding: "utf-16le"');
  });

  it('isBinary agrees', () => {
    expect(isBinary(png)).toBe(true);
    expect(isBinary(utf8('a\0'))).toBe(true);
    expect(isBinary(utf8('plain text\n'))).toBe(false);
    expect(isBinary(bytes(0x63, 0x61, 0x66, 0xe9))).toBe(false); // latin1 text: an encoding problem
    expect(isBinary(utf16le('text'))).toBe(false);
    expect(isBinary(bytes())).toBe(false);
  });
});

describe('invalid UTF-8', () => {
  it('refuses with ENCODING, the offset and line of the first bad byte, and what to do', () => {
    const input = Buffer.concat([utf8('first\r\nsecond\ncaf'), bytes(0xe9), utf8('\n')]);
    const error = thrown(() => decodeText(input));
    expect(error.code).toBe('ENCODING');
    expect(error.details).toMatchObject({ encoding: 'utf8', offset: 17, line: 3, byte: 0xe9 });
    expect(error.message).toContain('byte offset 17');
    expect(error.message).toContain('line 3');
    expect(error.message).toContain('encoding: "latin1"');
  });

  it('counts the BOM in the offset', () => {
    const input = Buffer.concat([UTF8_BOM, utf8('ab'), bytes(0xc3)]);
    expect(thrown(() => decodeText(input)).details).toMatchObject({ offset: 5 });
  });

  it.each([
    ['lone continuation byte', [0x80]],
    ['overlong encoding', [0xc0, 0xaf]],
    ['overlong 3-byte', [0xe0, 0x80, 0xaf]],
    ['encoded surrogate', [0xed, 0xa0, 0x80]],
    ['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['truncated sequence at the end', [0xe6, 0x97]],
    ['truncated sequence before ASCII', [0xe6, 0x41]],
    ['invalid byte 0xFF', [0xff]],
  ])('%s', (_name, bad) => {
    const input = Buffer.concat([utf8('ok 日本 '), bytes(...bad), utf8(' tail')]);
    const error = thrown(() => decodeText(input));
    expect(error.code).toBe('ENCODING');
    expect(error.details.offset).toBe(Buffer.byteLength('ok 日本 '));
  });

  it('finds the first bad byte deep in a large file', () => {
    const head = utf8('ŝ'.repeat(50_000) + 'x\n'.repeat(30_000));
    const input = Buffer.concat([head, bytes(0xa9), utf8('ok'), bytes(0xff)]);
    expect(thrown(() => decodeText(input)).details).toMatchObject({ offset: head.length, line: 30_001 });
  });

  it('never replaces: explicit latin1 reads the same bytes losslessly', () => {
    const input = Buffer.concat([utf8('caf'), bytes(0xe9)]);
    expect(roundTrip(input, { encoding: 'latin1' }).text).toBe('café');
  });
});

describe('encodeText refuses text no Unicode file can hold', () => {
  it.each(['utf8', 'utf16le', 'utf16be'])('%s: lone surrogate', (encoding) => {
    const error = thrown(() => encodeText('ab\n\uD83D!', { ...defaultCodec(), encoding }));
    expect(error.code).toBe('ENCODING');
    expect(error.details).toMatchObject({ index: 3, line: 2 });
  });
});

describe('inputs', () => {
  it('accepts a plain Uint8Array view into a larger buffer', () => {
    const backing = new Uint8Array([0x78, 0x61, 0x0a, 0x62, 0x79]);
    const view = backing.subarray(1, 4);
    expect(decodeText(view).text).toBe('a\nb');
  });
});
