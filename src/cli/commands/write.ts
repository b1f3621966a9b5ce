// `editgate write FILE`: create or replace a whole file, from --content or standard input.
import {
  CHANGE_GLOBALS,
  type FileCommand,
  oneFile,
  readStandardInput,
  runFileCommand,
} from '../file-command.js';

const options = {
  content: { type: 'string' },
} as const;

export const HELP = `Usage: editgate write FILE [--content TEXT]     (or: ... | editgate write FILE)

Create FILE, or replace all of its content, with --content or what arrives on standard input. An existing
file keeps its encoding, byte-order mark, line endings and mode. The diff is shown and you are asked before
anything is written; when standard input carries the content, the question is asked on the terminal.

Options:
  --content TEXT      the new content (otherwise read from standard input)`;

export const writeCommand: FileCommand<typeof options> = {
  name: 'write',
  help: HELP,
  options,
  globals: CHANGE_GLOBALS,
  requireReadBeforeEdit: false,
  encoding: true,
  async toToolCall({ values, positionals }) {
    const file = oneFile('write', positionals);
    const fromStdin = values.content === undefined;
    const content = fromStdin ? await readStandardInput('the content (--content TEXT)') : values.content!;
    return { tool: 'write_file', input: { file_path: file, content }, stdinBusy: fromStdin };
  },
};

export const run = (args: string[]) => runFileCommand(writeCommand, args);
