import { z } from 'zod';
import { applyLineEdits } from '../core/edit.js';
import { EditgateError } from '../core/errors.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { streamEditLines } from './streaming.js';
import { defineTool } from './tool.js';

const lineNumber = z
  .number({ error: 'a line number must be a number' })
  .int('line numbers are whole numbers');

const schema = z.strictObject({
  file_path: z.string().min(1, 'give the path of the file to edit'),
  edits: z
    .array(
      z.strictObject({
        range: z.tuple([lineNumber, lineNumber], { error: 'range must be [start, end], two line numbers' }),
        replacement: z.string({ error: 'replacement must be a string (may be empty to delete lines)' }),
      }),
    )
    .min(1, 'give at least one edit'),
  encoding: z.string().min(1).optional(),
});

export const editLinesTool = defineTool({
  name: 'edit_lines',
  title: 'Edit lines',
  description: [
    'Replace ranges of lines, by the line numbers read_file shows. Each edit is { range: [start, end], replacement }.',
    '- Lines are 1-based and end is EXCLUSIVE: [3, 5] replaces lines 3 and 4; [3, 3] inserts before line 3 without removing anything; [n+1, n+1] appends after the last line n.',
    '- An empty replacement deletes the lines. A replacement gets a final line ending if it lacks one.',
    '- Ranges must be sorted and must not overlap; they all refer to the file as you read it (they are applied from the bottom up, so earlier edits do not shift later ones).',
    '- Read the file with read_file first, and re-read it after any change: line numbers move.',
    '- Prefer edit_file when you can quote the text: exact text cannot hit the wrong line.',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(input, context) {
    const outcome = await context.change({
      tool: 'edit_lines',
      path: input.file_path,
      input,
      requireRead: true,
      encoding: input.encoding,
      stream: streamEditLines(context, input),
      compute: (base, resolved) => {
        if (!base.exists) {
          throw new EditgateError(
            'FILE_NOT_FOUND',
            `${resolved.relative} does not exist. Check the path, or create the file with write_file.`,
            { path: resolved.relative },
          );
        }
        const result = applyLineEdits(
          base.text,
          input.edits.map((edit) => ({ range: edit.range, replacement: edit.replacement })),
        );
        return { after: result.text };
      },
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
