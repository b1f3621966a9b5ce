// `editgate read FILE`: the file's lines numbered as a model sees them (read_file), to pick a --range.
import type { ToolResult } from '../../tools/result.js';
import { openCliSession } from '../command-tools.js';
import { EXIT } from '../exit-codes.js';
import {
  commandHelp,
  ENCODING_HELP,
  ENCODING_OPTION,
  encodingOption,
  oneFile,
  usageFailure,
} from '../file-command.js';
import { report } from '../report.js';
import { type GlobalOptionName, type ParsedCommandLine, parseCommandLine, UsageError } from '../usage.js';

const options = {
  offset: { type: 'string' },
  limit: { type: 'string' },
  ...ENCODING_OPTION,
} as const;

const GLOBALS: readonly GlobalOptionName[] = ['root', 'yes', 'json', 'config'];

export const HELP = `Usage: editgate read FILE [--offset N] [--limit N]

Print FILE's lines numbered the way the read_file tool shows them to a model (the number, a tab, the
line), so you can pick the --range for editgate lines. Long files come a page at a time: 2000 lines by
default ("readLimit" in the config file), fewer when the lines are very long; a note on standard error
says which lines were shown and how to see the next ones. Standard output carries the numbered lines alone.
Reads follow the config's policy: a rule that denies read_file on a path refuses it (exit 3), and one
that asks asks you (--yes answers yes).

Options:
  --offset N          the first line to show (1-based; default 1)
  --limit N           show at most N lines
${ENCODING_HELP}`;

export async function run(args: string[]): Promise<number> {
  let line: ParsedCommandLine<typeof options>;
  let input: Record<string, unknown>;
  try {
    line = parseCommandLine(args, options, GLOBALS);
    if (line.help) {
      process.stdout.write(commandHelp(HELP, GLOBALS));
      return EXIT.ok;
    }
    const file = oneFile('read', line.positionals);
    input = {
      file_path: file,
      ...lineNumberOption('--offset', line.values.offset, 'offset'),
      ...lineNumberOption('--limit', line.values.limit, 'limit'),
      ...(await encodingOption(line.values.encoding)),
    };
  } catch (error) {
    return usageFailure('read', error);
  }
  let session: Awaited<ReturnType<typeof openCliSession>>;
  try {
    session = await openCliSession(line.globals, { stdinBusy: false });
  } catch (error) {
    return usageFailure('read', error);
  }
  try {
    const result = await session.tools.execute('read_file', input);
    if (line.globals.json || !result.ok) {
      return report('read_file', result, {
        json: line.globals.json,
        command: 'read',
        typed: { input, ...(session.configFile ? { configFile: session.configFile } : {}) },
      });
    }
    printPage(result, line.positionals[0]!);
    return EXIT.ok;
  } finally {
    session.close();
  }
}

function lineNumberOption(flag: string, value: string | undefined, key: string): Record<string, number> {
  if (value === undefined) return {};
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 1) {
    throw new UsageError(`${flag} must be a whole number from 1 (got "${value}")`);
  }
  return { [key]: Number(value) };
}

/** The numbered lines on standard output; where they lie in the file, on standard error. */
function printPage(result: Extract<ToolResult, { ok: true }>, file: string): void {
  const { firstLine, lastLine, lines } = result.details;
  if (typeof firstLine !== 'number' || typeof lastLine !== 'number' || typeof lines !== 'number') {
    // An empty file, or an answer without a page: the tool's message says it all.
    process.stderr.write(`${result.message}\n`);
    return;
  }
  const shown = lastLine - firstLine + 1;
  const [page, rest] = splitAfterLines(result.message, shown);
  process.stdout.write(`${page}\n`);
  const notes: string[] = [];
  if (firstLine > 1 || lastLine < lines) {
    const next = lastLine < lines ? `; next: editgate read ${file} --offset ${lastLine + 1}` : '';
    notes.push(`(lines ${firstLine}-${lastLine} of ${lines}${next})`);
  }
  if (rest.includes('does not end with a newline')) notes.push('(the file does not end with a newline)');
  if (notes.length > 0) process.stderr.write(`${notes.join('\n')}\n`);
}

/** The first `count` lines of `text`, and what follows them (the tool's footer). */
function splitAfterLines(text: string, count: number): [string, string] {
  let index = -1;
  for (let n = 0; n < count; n++) {
    index = text.indexOf('\n', index + 1);
    if (index === -1) return [text, ''];
  }
  return [text.slice(0, index), text.slice(index + 1)];
}
