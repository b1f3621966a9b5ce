import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isEditgateError } from '../core/errors.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { report } from './report.js';
import { openCliSession } from './session.js';
import {
  GLOBAL_OPTIONS_HELP,
  type OptionSpecs,
  type ParsedCommandLine,
  parseCommandLine,
  UsageError,
} from './usage.js';

/**
 * The shape shared by the commands that make one change (edit, write, lines, undo): parse the command line,
 * turn it into one tool call, run it through the gate with the person at the terminal, print the result.
 */
export interface FileCommand<T extends OptionSpecs> {
  name: string;
  /** Usage and the command's own options; the global options and exit codes are added. */
  help: string;
  options: T;
  /** Direct commands name the text themselves, so they need no read first (staleness is still checked). */
  requireReadBeforeEdit: boolean;
  /** The tool call; throws UsageError for a wrong command line. */
  toToolCall(line: ParsedCommandLine<T>): Promise<ToolCall>;
}

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
  /** The command read content from standard input, so keys must come from the terminal itself. */
  stdinBusy: boolean;
}

export function commandHelp(help: string): string {
  return `${help}\n\n${GLOBAL_OPTIONS_HELP}\n\n${EXIT_CODES_HELP}\n`;
}

export async function runFileCommand<T extends OptionSpecs>(
  command: FileCommand<T>,
  args: string[],
): Promise<number> {
  let line: ParsedCommandLine<T>;
  let call: ToolCall;
  try {
    line = parseCommandLine(args, command.options);
    if (line.help) {
      process.stdout.write(commandHelp(command.help));
      return EXIT.ok;
    }
    call = await command.toToolCall(line);
  } catch (error) {
    return usageFailure(command.name, error);
  }
  let session: Awaited<ReturnType<typeof openCliSession>>;
  try {
    session = await openCliSession(line.globals, {
      stdinBusy: call.stdinBusy,
      command: `editgate ${command.name}`,
      requireReadBeforeEdit: command.requireReadBeforeEdit,
    });
  } catch (error) {
    return usageFailure(command.name, error);
  }
  try {
    const result = await session.tools.execute(call.tool, call.input);
    return report(call.tool, result, {
      json: line.globals.json,
      command: command.name,
      typed: { input: call.input },
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
