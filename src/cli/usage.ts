import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ThemeOption } from '../terminal/palette.js';

/**
 * The command line shared by editgate's commands: the global options, which of them each command takes,
 * and the parsing that turns a bad command line into a UsageError that says what to do (exit 2, nothing
 * tried). An option a command would ignore is refused, so no one believes it had an effect.
 */

/** A wrong command line: its message is printed with the pointer to the command's help; exit code 2. */
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

/** Options that may come before the command as well as after it. main.ts keeps its own list of the ones
 * that take a value (so that `editgate --help` loads nothing else); a test checks the two agree. */
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
} as const;

export type GlobalOptionName = keyof typeof GLOBAL_OPTIONS;

/** Every global option, for commands that do not say which they take. */
export const ALL_GLOBALS: readonly GlobalOptionName[] = Object.keys(GLOBAL_OPTIONS) as GlobalOptionName[];

const GLOBAL_HELP: Record<GlobalOptionName, string> = {
  root: `  --root DIR        the workspace root; nothing outside it is touched (default: the current folder)`,
  yes: `  -y, --yes         approve every change without asking (each diff is still shown)`,
  matching: `  --matching MODE   exact, or tolerant (default): whitespace and indentation slips may match when
                    exact text is not found, if they match exactly one place`,
  'no-color': `  --no-color        no colours (NO_COLOR and FORCE_COLOR are respected too)`,
  theme: `  --theme THEME     dark, light or auto (default: auto, from the terminal when it tells)`,
  json: `  --json            results as JSON lines on standard output, for programs`,
  config: `  --config FILE     use this config file instead of ROOT/editgate.config.json`,
  approve: `  --approve WHERE   terminal (default), or web: review each change on a local page in your browser
                    (the terminal question stays live; the first answer counts)`,
  open: `  --open            with --approve web, open the page in your browser`,
};

/** The help section for the global options a command takes. */
export function globalOptionsHelp(accepts: readonly GlobalOptionName[] = ALL_GLOBALS): string {
  const lines = ALL_GLOBALS.filter((name) => accepts.includes(name)).map((name) => GLOBAL_HELP[name]);
  return ['Global options (before or after the command):', ...lines, '  -h, --help        show help'].join(
    '\n',
  );
}

/** Every global option's help (kept for callers written before commands chose their globals). */
export const GLOBAL_OPTIONS_HELP = globalOptionsHelp();

export type OptionSpecs = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export interface ParsedCommandLine<T extends OptionSpecs> {
  globals: GlobalOptions;
  values: { [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean };
  positionals: string[];
  help: boolean;
}

/**
 * Parses a command's arguments: its own `options`, the global options it `accepts` (all of them unless it
 * says), and -h/--help. Throws UsageError, in editgate's own words, for an unknown option, a global the
 * command does not take, an option without its value (or with one it does not take), or one given twice.
 */
export function parseCommandLine<T extends OptionSpecs>(
  args: string[],
  options: T,
  accepts: readonly GlobalOptionName[] = ALL_GLOBALS,
): ParsedCommandLine<T> {
  const specs: OptionSpecs = { help: { type: 'boolean', short: 'h' }, ...options };
  for (const name of accepts) specs[name] = GLOBAL_OPTIONS[name];
  checkOptions(args, specs);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: specs });
  } catch (error) {
    // checkOptions has refused everything Node's parser refuses; this is a safety net, in our words.
    throw new UsageError((error as Error).message.replace(/'/g, '"'));
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
  // A command with an --approve of its own (mcp) checks it itself.
  const approve = accepts.includes('approve') ? (values.approve as string | undefined) : undefined;
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
  if (approve === 'terminal' || approve === 'web') globals.approve = approve;
  if (matching) globals.matching = matching;
  if (typeof values.config === 'string') globals.config = values.config;
  return {
    globals,
    values: values as ParsedCommandLine<T>['values'],
    positionals: parsed.positionals,
    help: values.help === true,
  };
}

/** Node's parser would print its own text (with unbalanced quotes), or take a flag for a value. */
function checkOptions(args: string[], specs: OptionSpecs): void {
  const { tokens } = parseArgs({ args, allowPositionals: true, strict: false, tokens: true, options: specs });
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const spec = specs[token.name];
    const flag = token.rawName;
    if (!spec) {
      if (Object.hasOwn(GLOBAL_OPTIONS, token.name)) {
        throw new UsageError(`--${token.name} does not apply to this command`);
      }
      throw new UsageError(`unknown option ${flag}`);
    }
    if (spec.type === 'string') {
      if (token.value === undefined) throw new UsageError(`${flag} needs a value`);
      // `--old --new x` would take "--new" as the old text: say so rather than guess.
      if (!token.inlineValue && token.value.length > 1 && token.value.startsWith('-')) {
        throw new UsageError(
          `${flag} is followed by ${token.value}, not a value; for a value that starts with "-", write ${flag}=${token.value}`,
        );
      }
    } else if (token.inlineValue) {
      throw new UsageError(`${flag} takes no value (got "${token.value}")`);
    }
    if (!spec.multiple && seen.has(token.name)) throw new UsageError(`${flag} is given more than once`);
    seen.add(token.name);
  }
}
