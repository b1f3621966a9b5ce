import { z } from 'zod';
import type { LineEdit } from '../core/edit.js';
import { EditgateError } from '../core/errors.js';
import { checkLineEditPlaceholders } from '../core/placeholders.js';
import { encodingField, filePathField } from './fields.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { lineEditPlan } from './streaming.js';
import { counted, defineTool, editing, fileCall } from './tool.js';

const lineNumber = z
  .number({ error: 'a line number must be a number' })
  .int('line numbers are whole numbers');

const RANGE_ERROR = 'range must be [start, end], two line numbers';

// An array of exactly two, not z.tuple: draft-7 JSON Schema writes a tuple as `items: [a, b]`, which some
// model APIs (OpenAI, Gemini) refuse for the whole request. minItems/maxItems 2 is read the same everywhere,
// and the inputs accepted are the same as before.
const range = z.array(lineNumber, { error: RANGE_ERROR }).length(2, RANGE_ERROR);

const schema = z.strictObject({
  file_path: filePathField('the path of the file to edit'),
  edits: z
    .array(
      z
        .strictObject({
          range: range.describe(
            '[start, end]: 1-based line numbers as read_file shows them, end exclusive ([n, n] inserts before line n).',
          ),
          replacement: z
            .string({ error: 'replacement must be a string (may be empty to delete lines)' })
            .describe('The new lines for the range; empty to delete them.'),
        })
        .describe('One range of lines and what replaces it.'),
    )
    .min(1, 'give at least one edit')
    .describe('The line edits, sorted by start line, not overlapping, all numbered as the file is now.'),
  encoding: encodingField,
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
  describe: (input) => fileCall(input, 'Edit lines of', 'Edit lines', counted(input.edits, 'range')),
  async run(input, context) {
    // The schema has checked that each range holds exactly two whole numbers.
    const edits: LineEdit[] = input.edits.map((edit) => ({
      range: [edit.range[0]!, edit.range[1]!],
      replacement: edit.replacement,
    }));
    const outcome = await context.change({
      tool: 'edit_lines',
      path: input.file_path,
      input,
      requireRead: true,
      prepare: editing({
        encoding: input.encoding,
        readRule: 'region',
        compute: async (base) => {
          if (!base.exists) {
            throw new EditgateError(
              'FILE_NOT_FOUND',
              {
                happened: `${base.display} does not exist.`,
                advice: 'Check the path, or create the file with write_file.',
              },
              { path: base.display },
            );
          }
          // core's edit rules load with the first edit, not at start-up.
          const { applyLineEdits } = await import('../core/edit.js');
          const text = applyLineEdits(base.text, edits).text;
          if (context.placeholders === 'refuse') refuseReplacedPlaceholders(base.text, edits);
          return { text };
        },
        plan: lineEditPlan(edits, context.placeholders),
      }),
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});

/** Each replacement checked against the lines it replaces (validated ranges: applyLineEdits ran first). */
function refuseReplacedPlaceholders(text: string, edits: readonly LineEdit[]): void {
  const lines = text.split(/(?<=\n)/);
  checkLineEditPlaceholders(
    edits,
    edits.map(({ range: [start, end] }) => lines.slice(start - 1, end - 1).join('')),
  );
}
