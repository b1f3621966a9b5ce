/**
 * edit_lines on a huge file: the ranges become byte spans (line starts from the sparse index, each found
 * by a short scan from a checkpoint), and the replacements get exactly the line endings core's
 * applyLineEdits gives them, so the written bytes are the same as the in-memory path's. Validation is core's
 * own validateLineEdit, so the messages are the same too (INVALID_RANGE for ranges out of bounds, reversed,
 * unsorted or overlapping).
 */
import type { FileHandle } from 'node:fs/promises';
import { type LineEdit, lineEditText, validateLineEdit } from '../../../core/edit.js';
import { EditgateError } from '../../../core/errors.js';
import { type LineIndex, lineStart } from '../read/line-index.js';
import type { Span } from '../write/span-writer.js';
import { chooseEolAt, encodeInsert } from './new-text.js';

export async function planLineEdits(
  handle: FileHandle,
  index: LineIndex,
  edits: readonly LineEdit[],
  chunkSize: number,
): Promise<Span[]> {
  if (!Array.isArray(edits) || edits.length === 0) {
    throw new EditgateError(
      'INVALID_INPUT',
      'No edits were given; give at least one { range, replacement }.',
    );
  }
  const count = index.lineCount;
  edits.forEach((edit, i) => {
    validateLineEdit(edit, i, edits, count);
  });
  const offsetOf = (line: number) =>
    line <= count ? lineStart(handle, index, line, chunkSize) : Promise.resolve(index.size);

  const spans: Span[] = [];
  let copiedTo = index.bodyStart;
  let endsOpen = false; // what has been emitted so far ends inside a line
  for (let i = 0; i < edits.length; i++) {
    const { range, replacement } = edits[i]!;
    const [start, end] = range;
    const from = await offsetOf(start);
    const to = await offsetOf(end);
    // Bytes copied before this span end where the span starts: at a line start (after a terminator), or at
    // the end of a file whose last line has none.
    if (from > copiedTo) endsOpen = from === index.size && !index.finalNewline;
    copiedTo = to;
    if (replacement === '') {
      spans.push({ start: from, end: to, insert: Buffer.alloc(0) });
      continue;
    }
    const text = lineEditText(replacement, await chooseEolAt(handle, index, from, to, chunkSize), {
      endsFile: end === count + 1 && i === edits.length - 1,
      finalNewline: index.finalNewline,
      afterOpenLine: endsOpen,
    });
    const last: number = text.charCodeAt(text.length - 1);
    endsOpen = last !== 10 && last !== 13;
    spans.push({ start: from, end: to, insert: encodeInsert(text) });
  }
  return spans;
}
