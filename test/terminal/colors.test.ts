import { describe, expect, it } from 'vitest';
import { detectColorLevel, paint, rgbTo256, sgrOpen, stripAnsi } from '../../src/terminal/colors.js';
import { detectTheme, paletteFor, resolveTheme } from '../../src/terminal/palette.js';

describe('detectColorLevel', () => {
  const tty = { isTTY: true, platform: 'linux' as const };

  it('reads the terminal: TERM, COLORTERM', () => {
    expect(detectColorLevel({ ...tty, env: { TERM: 'xterm' } })).toBe(1);
    expect(detectColorLevel({ ...tty, env: { TERM: 'xterm-256color' } })).toBe(2);
    expect(detectColorLevel({ ...tty, env: { TERM: 'xterm-256color', COLORTERM: 'truecolor' } })).toBe(3);
    expect(detectColorLevel({ ...tty, env: { TERM: 'dumb' } })).toBe(0);
  });

  it('gives no colour without a terminal', () => {
    expect(detectColorLevel({ isTTY: false, env: { TERM: 'xterm-256color', COLORTERM: 'truecolor' } })).toBe(
      0,
    );
  });

  it('respects NO_COLOR (any non-empty value)', () => {
    expect(detectColorLevel({ ...tty, env: { TERM: 'xterm-256color', NO_COLOR: '1' } })).toBe(0);
    expect(detectColorLevel({ ...tty, env: { TERM: 'xterm-256color', NO_COLOR: '' } })).toBe(2);
  });

  it('respects FORCE_COLOR 0-3, which wins over NO_COLOR and a missing terminal', () => {
    expect(detectColorLevel({ isTTY: false, env: { FORCE_COLOR: '1' } })).toBe(1);
    expect(detectColorLevel({ isTTY: false, env: { FORCE_COLOR: '' } })).toBe(1);
    expect(detectColorLevel({ isTTY: false, env: { FORCE_COLOR: '2' } })).toBe(2);
    expect(detectColorLevel({ isTTY: false, env: { FORCE_COLOR: '3', NO_COLOR: '1' } })).toBe(3);
    expect(detectColorLevel({ ...tty, env: { FORCE_COLOR: '0', TERM: 'xterm-256color' } })).toBe(0);
    expect(detectColorLevel({ ...tty, env: { FORCE_COLOR: 'false', TERM: 'xterm' } })).toBe(0);
    // A minimum: a truecolor terminal keeps truecolor.
    expect(detectColorLevel({ ...tty, env: { FORCE_COLOR: '1', COLORTERM: 'truecolor' } })).toBe(3);
  });

  it('lets --no-color win over everything', () => {
    expect(
      detectColorLevel({ ...tty, noColor: true, env: { FORCE_COLOR: '3', COLORTERM: 'truecolor' } }),
    ).toBe(0);
  });
});

describe('SGR', () => {
  const green = { rgb: [74, 222, 128] as const, ansi16: 10 };

  it('writes truecolor, 256-colour and 16-colour codes, and nothing at level 0', () => {
    expect(sgrOpen({ fg: green, bold: true }, 3)).toBe('\x1b[1;38;2;74;222;128m');
    expect(sgrOpen({ fg: green }, 2)).toBe(`\x1b[38;5;${rgbTo256(green.rgb)}m`);
    expect(sgrOpen({ fg: green, bg: { rgb: [0, 40, 0], ansi16: 2 } }, 1)).toBe('\x1b[92;42m');
    expect(sgrOpen({ fg: green, bold: true }, 0)).toBe('');
    expect(paint('x', { fg: green }, 0)).toBe('x');
    expect(paint('x', { fg: green }, 3)).toBe('\x1b[38;2;74;222;128mx\x1b[0m');
  });

  it('drops colours that have no 16-colour stand-in at level 1', () => {
    expect(sgrOpen({ bg: { rgb: [0, 40, 0] } }, 1)).toBe('');
  });

  it('maps RGB to the nearest xterm-256 colour', () => {
    expect(rgbTo256([0, 0, 0])).toBe(16);
    expect(rgbTo256([255, 255, 255])).toBe(231);
    expect(rgbTo256([255, 0, 0])).toBe(196);
    expect(rgbTo256([128, 128, 128])).toBe(244);
  });

  it('strips escape codes', () => {
    expect(stripAnsi('\x1b[1;38;2;1;2;3mab\x1b[0mc\x1b[2K\x1b]0;title\x07')).toBe('abc');
  });
});

describe('themes', () => {
  it('reads the background from COLORFGBG', () => {
    expect(detectTheme({ COLORFGBG: '15;0' })).toBe('dark');
    expect(detectTheme({ COLORFGBG: '0;15' })).toBe('light');
    expect(detectTheme({ COLORFGBG: '0;default;7' })).toBe('light');
    expect(detectTheme({ COLORFGBG: '7;8' })).toBe('dark');
    expect(detectTheme({})).toBeUndefined();
    expect(detectTheme({ COLORFGBG: 'junk' })).toBeUndefined();
  });

  it('lets an explicit theme win, and falls back to dark', () => {
    expect(resolveTheme('light', { COLORFGBG: '15;0' })).toBe('light');
    expect(resolveTheme('auto', { COLORFGBG: '0;15' })).toBe('light');
    expect(resolveTheme(undefined, {})).toBe('dark');
  });

  it('has two different palettes', () => {
    expect(paletteFor('light').added).not.toEqual(paletteFor('dark').added);
    expect(paletteFor('light').addedLine).not.toEqual(paletteFor('dark').addedLine);
  });
});
