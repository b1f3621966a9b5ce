import type { ToolResult } from '../tools/result.js';
import { type ExitCode, exitCodeFor } from './exit-codes.js';

/**
 * A tool result as the CLI prints it. For people: the message on standard output when it worked, on
 * standard error when it did not (the message already says what to do next). With --json: one JSON object
 * per result on standard output, and nothing else there.
 */
export interface ReportOptions {
  json: boolean;
  /** The command, for error lines ("editgate edit: ..."). */
  command: string;
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
  else if (result.ok) stdout.write(`${result.message}\n`);
  else stderr.write(`editgate ${options.command}: ${result.message}\n`);
  return exitCodeFor(result);
}
