import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ThemeOption } from '../terminal/palette.js';

/**
 * The command line shared by editgate's file commands: the global options every command takes, and the
 * parsing that turns a bad command line into a UsageError that says what to do (exit 2, nothing tried).
 */

/** A wrong command line: its message is printed with the command's help, and the exit code is 2. */
export class UsageError extends Error {}

export interface GlobalOptions {
  /** The workspace root (absolute); nothing outside it is read or written. */
  root: string;
  /** Approve every change without asking (each diff is still shown). */
  yes: boolean;
  matching?: 'exact' | 'tolerant';
  noColor: boolean;
  theme: ThemeOption;
  /** Results as JSON (one object per line) on standard output, for programs. */
  json: boolean;
  /** A config file instead of ROOT/editgate.config.json. */
  config?: string;
  /** Where to ask: the terminal, or the web review page (`--approve web`); default from the config. */
  approve?: 'terminal' | 'web';
  /** Open the web review page in the browser. */
  open: boolean;
}

export const GLOBAL_OPTIONS = {
  root: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  matching: { type: 'string' },
  'no-color': { type: 'boolean' },
  theme: { type: 'string' },
  json: { type: 'boolean' },
  config: { type: 'string' },
  approve: { type: 'string' },
  open: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const GLOBAL_OPTIONS_HELP = `Global options (before or after the command):
  --root DIR        the workspace root; nothing outside it is touched (default: the current folder)
  -y, --yes         approve every change without asking (each diff is still shown)
  --matching MODE   exact, or tolerant (default): whitespace and indentation slips may match when
                    exact text is not found, if they match exactly one place
  --no-color        no colours (NO_COLOR and FORCE_COLOR are respected too)
  --theme THEME     dark, light or auto (default: auto, from the terminal when it tells)
  --json            results as JSON lines on standard output, for programs
  --config FILE     use this config file instead of ROOT/editgate.config.json
  --approve WHERE   terminal (default), or web: review each change on a local page in your browser
                    (the terminal question stays live; the first answer counts)
  --open            with --approve web, open the page in your browser
  -h, --help        show help`;

export type OptionSpecs = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export interface ParsedCommandLine<T extends OptionSpecs> {
  globals: GlobalOptions;
  values: { [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean };
  positionals: string[];
  help: boolean;
}

export function parseCommandLine<T extends OptionSpecs>(args: string[], options: T): ParsedCommandLine<T> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { ...GLOBAL_OPTIONS, ...options },
    });
  } catch (error) {
    // Node's messages name the option; add nothing but the pointer to --help (printed by the caller).
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const matching = values.matching as string | undefined;
  if (matching !== undefined && matching !== 'exact' && matching !== 'tolerant') {
    throw new UsageError(`--matching must be exact or tolerant (got "${matching}")`);
  }
  const theme = (values.theme as string | undefined) ?? 'auto';
  if (theme !== 'dark' && theme !== 'light' && theme !== 'auto') {
    throw new UsageError(`--theme must be dark, light or auto (got "${theme}")`);
  }
  const approve = values.approve as string | undefined;
  if (approve !== undefined && approve !== 'terminal' && approve !== 'web') {
    throw new UsageError(`--approve must be terminal or web (got "${approve}")`);
  }
  if (approve === 'web' && values.yes === true) {
    throw new UsageError('--yes approves without asking, --approve web asks on a page: give one of them');
  }
  const globals: GlobalOptions = {
    root: resolve((values.root as string | undefined) ?? process.cwd()),
    yes: values.yes === true,
    noColor: values['no-color'] === true,
    theme,
    json: values.json === true,
    open: values.open === true,
  };
  if (approve) globals.approve = approve;
  if (matching) globals.matching = matching;
  if (typeof values.config === 'string') globals.config = values.config;
  return {
    globals,
    values: values as ParsedCommandLine<T>['values'],
    positionals: parsed.positionals,
    help: values.help === true,
  };
}
