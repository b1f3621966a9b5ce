// `editgate lines FILE --range START:END --with TEXT`: replace lines by number (edit_lines' rules).
import { CHANGE_GLOBALS, type FileCommand, oneFile, runFileCommand, textOption } from '../file-command.js';
import { UsageError } from '../usage.js';

const options = {
  range: { type: 'string' },
  with: { type: 'string' },
  'with-file': { type: 'string' },
} as const;

export const HELP = `Usage: editgate lines FILE --range START:END --with TEXT

Replace lines START up to END of FILE (1-based, END not included, as in the edit_lines tool) with TEXT:
  --range 3:5     replaces lines 3 and 4           --range 7      replaces line 7 alone
  --range 3:3     inserts before line 3            --range N+1:N+1 appends after the last line N
An empty --with deletes the lines; TEXT gets a final line ending if it lacks one, in the file's own style.
The diff is shown and you are asked before anything is written.

Options:
  --range START:END   the lines to replace
  --with TEXT         the new lines (may be empty)
  --with-file PATH    read the new lines from a file instead ("-": standard input)`;

/** "3:5" → [3, 5]; "7" → [7, 8] (that line alone). */
export function parseRange(text: string): [number, number] {
  const match = /^\s*(\d+)\s*(?::\s*(\d+)\s*)?$/.exec(text);
  if (!match) throw new UsageError(`--range must be START:END or a single line number (got "${text}")`);
  const start = Number(match[1]);
  const end = match[2] === undefined ? start + 1 : Number(match[2]);
  return [start, end];
}

export const linesCommand: FileCommand<typeof options> = {
  name: 'lines',
  help: HELP,
  options,
  globals: CHANGE_GLOBALS,
  requireReadBeforeEdit: false,
  encoding: true,
  async toToolCall({ values, positionals }) {
    const file = oneFile('lines', positionals);
    if (values.range === undefined) throw new UsageError('give the lines to replace with --range START:END');
    const range = parseRange(values.range);
    const replacement = await textOption(values, 'with', 'with-file');
    if (!replacement) throw new UsageError('give the new lines with --with TEXT (--with "" deletes them)');
    return {
      tool: 'edit_lines',
      input: { file_path: file, edits: [{ range, replacement: replacement.text }] },
      stdinBusy: replacement.fromStdin,
    };
  },
};

export const run = (args: string[]) => runFileCommand(linesCommand, args);
