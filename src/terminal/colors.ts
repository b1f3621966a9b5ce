/**
 * Colour support and SGR (Select Graphic Rendition) escape codes. Rendering code describes colours as RGB
 * with optional 16/256-colour stand-ins; this file turns them into the codes a terminal understands at the
 * level it supports, and into nothing at level 0.
 */

/** 0: no colour (no escape codes at all), 1: 16 colours, 2: 256 colours, 3: truecolor. */
export type ColorLevel = 0 | 1 | 2 | 3;

export interface Color {
  rgb: readonly [number, number, number];
  /** Explicit xterm-256 index; when absent the nearest one is computed. */
  ansi256?: number;
  /** 0-15 (7 normal, 8 bright). Absent: this colour is dropped at level 1, where it would only add noise. */
  ansi16?: number;
}

export interface Style {
  fg?: Color;
  bg?: Color;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

export const SGR_RESET = '\x1b[0m';

export interface ColorEnvironment {
  env?: Record<string, string | undefined>;
  /** Whether the output stream is a terminal. */
  isTTY?: boolean;
  /** `--no-color` on the command line: wins over everything. */
  noColor?: boolean;
  platform?: NodeJS.Platform;
}

/**
 * Order of precedence: `--no-color`, then `FORCE_COLOR` (0 turns colour off; 1-3 set the minimum level, as
 * chalk and Node do), then `NO_COLOR` (any non-empty value), then the terminal: not a TTY or `TERM=dumb`
 * means none, otherwise the level `COLORTERM`/`TERM` advertise.
 */
export function detectColorLevel(options: ColorEnvironment = {}): ColorLevel {
  const env = options.env ?? process.env;
  if (options.noColor) return 0;
  const forced = parseForceColor(env.FORCE_COLOR);
  if (forced === 0) return 0;
  if (forced !== undefined) return Math.max(forced, advertisedLevel(env, options.platform)) as ColorLevel;
  if (env.NO_COLOR) return 0;
  if (!options.isTTY) return 0;
  if (env.TERM === 'dumb') return 0;
  return Math.max(1, advertisedLevel(env, options.platform)) as ColorLevel;
}

function parseForceColor(value: string | undefined): ColorLevel | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'true') return 1;
  if (v === 'false') return 0;
  const n = Number.parseInt(v, 10);
  if (Number.isNaN(n)) return undefined;
  return Math.min(3, Math.max(0, n)) as ColorLevel;
}

function advertisedLevel(env: Record<string, string | undefined>, platform = process.platform): ColorLevel {
  const colorterm = env.COLORTERM?.toLowerCase();
  if (colorterm === 'truecolor' || colorterm === '24bit') return 3;
  const term = env.TERM?.toLowerCase() ?? '';
  if (term === 'dumb') return 0;
  if (term === 'xterm-kitty' || term === 'xterm-ghostty' || /-(truecolor|direct)$/.test(term)) return 3;
  const program = env.TERM_PROGRAM;
  if (program === 'iTerm.app' || program === 'WezTerm' || program === 'vscode' || program === 'ghostty')
    return 3;
  if (env.WT_SESSION) return 3;
  if (/-256(colou?r)?$/.test(term)) return 2;
  // Windows consoles since Windows 10 understand 256 colours; TERM is usually unset there.
  if (platform === 'win32') return 2;
  if (term !== '' || env.CI) return 1;
  return 0;
}

const CUBE = [0, 95, 135, 175, 215, 255] as const;

/** Nearest xterm-256 colour (6x6x6 cube or grey ramp), by squared RGB distance. */
export function rgbTo256([r, g, b]: readonly [number, number, number]): number {
  const nearestCube = (v: number) => {
    let best = 0;
    for (let i = 1; i < CUBE.length; i++) if (Math.abs(CUBE[i]! - v) < Math.abs(CUBE[best]! - v)) best = i;
    return best;
  };
  const ci = [nearestCube(r), nearestCube(g), nearestCube(b)] as const;
  const cube = [CUBE[ci[0]]!, CUBE[ci[1]]!, CUBE[ci[2]]!];
  const grey = Math.min(23, Math.max(0, Math.round(((r + g + b) / 3 - 8) / 10)));
  const greyValue = 8 + grey * 10;
  const dist = (x: number, y: number, z: number) => (r - x) ** 2 + (g - y) ** 2 + (b - z) ** 2;
  const cubeIndex = 16 + 36 * ci[0] + 6 * ci[1] + ci[2];
  return dist(greyValue, greyValue, greyValue) < dist(cube[0]!, cube[1]!, cube[2]!) ? 232 + grey : cubeIndex;
}

function colorCodes(color: Color, level: ColorLevel, background: boolean): string[] {
  if (level >= 3) return [background ? '48' : '38', '2', ...color.rgb.map(String)];
  if (level === 2) return [background ? '48' : '38', '5', String(color.ansi256 ?? rgbTo256(color.rgb))];
  if (color.ansi16 === undefined) return [];
  const base = color.ansi16 < 8 ? 30 + color.ansi16 : 90 + color.ansi16 - 8;
  return [String(base + (background ? 10 : 0))];
}

/** The escape sequence that switches `style` on; '' at level 0 or for an empty style. */
export function sgrOpen(style: Style, level: ColorLevel): string {
  if (level === 0) return '';
  const codes: string[] = [];
  if (style.bold) codes.push('1');
  if (style.dim) codes.push('2');
  if (style.italic) codes.push('3');
  if (style.underline) codes.push('4');
  if (style.inverse) codes.push('7');
  if (style.fg) codes.push(...colorCodes(style.fg, level, false));
  if (style.bg) codes.push(...colorCodes(style.bg, level, true));
  return codes.length > 0 ? `\x1b[${codes.join(';')}m` : '';
}

/** `text` in `style`, reset afterwards; `text` unchanged when there is nothing to switch on. */
export function paint(text: string, style: Style, level: ColorLevel): string {
  const open = sgrOpen(style, level);
  return open === '' || text === '' ? text : open + text + SGR_RESET;
}

/** Later styles win, property by property. */
export function mergeStyles(...styles: (Style | undefined)[]): Style {
  return Object.assign({}, ...styles.filter(Boolean));
}

// CSI sequences (colours, cursor moves) and OSC sequences (titles, links).
const ANSI_PATTERN = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, '');
}
