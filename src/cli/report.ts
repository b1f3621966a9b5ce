import { markInvisible } from '../core/invisible.js';
import type { ToolResult } from '../tools/result.js';
import { type ExitCode, exitCodeFor } from './exit-codes.js';
import { failureForPeople, hintForPeople, successForPeople } from './for-people.js';

/**
 * A tool result as the CLI prints it. For people: the message on standard output when it worked, on
 * standard error when it did not (the message already says what to do next). With --json: one JSON object
 * per result on standard output, and nothing else there.
 */
export interface ReportOptions {
  json: boolean;
  /** The command, for error lines ("editgate edit: ..."). */
  command: string;
  /**
   * The call, when a person typed it as a command (edit, write, lines, undo): the result is then told in
   * the command's own words, a refusal without the advice meant for a model (see for-people.ts). Without
   * it, the tool's message is printed as is
   * (editgate apply, where the calls and the messages are a model's).
   */
  typed?: { input: Record<string, unknown>; configFile?: string };
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/** The result as a JSON line: `details.unifiedDiff` carries the diff of a change that was made. */
export function resultJson(tool: string, result: ToolResult): Record<string, unknown> {
  return {
    tool,
    ok: result.ok,
    ...(result.ok ? {} : { code: result.code }),
    message: result.message,
    details: result.details,
  };
}

export function report(tool: string, result: ToolResult, options: ReportOptions): ExitCode {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  if (options.json) stdout.write(`${JSON.stringify(resultJson(tool, result))}\n`);
  else if (result.ok) {
    const text = options.typed ? successForPeople(options.command, result) : result.message;
    stdout.write(`${text}\n`);
  } else {
    const hint =
      options.typed && hintForPeople(options.command, result, options.typed.input, options.typed.configFile);
    const said = options.typed ? failureForPeople(options.command, result) : result.message;
    // What happened may quote the file (the closest text to a NOT_FOUND's): marked, never raw on a screen.
    stderr.write(`editgate ${options.command}: ${markInvisible(said)}\n${hint ? `hint: ${hint}\n` : ''}`);
  }
  return exitCodeFor(result);
}
