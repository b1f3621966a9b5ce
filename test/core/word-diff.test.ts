import { describe, expect, it } from 'vitest';
import { diffTokens, emphasizeHunk, pairLines, tokenize } from '../../src/core/word-diff.js';
import { hunk } from '../terminal/fixtures.js';

const slices = (text: string, spans: { start: number; end: number }[]) =>
  spans.map((span) => text.slice(span.start, span.end));

describe('tokenize', () => {
  it('splits words, whitespace runs, punctuation and CJK characters', () => {
    expect(tokenize('foo_bar(x, 42)  // 日本')).toEqual([
      'foo_bar',
      '(',
      'x',
      ',',
      ' ',
      '42',
      ')',
      '  ',
      '/',
      '/',
      ' ',
      '日',
      '本',
    ]);
  });
});

describe('diffTokens', () => {
  it('marks a one-character change', () => {
    const d = diffTokens('const b = 2;', 'const b = 3;');
    expect(slices('const b = 2;', d.removed)).toEqual(['2']);
    expect(slices('const b = 3;', d.added)).toEqual(['3']);
    expect(d.similarity).toBeGreaterThan(0.8);
  });

  it('marks an insertion only on the new side', () => {
    const d = diffTokens('call(a, c)', 'call(a, b, c)');
    expect(d.removed).toEqual([]);
    expect(slices('call(a, b, c)', d.added)).toEqual(['b, ']);
  });

  it('joins two changed words separated by one space into one span', () => {
    const d = diffTokens('let old name = 1', 'let new label = 1');
    expect(slices('let new label = 1', d.added)).toEqual(['new label']);
  });

  it('is identical for equal text and low for unrelated text', () => {
    expect(diffTokens('same', 'same')).toEqual({ removed: [], added: [], similarity: 1 });
    expect(diffTokens('alpha beta', 'gamma;').similarity).toBeLessThan(0.5);
  });

  it('stays bounded on very long lines', () => {
    const a = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(' ');
    const b = a.replace('w2500', 'x2500');
    const d = diffTokens(a, b);
    expect(slices(b, d.added)).toEqual(['x2500']);
  });
});

describe('pairLines', () => {
  it('pairs similar lines in order and leaves unrelated ones alone', () => {
    const pairs = pairLines(
      ['const a = 1;', 'totally different', 'return x;'],
      ['const a = 2;', 'return y;'],
    );
    expect(pairs.map(([r, a]) => [r, a])).toEqual([
      [0, 0],
      [2, 1],
    ]);
  });
});

describe('emphasizeHunk', () => {
  it('emphasises paired lines of each change block', () => {
    const h = hunk(1, 1, [' keep', '-value = 10', '+value = 11', ' keep', '+brand new line']);
    const { spans, partner } = emphasizeHunk(h.lines);
    expect(partner.get(1)).toBe(2);
    expect(partner.get(2)).toBe(1);
    expect(slices('value = 10', spans.get(1)!)).toEqual(['10']);
    expect(slices('value = 11', spans.get(2)!)).toEqual(['11']);
    expect(spans.has(4)).toBe(false);
  });

  it('pairs lines that differ only in their ending, with nothing to emphasise', () => {
    const h = hunk(1, 1, ['-same', '+same']);
    const { spans, partner } = emphasizeHunk(h.lines);
    expect(partner.get(0)).toBe(1);
    expect(spans.get(0) ?? []).toEqual([]);
  });
});
