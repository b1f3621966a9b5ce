import jsQRModule from 'jsqr';
import { describe, expect, it } from 'vitest';
import { qrCodeLines } from '../../src/terminal/qr-code.js';

/**
 * The terminal's drawing turned back into an image (each character two modules tall, every module a
 * SCALE x SCALE square, the terminal's background around it) and read by jsQR, a decoder of its own.
 */
const SCALE = 4;

// A CommonJS module: its default import is the function itself (the types say it is under .default).
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

function decode(lines: string[], color: boolean): string | undefined {
  const rows = lines.map((line) => [...line.replace(/\x1b\[[0-9;]*m/g, '')]);
  const margin = 4;
  const width = (rows[0]!.length + 2 * margin) * SCALE;
  const height = (rows.length * 2 + 2 * margin) * SCALE;
  // The terminal's own background: white with colours (the code brings its white), dark without.
  const background = color ? 255 : 0;
  const pixels = new Uint8ClampedArray(width * height * 4).fill(background);
  for (let i = 3; i < pixels.length; i += 4) pixels[i] = 255;
  const paint = (moduleRow: number, column: number, value: number) => {
    for (let y = 0; y < SCALE; y++)
      for (let x = 0; x < SCALE; x++) {
        const at = (((moduleRow + margin) * SCALE + y) * width + (column + margin) * SCALE + x) * 4;
        pixels[at] = pixels[at + 1] = pixels[at + 2] = value;
      }
  };
  rows.forEach((chars, row) => {
    chars.forEach((char, column) => {
      const top = char === '█' || char === '▀';
      const bottom = char === '█' || char === '▄';
      // With colours a drawn half is a dark module on white; without, a drawn half is a light module.
      const drawn = color ? 0 : 255;
      const other = color ? 255 : 0;
      paint(row * 2, column, top ? drawn : other);
      paint(row * 2 + 1, column, bottom ? drawn : other);
    });
  });
  return jsQR(pixels, width, height, { inversionAttempts: 'attemptBoth' })?.data;
}

describe('qrCodeLines', () => {
  const link = `https://192.168.1.20:8443/?token=${'A1b2-C3d4_'.repeat(4)}xyz`;

  it('draws a code a decoder reads back as the link, with colours', () => {
    const lines = qrCodeLines(link, { color: true });
    expect(lines.every((line) => line.startsWith('\x1b[30;47m'))).toBe(true);
    expect(decode(lines, true)).toBe(link);
  });

  it('draws one without colours that a decoder reads too (light modules drawn on a dark terminal)', () => {
    const lines = qrCodeLines(link);
    expect(lines.join('')).not.toContain('\x1b');
    expect(decode(lines, false)).toBe(link);
  });

  it('fits a terminal: a 43-character token link is under 50 columns and 26 lines', () => {
    const lines = qrCodeLines(`https://[fd00::1234:5678]:54321/?token=${'x'.repeat(43)}`);
    expect(lines.length).toBeLessThan(26);
    expect([...lines[0]!].length).toBeLessThan(50);
  });
});
