/**
 * The bytes OpenCode's own `edit` and `write` leave in a file, worked out from their input and the file as it
 * is (OpenCode 1.18.33, read from its compiled binary: the edit and write tools and their Bom helpers).
 *
 * edit: the file is read as UTF-8, a byte-order mark set aside (and written back); old_string and new_string
 * get the file's line ends (CRLF when the file has any). An old_string found exactly once is replaced there;
 * with `replaceAll`, every occurrence is replaced by JavaScript's String.replaceAll, so `$&`, `$$` and the
 * like in newString mean what they mean there. An empty oldString on a missing file creates it.
 *
 * When oldString is not found exactly once (not at all, or several times without replaceAll), OpenCode goes
 * on to eight looser matchers (lines without indentation, block anchors, whitespace folded...). editgate
 * cannot be sure which text those change, so it refuses and says what to send.
 *
 * write: the content as given, a byte-order mark kept when the file or the content had one.
 *
 * A formatter OpenCode runs after writing (its `formatter` setting) changes the bytes again: the post-tool
 * check then reports that what is on disk is not what was approved.
 */
import { readToolText, toolBytes, toolRefusal } from './tool-text.js';

export interface OpenCodeEdit {
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}

const TOOL = "OpenCode's edit";

function withoutBom(text: string): { text: string; bom: boolean } {
  return text.startsWith('\uFEFF') ? { text: text.slice(1), bom: true } : { text, bom: false };
}

/** OpenCode's Io then Me: the text's line breaks as LF, then as the file's. */
function asFileLineEnds(text: string, crlf: boolean): string {
  const lf = text.replaceAll('\r\n', '\n');
  return crlf ? lf.replaceAll('\n', '\r\n') : lf;
}

export function applyOpenCodeEdit(path: string, current: Buffer | null, edit: OpenCodeEdit): Buffer {
  if (edit.oldString === edit.newString)
    throw toolRefusal(
      'oldString and newString are the same; there is nothing to change. Nothing was written.',
      path,
    );
  if (edit.oldString === '') {
    if (current !== null)
      throw toolRefusal(
        `${path} already exists; an empty oldString only creates a new file. Read the file and send the exact text to replace, or use write. Nothing was written.`,
        path,
      );
    const created = withoutBom(edit.newString);
    return toolBytes(created.text, created.bom);
  }
  if (current === null) throw toolRefusal(`${path} does not exist. Nothing was written.`, path);
  const read = readToolText(current, path, TOOL);
  const search = asFileLineEnds(edit.oldString, read.crlf);
  const replacement = asFileLineEnds(edit.newString, read.crlf);
  if (search === replacement)
    throw toolRefusal(
      'oldString and newString are the same; there is nothing to change. Nothing was written.',
      path,
    );
  const first = read.text.indexOf(search);
  let result: string;
  if (first === -1) {
    throw toolRefusal(
      `oldString was not found in ${path} exactly as given. OpenCode would try looser matches (indentation, whitespace, block anchors) and editgate cannot be sure which text those change, so it refuses. Read the file and send the exact text. Nothing was written.`,
      path,
    );
  } else if (edit.replaceAll === true) {
    // Exactly OpenCode's call, replacement patterns and all.
    result = read.text.replaceAll(search, replacement);
  } else if (read.text.lastIndexOf(search) !== first) {
    throw toolRefusal(
      `oldString occurs more than once in ${path} and replaceAll is not set. OpenCode would then try looser matches that may pick one, and editgate does not guess which: give more context so it occurs once, or set replaceAll. Nothing was written.`,
      path,
    );
  } else {
    result = read.text.slice(0, first) + replacement + read.text.slice(first + search.length);
  }
  const after = withoutBom(result);
  return toolBytes(after.text, read.bom || after.bom);
}

export function applyOpenCodeWrite(current: Buffer | null, content: string): Buffer {
  const given = withoutBom(content);
  // OpenCode decodes the old bytes only to see whether they start with a byte-order mark.
  const hadBom = current !== null && current.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]));
  return toolBytes(given.text, hadBom || given.bom);
}
