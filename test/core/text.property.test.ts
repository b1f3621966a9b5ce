import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import { decodeText, encodeText, type TextCodec } from '../../src/core/text.js';

/** Any Unicode text (no NUL: that is binary) with any mix of \n, \r\n and \r. */
const textArb = fc
  .array(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('\n', '\r\n', '\r', '\r\r\n', '\n\r')), {
    maxLength: 30,
  })
  .map((parts) => parts.join('').replaceAll('\0', ' '));

/** The same without C0 control characters, which (with undecodable bytes) count as signs of binary. */
const printableArb = textArb.map((t) => t.replace(/[\u0001-\u0008\u000b\u000c\u000e-\u001f]/g, ' '));

/** Bytes that are mostly valid UTF-8 with the odd stray byte: the shapes real files take. */
const nearUtf8Arb = fc
  .array(
    fc.oneof(
      textArb.map((t) => Buffer.from(t, 'utf8')),
      fc.uint8Array({ maxLength: 4 }),
    ),
    { maxLength: 8 },
  )
  .map((chunks) => new Uint8Array(Buffer.concat(chunks)));

const anyBytesArb = fc.oneof(fc.uint8Array({ maxLength: 200 }), nearUtf8Arb);

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/** A leading U+FEFF without a BOM reads back as a BOM: same bytes, but not the same text. */
function textSurvives(text: string, bom: boolean): boolean {
  return bom || !text.startsWith('\uFEFF');
}

/** Decode, or return the error code if refused (only BINARY/ENCODING are acceptable refusals). */
function tryDecode(bytes: Uint8Array, encoding?: string): { text: string; codec: TextCodec } | string {
  try {
    return decodeText(bytes, encoding === undefined ? undefined : { encoding });
  } catch (error) {
    if (isEditgateError(error) && (error.code === 'BINARY' || error.code === 'ENCODING')) return error.code;
    throw error;
  }
}

function countOccurrences(haystack: Buffer, needle: Buffer, step: number, from: number): number {
  let count = 0;
  for (let i = haystack.indexOf(needle, from); i >= 0; i = haystack.indexOf(needle, i + 1)) {
    if ((i - from) % step === 0) count++;
  }
  return count;
}

describe('encode(decode(x)) == x', () => {
  it('UTF-8 text with any line endings, with and without BOM', () => {
    fc.assert(
      fc.property(textArb, fc.boolean(), (text, bom) => {
        const bytes = Buffer.concat([Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(text, 'utf8')]);
        const decoded = decodeText(bytes);
        expect(sameBytes(encodeText(decoded.text, decoded.codec), bytes)).toBe(true);
        if (textSurvives(text, bom)) {
          expect(decoded.text).toBe(text);
          expect(decoded.codec.bom).toBe(bom);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('UTF-16 LE and BE, by BOM and when named', () => {
    fc.assert(
      fc.property(
        textArb,
        fc.constantFrom('le', 'be') as fc.Arbitrary<'le' | 'be'>,
        fc.boolean(),
        (text, endian, bom) => {
          let body = Buffer.from(text, 'utf16le');
          if (endian === 'be') body = body.swap16();
          const mark = endian === 'le' ? [0xff, 0xfe] : [0xfe, 0xff];
          const bytes = Buffer.concat([Buffer.from(bom ? mark : []), body]);
          // Without a BOM, UTF-16 is only read when named.
          const decoded = decodeText(bytes, bom ? undefined : { encoding: `utf-16${endian}` });
          expect(decoded.codec.encoding).toBe(`utf16${endian}`);
          expect(sameBytes(encodeText(decoded.text, decoded.codec), bytes)).toBe(true);
          if (textSurvives(text, bom)) expect(decoded.text).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('latin1 over arbitrary bytes without NUL', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (raw) => {
        const bytes = raw.map((b) => (b === 0 ? 1 : b));
        const decoded = decodeText(bytes, { encoding: 'latin1' });
        expect(decoded.text.length).toBe(bytes.length);
        expect(sameBytes(encodeText(decoded.text, decoded.codec), bytes)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary bytes, any encoding: either refused with BINARY/ENCODING or given back exactly', () => {
    const encodings = [
      undefined,
      'utf8',
      'utf-16le',
      'utf-16be',
      'windows-1252',
      'shift_jis',
      'gb18030',
      'ascii',
    ];
    fc.assert(
      fc.property(anyBytesArb, fc.constantFrom(...encodings), (bytes, encoding) => {
        const decoded = tryDecode(bytes, encoding);
        if (typeof decoded === 'string') return;
        expect(sameBytes(encodeText(decoded.text, decoded.codec), bytes)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('an edit keeps the codec: any text decoded from its own encoding comes back the same', () => {
    fc.assert(
      fc.property(textArb, textArb, (original, replacement) => {
        const { codec } = decodeText(Buffer.from(original, 'utf8'));
        const written = encodeText(replacement, codec);
        const readsAsBom = !codec.bom && replacement.startsWith('\uFEFF');
        expect(decodeText(written).text).toBe(readsAsBom ? replacement.slice(1) : replacement);
      }),
    );
  });
});

describe('decode never invents U+FFFD', () => {
  it('every U+FFFD in the decoded text is one encoded in the input', () => {
    fc.assert(
      fc.property(anyBytesArb, fc.constantFrom(undefined, 'utf-16le'), (bytes, encoding) => {
        const decoded = tryDecode(bytes, encoding);
        if (typeof decoded === 'string') return;
        const inText = decoded.text.split('\uFFFD').length - 1;
        const buf = Buffer.from(bytes);
        const start = decoded.codec.bom ? (decoded.codec.encoding === 'utf8' ? 3 : 2) : 0;
        const inBytes =
          decoded.codec.encoding === 'utf8'
            ? countOccurrences(buf, Buffer.from([0xef, 0xbf, 0xbd]), 1, start)
            : decoded.codec.encoding === 'utf16le'
              ? countOccurrences(buf, Buffer.from([0xfd, 0xff]), 2, start)
              : countOccurrences(buf, Buffer.from([0xff, 0xfd]), 2, start);
        expect(inText).toBe(inBytes);
      }),
      { numRuns: 500 },
    );
  });

  it('valid UTF-8 around invalid bytes is refused, not patched', () => {
    fc.assert(
      fc.property(
        printableArb,
        fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xf5, 0xff),
        printableArb,
        (before, bad, after) => {
          const head = Buffer.from(before, 'utf8');
          const bytes = Buffer.concat([head, Buffer.from([bad]), Buffer.from(after, 'utf8')]);
          const result = tryDecode(bytes);
          expect(result).toBe('ENCODING');
          try {
            decodeText(bytes);
          } catch (error) {
            if (!isEditgateError(error)) throw error;
            // A BOM-looking head is fine: offsets count from the file start either way.
            expect(error.details.offset).toBe(head.length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
