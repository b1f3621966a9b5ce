/**
 * The bytes Qwen Code's own `edit` and `write_file` leave in a file, worked out from their input and the file
 * as it is (Qwen Code 0.24.4, read from its bundle: core tools/edit.ts, write-file.ts and the file system
 * service's prepareTextFileContent).
 *
 * edit: the file is read as UTF-8 (a byte-order mark is noted and written back), every CRLF turned into LF.
 * When new_string is empty and old_string does not end in a line break but occurs followed by one, that
 * line break goes too. old_string must occur exactly once, or any number of times with `replace_all`; every
 * occurrence is replaced literally; when the file had any CRLF, every line break is written as CRLF. An
 * empty old_string on a missing file creates it with new_string.
 *
 * When old_string is not in the file exactly, Qwen Code goes on to looser matches (Unicode look-alikes,
 * lines compared without trailing spaces); editgate cannot be sure which text those change, so it refuses
 * and says what to send. Qwen Code also refuses an edit of a file its model has not read in this session;
 * that refusal is Qwen Code's own, after editgate's check.
 *
 * write_file: the content as given, with the file's byte-order mark kept and, over a file with CRLF line
 * ends, every line break as CRLF.
 */
import { countOccurrences, readToolText, toolBytes, toolRefusal } from './tool-text.js';

export interface QwenEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

const TOOL = "Qwen Code's edit";
/** Qwen Code's ensureCrlfLineEndings: every line break as CRLF, those already CRLF included. */
const crlf = (text: string) => text.split('\r\n').join('\n').split('\n').join('\r\n');

export function applyQwenEdit(path: string, current: Buffer | null, edit: QwenEdit): Buffer {
  if (current === null) {
    if (edit.old_string === '') return Buffer.from(edit.new_string, 'utf8');
    throw toolRefusal(
      `${path} does not exist; Qwen Code's edit creates a file only with an empty old_string. Nothing was written.`,
      path,
    );
  }
  if (edit.old_string === '')
    throw toolRefusal(
      `${path} already exists; an empty old_string only creates a new file. Read the file and send the exact text to replace. Nothing was written.`,
      path,
    );
  const read = readToolText(current, path, TOOL);
  const text = read.text.replaceAll('\r\n', '\n');
  if (!text.includes(edit.old_string))
    throw toolRefusal(
      `old_string was not found in ${path} exactly as given. Qwen Code would try looser matches (Unicode look-alikes, trailing spaces ignored) and editgate cannot be sure which text those change, so it refuses. Read the file and send the exact text. Nothing was written.`,
      path,
    );
  // Qwen Code's maybeAugmentOldStringForDeletion.
  let search = edit.old_string;
  if (edit.new_string === '' && !search.endsWith('\n') && text.includes(`${search}\n`))
    search = `${search}\n`;
  const count = countOccurrences(text, search);
  if (count > 1 && edit.replace_all !== true)
    throw toolRefusal(
      `old_string occurs ${count} times in ${path} and replace_all is not set. Give more context so it occurs once, or set replace_all to replace every one. Nothing was written.`,
      path,
    );
  if (search === edit.new_string)
    throw toolRefusal(
      'old_string and new_string are the same; there is nothing to change. Nothing was written.',
      path,
    );
  const result = text.replaceAll(search, () => edit.new_string);
  if (result === text)
    throw toolRefusal(
      `The edit would leave ${path} as it is; there is nothing to change. Nothing was written.`,
      path,
    );
  return toolBytes(read.crlf ? crlf(result) : result, read.bom);
}

export function applyQwenWriteFile(path: string, current: Buffer | null, content: string): Buffer {
  if (current === null) return Buffer.from(content, 'utf8');
  const read = readToolText(current, path, "Qwen Code's write_file");
  const body = content.startsWith('\uFEFF') && read.bom ? content.slice(1) : content;
  return toolBytes(read.crlf ? crlf(body) : body, read.bom);
}
