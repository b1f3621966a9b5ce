import type { SyntaxScope } from '../core/highlight.js';
import type { Color, Style } from './colors.js';

/**
 * The two colour themes, and which one a terminal wants. Colours are chosen to keep contrast on their own
 * background: bright on dark, deep on light. Background tints mark changed lines; a stronger tint marks the
 * changed words inside them (at 16 colours, where no tint exists, reverse video does that job).
 */
export type Theme = 'dark' | 'light';
export type ThemeOption = Theme | 'auto';

export interface Palette {
  theme: Theme;
  header: Style;
  created: Style;
  modified: Style;
  deleted: Style;
  hunk: Style;
  lineNumber: Style;
  context: Style;
  added: Style;
  removed: Style;
  addedMarker: Style;
  removedMarker: Style;
  /** Background of a whole added / removed line. */
  addedLine: Style;
  removedLine: Style;
  /** The changed words inside a paired line. */
  addedEmphasis: Style;
  removedEmphasis: Style;
  /** Notes: line-ending labels, "no changes", hints. */
  note: Style;
  /** Control characters shown as visible symbols. */
  control: Style;
  key: Style;
  question: Style;
  status: Style;
  syntax: Record<SyntaxScope, Style>;
}

const rgb = (hex: string, ansi16?: number, ansi256?: number): Color => {
  const n = Number.parseInt(hex.slice(1), 16);
  const color: Color = { rgb: [(n >> 16) & 255, (n >> 8) & 255, n & 255] };
  if (ansi16 !== undefined) color.ansi16 = ansi16;
  if (ansi256 !== undefined) color.ansi256 = ansi256;
  return color;
};

const DARK: Palette = {
  theme: 'dark',
  header: { bold: true },
  created: { fg: rgb('#4ade80', 10), bold: true },
  modified: { fg: rgb('#facc15', 11), bold: true },
  deleted: { fg: rgb('#f87171', 9), bold: true },
  hunk: { fg: rgb('#60a5fa', 14), bold: true },
  lineNumber: { fg: rgb('#6b7280', 8, 242) },
  context: { fg: rgb('#9ca3af', undefined, 247) },
  added: { fg: rgb('#86efac', 10) },
  removed: { fg: rgb('#fca5a5', 9) },
  addedMarker: { fg: rgb('#4ade80', 10), bold: true },
  removedMarker: { fg: rgb('#f87171', 9), bold: true },
  addedLine: { bg: rgb('#002800', undefined, 22) },
  removedLine: { bg: rgb('#3f0001', undefined, 52) },
  addedEmphasis: { bg: rgb('#006000', undefined, 28), bold: true },
  removedEmphasis: { bg: rgb('#901011', undefined, 88), bold: true },
  note: { fg: rgb('#9ca3af', 8, 247), italic: true },
  control: { fg: rgb('#fbbf24', 11), bold: true },
  key: { fg: rgb('#fbbf24', 11), bold: true },
  question: { bold: true },
  status: { inverse: true },
  syntax: {
    keyword: { fg: rgb('#c678dd') },
    string: { fg: rgb('#98c379') },
    number: { fg: rgb('#d19a66') },
    comment: { fg: rgb('#7f848e'), italic: true },
    function: { fg: rgb('#61afef') },
    type: { fg: rgb('#e5c07b') },
    attribute: { fg: rgb('#d19a66') },
    tag: { fg: rgb('#e06c75') },
    meta: { fg: rgb('#56b6c2') },
    variable: { fg: rgb('#e06c75') },
  },
};

const LIGHT: Palette = {
  theme: 'light',
  header: { bold: true },
  created: { fg: rgb('#15803d', 2), bold: true },
  modified: { fg: rgb('#a16207', 3), bold: true },
  deleted: { fg: rgb('#b91c1c', 1), bold: true },
  hunk: { fg: rgb('#1d4ed8', 4), bold: true },
  lineNumber: { fg: rgb('#9ca3af', 8, 247) },
  context: { fg: rgb('#4b5563', undefined, 240) },
  added: { fg: rgb('#166534', 2) },
  removed: { fg: rgb('#991b1b', 1) },
  addedMarker: { fg: rgb('#15803d', 2), bold: true },
  removedMarker: { fg: rgb('#b91c1c', 1), bold: true },
  addedLine: { bg: rgb('#d0ffd0', undefined, 194) },
  removedLine: { bg: rgb('#ffe0e0', undefined, 224) },
  addedEmphasis: { bg: rgb('#a0efa0', undefined, 157), bold: true },
  removedEmphasis: { bg: rgb('#ffc0c0', undefined, 217), bold: true },
  note: { fg: rgb('#6b7280', 8, 242), italic: true },
  control: { fg: rgb('#b45309', 3), bold: true },
  key: { fg: rgb('#1d4ed8', 4), bold: true },
  question: { bold: true },
  status: { inverse: true },
  syntax: {
    keyword: { fg: rgb('#a626a4') },
    string: { fg: rgb('#50a14f') },
    number: { fg: rgb('#986801') },
    comment: { fg: rgb('#a0a1a7'), italic: true },
    function: { fg: rgb('#4078f2') },
    type: { fg: rgb('#c18401') },
    attribute: { fg: rgb('#986801') },
    tag: { fg: rgb('#e45649') },
    meta: { fg: rgb('#0184bc') },
    variable: { fg: rgb('#e45649') },
  },
};

export function paletteFor(theme: Theme): Palette {
  return theme === 'light' ? LIGHT : DARK;
}

/**
 * The background the terminal reports through `COLORFGBG` ("fg;bg" or "fg;x;bg", set by rxvt, Konsole,
 * iTerm2 and others): colours 0-6 and 8 are dark, 7 and 9-15 light. Undefined when it does not say.
 */
export function detectTheme(env: Record<string, string | undefined> = process.env): Theme | undefined {
  const value = env.COLORFGBG;
  if (!value) return undefined;
  const bg = Number.parseInt(value.split(';').at(-1) ?? '', 10);
  if (Number.isNaN(bg) || bg < 0 || bg > 15) return undefined;
  return bg === 7 || bg >= 9 ? 'light' : 'dark';
}

/** An explicit theme wins; 'auto' (or nothing) asks the terminal and falls back to dark, the common case. */
export function resolveTheme(
  option: ThemeOption | undefined,
  env: Record<string, string | undefined> = process.env,
): Theme {
  if (option === 'dark' || option === 'light') return option;
  return detectTheme(env) ?? 'dark';
}
