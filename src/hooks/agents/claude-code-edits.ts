/**
 * The bytes Claude Code's own Edit, MultiEdit and Write leave in a file, worked out from their input and the
 * file as it is (Claude Code 2.1.332, read from its bundled source): a file is read as UTF-8 with every
 * CRLF turned into LF, each edit's old_string must occur (exactly once unless replace_all), is replaced by
 * new_string in turn, and the text is written back with the file's CRLF line ends when it had them. An
 * empty old_string creates the file (or fills an empty one).
 *
 * Where Claude Code would go further than exact text (straight quotes matching curly ones, \uXXXX escapes,
 * mixed line ends, a byte-order mark, another encoding), editgate cannot be sure of the bytes it writes, so
 * it refuses with what to send instead rather than show a diff that may not be what is written.
 */
import { countOccurrences, readToolText, toolRefusal as refusal } from './tool-text.js';

export interface ClaudeEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

const TOOL = "Claude Code's Edit";

/** The file's text as Claude Code's Edit reads it, and whether it writes CRLF back. */
function readAsClaudeDoes(current: Buffer, path: string): { text: string; crlf: boolean } {
  const { text, bom, crlf } = readToolText(current, path, TOOL);
  if (bom)
    throw refusal(
      `${path} starts with a byte-order mark; editgate cannot be sure what ${TOOL} writes for it, so it refuses the edit. Nothing was written.`,
      path,
    );
  const lf = text.replaceAll('\r\n', '\n');
  if (lf.includes('\r') || (crlf && /(^|[^\r])\n/.test(text)))
    throw refusal(
      `${path} mixes line endings; editgate cannot be sure which ${TOOL} writes back, so it refuses the edit. Nothing was written.`,
      path,
    );
  return { text: lf, crlf };
}

/** Claude Code's edits applied in turn to the text it read. */
export function applyClaudeEdits(path: string, current: Buffer | null, edits: readonly ClaudeEdit[]): Buffer {
  if (edits.length === 0) throw refusal('The call has no edits. Nothing was written.', path);
  const first = edits[0]!;
  if (edits.length === 1 && first.old_string === '') {
    // Creating a file, or filling an empty one; Claude Code refuses it on a file with text.
    if (current !== null && current.toString('utf8').trim() !== '')
      throw refusal(`Cannot create ${path}: the file already exists. Nothing was written.`, path);
    return Buffer.from(first.new_string, 'utf8');
  }
  if (current === null) throw refusal(`${path} does not exist. Nothing was written.`, path);
  const { text, crlf } = readAsClaudeDoes(current, path);
  let result = text;
  for (const [index, edit] of edits.entries()) {
    const which = edits.length > 1 ? `edits[${index}]: ` : '';
    if (edit.old_string === edit.new_string)
      throw refusal(
        `${which}old_string and new_string are the same; there is nothing to change. Nothing was written.`,
        path,
      );
    if (edit.old_string === '') throw refusal(`${which}old_string is empty. Nothing was written.`, path);
    const count = countOccurrences(result, edit.old_string);
    if (count === 0)
      throw refusal(
        `${which}old_string was not found in ${path} exactly as given (editgate does not guess how Claude Code would match it otherwise). Read the file and send the exact text. Nothing was written.`,
        path,
      );
    if (count > 1 && !edit.replace_all)
      throw refusal(
        `${which}old_string occurs ${count} times in ${path} and replace_all is false. Give more context so it occurs once, or set replace_all. Nothing was written.`,
        path,
      );
    result = edit.replace_all
      ? result.replaceAll(edit.old_string, () => edit.new_string)
      : result.replace(edit.old_string, () => edit.new_string);
  }
  return Buffer.from(crlf ? result.replaceAll('\n', '\r\n') : result, 'utf8');
}
