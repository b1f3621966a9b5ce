import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isEditgateError } from '../core/errors.js';
import { openCliSession } from './command-tools.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { dryRunResult } from './for-people.js';
import { report } from './report.js';
import {
  type GlobalOptionName,
  globalOptionsHelp,
  type OptionSpecs,
  type ParsedCommandLine,
  parseCommandLine,
  UsageError,
} from './usage.js';

/**
 * The shape shared by the commands that make one change (edit, write, lines, undo): parse the command line,
 * turn it into one tool call, run it through the gate with the person at the terminal (or, with --dry-run,
 * only show it), print the result.
 */
export interface FileCommand<T extends OptionSpecs> {
  name: string;
  /** Usage and the command's own options; --dry-run, the global options and the exit codes are added. */
  help: string;
  options: T;
  /** The global options the command takes; any other is refused. */
  globals: readonly GlobalOptionName[];
  /** Direct commands name the text themselves, so they need no read first (staleness is still checked). */
  requireReadBeforeEdit: boolean;
  /** Takes --encoding, passed on to the tool as `encoding`. */
  encoding: boolean;
  /** The tool call; throws UsageError for a wrong command line. */
  toToolCall(line: ParsedCommandLine<T & typeof CHANGE_OPTIONS>): Promise<ToolCall>;
}

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
  /** The command read content from standard input, so keys must come from the terminal itself. */
  stdinBusy: boolean;
}

/** Options every change command takes. */
export const CHANGE_OPTIONS = { 'dry-run': { type: 'boolean' } } as const;

export const DRY_RUN_HELP = `  --dry-run           show the diff and exit: nothing is written and no one is asked (policy rules and
                      before-change hooks are still consulted); exit 0 when the change could be made`;

/** The global options of the commands that change a file. */
export const CHANGE_GLOBALS: readonly GlobalOptionName[] = [
  'root',
  'yes',
  'no-color',
  'theme',
  'json',
  'config',
  'approve',
  'open',
];

/** `--encoding ENC` of the commands that read or change text. */
export const ENCODING_OPTION = { encoding: { type: 'string' } } as const;

export const ENCODING_HELP = `  --encoding ENC      the file's encoding when it is not UTF-8 or UTF-16 with a byte-order mark (e.g.
                      latin1, windows-1252, shift_jis): read in it, and written in it (a new file too)`;

/** The --encoding value, checked before anything is read: an unknown name is a usage error. */
export async function encodingOption(value: string | undefined): Promise<{ encoding?: string }> {
  if (value === undefined) return {};
  const { normalizeEncodingName } = await import('../core/text.js');
  try {
    normalizeEncodingName(value);
  } catch (error) {
    throw new UsageError(`--encoding: ${(error as Error).message}`);
  }
  return { encoding: value };
}

export function commandHelp(help: string, globals?: readonly GlobalOptionName[]): string {
  return `${help}\n\n${globalOptionsHelp(globals)}\n\n${EXIT_CODES_HELP}\n`;
}

export async function runFileCommand<T extends OptionSpecs>(
  command: FileCommand<T>,
  args: string[],
): Promise<number> {
  let line: ParsedCommandLine<T & typeof CHANGE_OPTIONS>;
  let call: ToolCall;
  const help = [command.help, ...(command.encoding ? [ENCODING_HELP] : []), DRY_RUN_HELP].join('\n');
  const options = { ...command.options, ...(command.encoding ? ENCODING_OPTION : {}), ...CHANGE_OPTIONS };
  try {
    line = parseCommandLine(args, options, command.globals);
    if (line.help) {
      process.stdout.write(commandHelp(help, command.globals));
      return EXIT.ok;
    }
    const encoding = await encodingOption(line.values.encoding as string | undefined);
    call = await command.toToolCall(line);
    call.input = { ...call.input, ...encoding };
  } catch (error) {
    return usageFailure(command.name, error);
  }
  const dryRun = line.values['dry-run'] === true;
  let session: Awaited<ReturnType<typeof openCliSession>>;
  try {
    session = await openCliSession(line.globals, {
      stdinBusy: call.stdinBusy,
      command: `editgate ${command.name}`,
      oneChange: true,
      requireReadBeforeEdit: command.requireReadBeforeEdit,
      dryRun,
    });
  } catch (error) {
    return usageFailure(command.name, error);
  }
  try {
    const result = await session.tools.execute(call.tool, call.input);
    return report(call.tool, dryRun && result.ok ? dryRunResult(result) : result, {
      json: line.globals.json,
      command: command.name,
      typed: { input: call.input, ...(session.configFile ? { configFile: session.configFile } : {}) },
    });
  } finally {
    session.close();
  }
}

/** Prints what was wrong with the command line or the config, and how to get help; exit code 2. */
export function usageFailure(name: string, error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  const hint =
    error instanceof UsageError
      ? `${/[.!?]$/.test(message) ? '' : '.'} Run editgate ${name} --help for its options.`
      : '';
  if (!(error instanceof UsageError) && !isEditgateError(error)) throw error;
  process.stderr.write(`editgate ${name}: ${message}${hint}\n`);
  return EXIT.usage;
}

/** Text from a file given on the command line, or from standard input for "-". */
export async function readTextArgument(flag: string, path: string): Promise<string> {
  if (path === '-') return readStandardInput(flag);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path}: ${(error as Error).message}`);
  }
}

export async function readStandardInput(what: string): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError(
      `${what}: standard input is the terminal; pipe the text in (... < file) or give it as an option.`,
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One of two ways to give a text (--old TEXT or --old-file PATH): exactly one, or UsageError. */
export async function textOption(
  values: Record<string, unknown>,
  flag: string,
  fileFlag: string,
): Promise<{ text: string; fromStdin: boolean } | undefined> {
  const text = values[flag];
  const file = values[fileFlag];
  if (typeof text === 'string' && typeof file === 'string') {
    throw new UsageError(`give --${flag} or --${fileFlag}, not both`);
  }
  if (typeof text === 'string') return { text, fromStdin: false };
  if (typeof file === 'string')
    return { text: await readTextArgument(`--${fileFlag}`, file), fromStdin: file === '-' };
  return undefined;
}

/** The command's one FILE argument. */
export function oneFile(name: string, positionals: string[]): string {
  if (positionals.length === 0) throw new UsageError(`give the FILE to ${name}`);
  if (positionals.length > 1) throw new UsageError(`one FILE at a time (got ${positionals.join(', ')})`);
  // Relative to where the command runs, as with any command; the guard then keeps it inside the root.
  return resolve(positionals[0]!);
}
