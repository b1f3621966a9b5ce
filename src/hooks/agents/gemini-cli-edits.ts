/**
 * The bytes Gemini CLI's own `replace` and `write_file` leave in a file, worked out from their input and the
 * file as it is (Gemini CLI 0.61.0, read from its bundle: packages/core tools/edit.js and write-file.js).
 *
 * replace: the file is read as UTF-8 (a byte-order mark stays part of the text), every CRLF turned into LF,
 * and old_string / new_string likewise. old_string must occur exactly once, or any number of times with
 * `allow_multiple`; every occurrence is replaced literally; the file's last line break is kept as it was
 * (restoreTrailingNewline); and when the file had any CRLF, every line break is written as CRLF. An empty
 * old_string on a missing file creates it with new_string.
 *
 * When old_string is not found exactly, Gemini CLI goes on to looser matches (lines compared without their
 * indentation, a token regex, a fuzzy match, and with LLM correction on, a model's rewrite of the call).
 * editgate cannot be sure which text those would change, so it refuses instead and says what to send.
 *
 * write_file: the content as given; over a file with CRLF line ends, every line break as CRLF.
 */
import { countOccurrences, readToolText, toolBytes, toolRefusal } from './tool-text.js';

export interface GeminiReplace {
  old_string: string;
  new_string: string;
  allow_multiple?: boolean;
}

const TOOL = "Gemini CLI's replace";
const lf = (text: string) => text.replaceAll('\r\n', '\n');
const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/** Gemini CLI's restoreTrailingNewline: the result ends in a line break exactly when the file did. */
function restoreTrailingNewline(original: string, modified: string): string {
  const had = original.endsWith('\n');
  if (had && !modified.endsWith('\n')) return `${modified}\n`;
  if (!had && modified.endsWith('\n')) return modified.slice(0, -1);
  return modified;
}

export function applyGeminiReplace(path: string, current: Buffer | null, edit: GeminiReplace): Buffer {
  if (current === null) {
    if (edit.old_string === '') return Buffer.from(edit.new_string, 'utf8');
    throw toolRefusal(
      `${path} does not exist; Gemini CLI's replace creates a file only with an empty old_string. Nothing was written.`,
      path,
    );
  }
  if (edit.old_string === '')
    throw toolRefusal(
      `${path} already exists; an empty old_string only creates a new file. Read the file and send the exact text to replace. Nothing was written.`,
      path,
    );
  // Gemini CLI reads with Node's 'utf-8' (a byte-order mark is kept as a character, and written back).
  const read = readToolText(current, path, TOOL);
  const original = read.bom ? `\uFEFF${read.text}` : read.text;
  const text = lf(original);
  const search = lf(edit.old_string);
  const replacement = lf(edit.new_string);
  const count = countOccurrences(text, search);
  if (count === 0)
    throw toolRefusal(
      `old_string was not found in ${path} exactly as given. Gemini CLI would try looser matches (ignoring indentation, a fuzzy match) and editgate cannot be sure which text those change, so it refuses. Read the file and send the exact text. Nothing was written.`,
      path,
    );
  if (count > 1 && edit.allow_multiple !== true)
    throw toolRefusal(
      `old_string occurs ${count} times in ${path} and allow_multiple is not set. Give more context so it occurs once, or set allow_multiple to replace every one. Nothing was written.`,
      path,
    );
  if (search === replacement)
    throw toolRefusal(
      'old_string and new_string are the same; there is nothing to change. Nothing was written.',
      path,
    );
  const result = restoreTrailingNewline(
    text,
    text.replaceAll(search, () => replacement),
  );
  return toolBytes(read.crlf ? crlf(result) : result, false);
}

export function applyGeminiWriteFile(current: Buffer | null, content: string): Buffer {
  // Gemini CLI keeps CRLF when the file it overwrites had any (an empty file counts as none).
  const hadCrlf = current !== null && current.length > 0 && current.includes('\r\n');
  return Buffer.from(hadCrlf ? crlf(content) : content, 'utf8');
}
