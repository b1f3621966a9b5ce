// `editgate edit FILE --old TEXT --new TEXT`: one exact string replacement, shown and approved first.
import { CHANGE_GLOBALS, type FileCommand, oneFile, runFileCommand, textOption } from '../file-command.js';
import { UsageError } from '../usage.js';

const options = {
  old: { type: 'string' },
  new: { type: 'string' },
  'old-file': { type: 'string' },
  'new-file': { type: 'string' },
  'replace-all': { type: 'boolean' },
} as const;

export const HELP = `Usage: editgate edit FILE --old TEXT --new TEXT [--replace-all]

Replace the exact text --old with --new in FILE. The text must be found exactly once (the error says how
many times it was found otherwise); --replace-all replaces every occurrence. An empty --old on a file that
does not exist creates it with --new as its content. The diff is shown and you are asked before anything is
written.

Options:
  --old TEXT          the text to replace (exactly as in the file)
  --new TEXT          what to put in its place (may be empty to delete)
  --old-file PATH     read the old text from a file instead ("-": standard input)
  --new-file PATH     read the new text from a file instead ("-": standard input)
  --replace-all       replace every occurrence, not just the only one`;

export const editCommand: FileCommand<typeof options> = {
  name: 'edit',
  help: HELP,
  options,
  globals: [...CHANGE_GLOBALS, 'matching'],
  requireReadBeforeEdit: false,
  encoding: true,
  async toToolCall({ values, positionals }) {
    const file = oneFile('edit', positionals);
    const old = await textOption(values, 'old', 'old-file');
    const replacement = await textOption(values, 'new', 'new-file');
    if (!old) throw new UsageError('give the text to replace with --old TEXT (or --old-file PATH)');
    if (!replacement) throw new UsageError('give the new text with --new TEXT (or --new-file PATH)');
    if (old.fromStdin && replacement.fromStdin) {
      throw new UsageError('only one of --old-file and --new-file can read standard input ("-")');
    }
    return {
      tool: 'edit_file',
      input: {
        file_path: file,
        old_string: old.text,
        new_string: replacement.text,
        ...(values['replace-all'] ? { replace_all: true } : {}),
      },
      stdinBusy: old.fromStdin || replacement.fromStdin,
    };
  },
};

export const run = (args: string[]) => runFileCommand(editCommand, args);
