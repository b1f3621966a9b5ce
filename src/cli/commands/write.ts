// `editgate write FILE`: create or replace a whole file, from --content or standard input.
import {
  CHANGE_GLOBALS,
  ENCODING_OPTION,
  encodingOption,
  type FileCommand,
  oneFile,
  readStandardInput,
  runFileCommand,
} from '../file-command.js';

const options = {
  content: { type: 'string' },
  ...ENCODING_OPTION,
} as const;

export const HELP = `Usage: editgate write FILE [--content TEXT]     (or: ... | editgate write FILE)

Create FILE, or replace all of its content, with --content or what arrives on standard input. An existing
file keeps its encoding, byte-order mark, line endings and mode. The diff is shown and you are asked before
anything is written; when standard input carries the content, the question is asked on the terminal.

Options:
  --content TEXT      the new content (otherwise read from standard input)
  --encoding ENC      the file's encoding when it is not UTF-8 or UTF-16 with a byte-order mark (e.g.
                      latin1, windows-1252, shift_jis): the existing file is read, and a new one written, in it`;

export const writeCommand: FileCommand<typeof options> = {
  name: 'write',
  help: HELP,
  options,
  globals: CHANGE_GLOBALS,
  requireReadBeforeEdit: false,
  async toToolCall({ values, positionals }) {
    const file = oneFile('write', positionals);
    const encoding = await encodingOption(values.encoding);
    const fromStdin = values.content === undefined;
    const content = fromStdin ? await readStandardInput('the content (--content TEXT)') : values.content!;
    return { tool: 'write_file', input: { file_path: file, content, ...encoding }, stdinBusy: fromStdin };
  },
};

export const run = (args: string[]) => runFileCommand(writeCommand, args);
