import { z } from 'zod';
import {
  encodingField,
  filePathField,
  newStringDescription,
  oldStringDescription,
  replaceAllDescription,
} from './fields.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { stringEditPlan } from './streaming.js';
import { defineTool, editing, fileCall, refuseNewPlaceholders, stringEdits } from './tool.js';

const schema = z.strictObject({
  file_path: filePathField('the path of the file to edit'),
  old_string: z
    .string({ error: 'old_string must be a string (the exact text to replace)' })
    .describe(oldStringDescription),
  new_string: z
    .string({ error: 'new_string must be a string (the text to put in its place)' })
    .describe(newStringDescription),
  replace_all: z.boolean().optional().describe(replaceAllDescription),
  encoding: encodingField,
});

export const editFileTool = defineTool({
  name: 'edit_file',
  title: 'Edit file',
  description: [
    'Replace exact text in a file: old_string is found literally and replaced with new_string.',
    'Rules:',
    '- Read the file with read_file first (at least the lines you change; old_string must still be unique in the whole file); edits to lines you have not read, or to a file that changed since, are refused.',
    '- old_string must match the file exactly, including indentation and blank lines, and must occur exactly once. Include enough surrounding lines to make it unique; if it occurs several times the error lists the line of each match.',
    '- Never include the line-number prefix of read_file output (the number and the tab) in old_string or new_string.',
    '- To rename something everywhere in the file, set replace_all to true.',
    '- old_string and new_string must differ. An empty old_string creates a new file (or fills an empty one) with new_string.',
    '- For several changes to one file, prefer multi_edit (one approval, all or nothing).',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  describe: (input) => fileCall(input, 'Edit', 'Edit file'),
  async run(input, context) {
    refuseNewPlaceholders([input], context);
    const outcome = await context.change({
      tool: 'edit_file',
      path: input.file_path,
      input,
      requireRead: true,
      prepare: editing({
        encoding: input.encoding,
        readRule: 'region',
        compute: stringEdits([input], context),
        plan: stringEditPlan(input, context.matching),
      }),
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
