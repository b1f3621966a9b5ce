import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/core/format-bytes.js';

describe('formatBytes', () => {
  it('in words for messages: bytes spelled out, one decimal above', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(12)).toBe('12 bytes');
    expect(formatBytes(640 * 1024)).toBe('640.0 KB');
    expect(formatBytes(1.5 * 2 ** 30)).toBe('1.5 GB');
  });

  it('compact for screens: B, and a decimal only below 10', () => {
    expect(formatBytes(12, 'compact')).toBe('12 B');
    expect(formatBytes(1536, 'compact')).toBe('1.5 KB');
    expect(formatBytes(640 * 1024, 'compact')).toBe('640 KB');
    expect(formatBytes(2 ** 50 * 3, 'compact')).toBe('3072 TB');
  });
});
