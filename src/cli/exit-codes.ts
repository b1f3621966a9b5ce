import type { ToolResult } from '../tools/result.js';

/**
 * The exit codes of editgate's file commands (edit, write, lines, undo, apply). `editgate diff` follows
 * diff(1) instead: 0 equal, 1 different, 2 trouble.
 */
export const EXIT = {
  /** The change was made (or there was nothing to change). */
  ok: 0,
  /** A guard refused the change (text not found, ambiguous match, stale file, outside the root...). */
  refused: 1,
  /** The command line or the input was wrong: nothing was tried. */
  usage: 2,
  /** A person, a policy rule or a hook said no. */
  denied: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export function exitCodeFor(result: ToolResult): ExitCode {
  if (result.ok) return EXIT.ok;
  if (result.code.startsWith('DENIED_')) return EXIT.denied;
  // A line range past the end is as much an input error as a malformed one (which the CLI refuses itself).
  if (result.code === 'INVALID_INPUT' || result.code === 'INVALID_RANGE' || result.code === 'UNKNOWN_TOOL') {
    return EXIT.usage;
  }
  return EXIT.refused;
}

/** Several results (editgate apply): input errors outrank refusals, which outrank denials. */
export function worstExitCode(codes: Iterable<ExitCode>): ExitCode {
  const rank: ExitCode[] = [EXIT.ok, EXIT.denied, EXIT.refused, EXIT.usage];
  let worst: ExitCode = EXIT.ok;
  for (const code of codes) if (rank.indexOf(code) > rank.indexOf(worst)) worst = code;
  return worst;
}

export const EXIT_CODES_HELP = `Exit codes:
  0  done (or nothing needed changing); with --dry-run: the change could be made, and was shown
  1  refused by a guard: text not found or ambiguous, file changed since read, outside the root...
  2  usage or input error: bad options, a line range outside the file, malformed JSON, unknown tool;
     nothing was tried
  3  denied: you answered no, or a policy rule or hook refused`;
