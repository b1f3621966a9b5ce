import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainText, markInvisible, mustMark } from '../../src/core/invisible.js';

// The one rule of what a person cannot see (issue #13): each named character is marked; emoji stay whole.
const NAMED: [string, string][] = [
  ['left-to-right mark', '\u200e'],
  ['right-to-left mark', '\u200f'],
  ['Arabic letter mark', '\u061c'],
  ['right-to-left override', '\u202e'],
  ['first strong isolate', '\u2068'],
  ['zero width space', '\u200b'],
  ['word joiner', '\u2060'],
  ['soft hyphen', '\u00ad'],
  ['invisible times', '\u2062'],
  ['invisible separator', '\u2063'],
  ['function application', '\u2061'],
  ['Hangul filler', '\u3164'],
  ['Hangul choseong filler', '\u115f'],
  ['halfwidth Hangul filler', '\uffa0'],
  ['tag latin small letter a', '\u{e0061}'],
  ['cancel tag', '\u{e007f}'],
  ['variation selector 1', '\ufe00'],
  ['variation selector 17', '\u{e0100}'],
  ['Mongolian vowel separator', '\u180e'],
  ['byte order mark inside text', '\ufeff'],
  ['line separator', '\u2028'],
  ['escape', '\x1b'],
  ['C1 CSI', '\x9b'],
];

describe('markInvisible', () => {
  it.each(NAMED)('marks the %s, even right after a letter', (_name, char) => {
    const marked = markInvisible(`if (a${char}b) return;`);
    expect(marked).not.toContain(char);
    expect(marked).toMatch(/^if \(a(<U\+[0-9A-F]{4,5}>|[\u2400-\u2421])b\) return;$/);
  });

  it('spells out tag characters that hide ASCII (ASCII smuggling)', () => {
    const hidden = [...'rm -rf'].map((ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join('');
    expect(markInvisible(`ok${hidden}`)).toBe('ok<U+E0072><U+E006D><U+E0020><U+E002D><U+E0072><U+E0066>');
  });

  it('keeps what makes an emoji, and tabs and newlines', () => {
    for (const text of ['👩‍💻 done', '❤️', '1️⃣', '☺︎', 'a\tb\nc']) expect(markInvisible(text)).toBe(text);
    // A joiner or a selector anywhere else is marked.
    expect(markInvisible('a\u200db')).toBe('a<U+200D>b');
    expect(markInvisible('x\ufe0f')).toBe('x<U+FE0F>');
    // A non-joiner between Persian letters is part of the spelling; between ASCII it hides.
    expect(markInvisible('می\u200cخواهم')).toBe('می\u200cخواهم');
    expect(markInvisible('pass\u200cword')).toBe('pass<U+200C>word');
  });

  it('keeps a CRLF line end when asked, and marks a lone carriage return', () => {
    expect(markInvisible('a\r\nb', { keepCrlf: true })).toBe('a\r\nb');
    expect(markInvisible('a\rb', { keepCrlf: true })).toBe('a␍b');
  });

  it('leaves nothing to mark in what it returns (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const codes = Array.from(markInvisible(text), (ch) => ch.codePointAt(0)!);
        codes.forEach((code, i) => {
          expect(mustMark(code, codes[i - 1], codes[i + 1])).toBe(false);
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the fast path only for text with nothing to mark', () => {
    expect(isPlainText('const a = 1;\n\tb')).toBe(true);
    expect(isPlainText('é')).toBe(false);
  });
});
