import { type ColorLevel, detectColorLevel } from './colors.js';
import { resolveTheme, type Theme, type ThemeOption } from './palette.js';
import type { TerminalOutput } from './tty-modes.js';

/**
 * How a terminal front end shows things, resolved from options, the environment and the output stream.
 * Resolved per use, not once, so a resized terminal gets diffs wrapped to its new width.
 */
export interface DisplayOptions {
  output: TerminalOutput;
  /** A fixed colour level; otherwise detected from the environment and whether the output is a terminal. */
  color?: ColorLevel;
  /** `--no-color`. */
  noColor?: boolean;
  theme?: ThemeOption;
  env?: Record<string, string | undefined>;
  tabWidth?: number;
  /** Override the output's size (streams that are not terminals report none). */
  width?: number;
  height?: number;
}

export interface Display {
  level: ColorLevel;
  theme: Theme;
  width: number;
  height: number;
  tabWidth: number;
}

export function resolveDisplay(options: DisplayOptions): Display {
  const env = options.env ?? process.env;
  const level =
    options.noColor === true
      ? 0
      : (options.color ?? detectColorLevel({ env, isTTY: options.output.isTTY === true }));
  return {
    level,
    theme: resolveTheme(options.theme, env),
    width: Math.max(20, options.width ?? options.output.columns ?? 80),
    height: Math.max(8, options.height ?? options.output.rows ?? 24),
    tabWidth: options.tabWidth ?? 4,
  };
}
