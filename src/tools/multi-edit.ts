import { z } from 'zod';
import { formatBytes } from '../core/format-bytes.js';
import {
  encodingField,
  filePathField,
  newStringDescription,
  oldStringDescription,
  replaceAllDescription,
} from './fields.js';
import { normalizeAliases } from './input.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { refuseHuge } from './streaming.js';
import { counted, defineTool, editing, fileCall, refuseNewPlaceholders, stringEdits } from './tool.js';

const editSchema = z.preprocess(
  (value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? normalizeAliases('multi_edit', value as Record<string, unknown>)
      : value,
  z
    .strictObject({
      old_string: z.string({ error: 'old_string must be a string' }).describe(oldStringDescription),
      new_string: z.string({ error: 'new_string must be a string' }).describe(newStringDescription),
      replace_all: z.boolean().optional().describe(replaceAllDescription),
    })
    .describe('One replacement, applied to the text as the edits before it left it.'),
);

const schema = z.strictObject({
  file_path: filePathField('the path of the file to edit'),
  edits: z
    .array(editSchema)
    .min(1, 'give at least one edit')
    .describe('The replacements, in the order they are applied.'),
  encoding: encodingField,
});

export const multiEditTool = defineTool({
  name: 'multi_edit',
  title: 'Edit file (several changes)',
  description: ({ streamThreshold }) =>
    [
      'Make several exact-text replacements in one file, in order, as one change: one diff, one approval, all or nothing.',
      'Each edit is { old_string, new_string, replace_all? } with the same rules as edit_file, and applies to the result of the edits before it (so an edit must not expect text an earlier edit already changed).',
      'If any edit fails, nothing is written and the error says which one.',
      'Read the file with read_file first. Never include read_file line-number prefixes in the strings.',
      'An empty old_string in the first edit creates a new file.',
      `Huge files (${formatBytes(streamThreshold, 'compact')} or more) are refused (TOO_LARGE): change them with one edit_file or edit_lines call per change.`,
    ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  describe: (input) => fileCall(input, 'Edit', 'Edit file', counted(input.edits, 'edit')),
  async run(input, context) {
    refuseNewPlaceholders(input.edits, context);
    const outcome = await context.change({
      tool: 'multi_edit',
      path: input.file_path,
      input,
      requireRead: true,
      prepare: editing({
        encoding: input.encoding,
        readRule: 'region',
        compute: stringEdits(input.edits, context),
        tooLarge: refuseHuge('multi_edit'),
      }),
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
