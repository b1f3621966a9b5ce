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

--content TEXT that does not end in a newline gets one: a shell's 'x' rarely means "and take away the
file's final newline" (an existing file's newline is then its own CRLF or LF). Standard input is taken
byte for byte, so printf 'x' | editgate write FILE writes a file without a final newline.

Options:
  --content TEXT      the new content, ending in a newline (otherwise read from standard input)`;

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
    const content = fromStdin
      ? await readStandardInput('the content (--content TEXT)')
      : withFinalNewline(values.content!);
    return { tool: 'write_file', input: { file_path: file, content }, stdinBusy: fromStdin };
  },
};

/**
 * Text typed as an argument, ending in a newline: `--content 'x'` means the line x, not a file that lost
 * its final newline. Empty stays empty (an empty file); write_file turns "\n" into the file's own ending.
 */
function withFinalNewline(text: string): string {
  return text === '' || text.endsWith('\n') || text.endsWith('\r') ? text : `${text}\n`;
}

export const run = (args: string[]) => runFileCommand(writeCommand, args);
