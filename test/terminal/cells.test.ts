import { describe, expect, it } from 'vitest';
import { cellsWidth, dropLastGrapheme, toCells, visibleText, wrapCells } from '../../src/terminal/cells.js';

const text = (cells: { text: string }[]) => cells.map((cell) => cell.text).join('');

describe('toCells', () => {
  it('expands tabs to the next tab stop', () => {
    expect(text(toCells('\tx', 4))).toBe('    x');
    expect(text(toCells('ab\tx', 4))).toBe('ab  x');
    expect(text(toCells('abcd\tx', 4))).toBe('abcd    x');
    expect(text(toCells('a\tx', 4, 2))).toBe('a x');
  });

  it('keeps the source offset of every cell', () => {
    expect(toCells('a\tb', 4).map((cell) => cell.offset)).toEqual([0, 1, 1, 1, 2]);
    expect(toCells('日b').map((cell) => [cell.offset, cell.width])).toEqual([
      [0, 2],
      [1, 1],
    ]);
  });

  it('keeps grapheme clusters whole and measures them', () => {
    const cells = toCells('👍🏽e\u0301👨‍👩‍👧');
    expect(cells.map((cell) => cell.text)).toEqual(['👍🏽', 'e\u0301', '👨‍👩‍👧']);
    expect(cellsWidth(cells)).toBe(5);
  });

  it('makes control and invisible characters visible', () => {
    expect(visibleText('a\x1b[31mb\x00\x7f')).toBe('a␛[31mb␀␡');
    expect(visibleText('x\u202ey\u200bz\x9b')).toBe('x<U+202E>y<U+200B>z<U+009B>');
    expect(toCells('\x07').every((cell) => cell.control)).toBe(true);
  });

  it('marks every invisible character a diff could hide, even inside a grapheme (issue #13)', () => {
    // LRM, RLM, ALM, soft hyphen, invisible times, Hangul filler, a variation selector and tag characters
    // after a letter (they join its grapheme), a zero width joiner between letters.
    const line = 'a\u200eb\u200fc\u061cd\u00ade\u2062f\u3164g\ufe01h\u{e0041}\u{e0042}i\u200dj';
    expect(visibleText(line)).toBe(
      'a<U+200E>b<U+200F>c<U+061C>d<U+00AD>e<U+2062>f<U+3164>g<U+FE01>h<U+E0041><U+E0042>i<U+200D>j',
    );
    const marked = toCells(line).filter((cell) => cell.control);
    expect(marked).toHaveLength(10);
    // An emoji made with a joiner and a presentation selector stays whole.
    expect(visibleText('👩‍💻 ❤️')).toBe('👩‍💻 ❤️');
  });
});

describe('wrapCells', () => {
  it('wraps at the width, never splitting a wide character', () => {
    const rows = wrapCells(toCells('ab日本語'), 5);
    expect(rows.map(text)).toEqual(['ab日', '本語']);
  });

  it('keeps an empty line as one empty row', () => {
    expect(wrapCells([], 10)).toEqual([[]]);
  });

  it('breaks prose after a space when asked', () => {
    expect(wrapCells(toCells('hello big world'), 8, true).map(text)).toEqual(['hello ', 'big ', 'world']);
    expect(wrapCells(toCells('hello big world'), 8).map(text)).toEqual(['hello bi', 'g world']);
  });
});

describe('dropLastGrapheme', () => {
  it('removes one visible character', () => {
    expect(dropLastGrapheme('ab👍🏽')).toBe('ab');
    expect(dropLastGrapheme('é')).toBe('');
    expect(dropLastGrapheme('')).toBe('');
  });
});
