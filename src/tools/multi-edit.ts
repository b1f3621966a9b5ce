import { z } from 'zod';
import { normalizeAliases } from './input.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { refuseHuge } from './streaming.js';
import { computeStringEdits } from './string-edits.js';
import { defineTool } from './tool.js';

const editSchema = z.preprocess(
  (value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? normalizeAliases('multi_edit', value as Record<string, unknown>)
      : value,
  z.strictObject({
    old_string: z.string({ error: 'old_string must be a string' }),
    new_string: z.string({ error: 'new_string must be a string' }),
    replace_all: z.boolean().optional(),
  }),
);

const schema = z.strictObject({
  file_path: z.string().min(1, 'give the path of the file to edit'),
  edits: z.array(editSchema).min(1, 'give at least one edit'),
  encoding: z.string().min(1).optional(),
});

export const multiEditTool = defineTool({
  name: 'multi_edit',
  title: 'Edit file (several changes)',
  description: [
    'Make several exact-text replacements in one file, in order, as one change: one diff, one approval, all or nothing.',
    'Each edit is { old_string, new_string, replace_all? } with the same rules as edit_file, and applies to the result of the edits before it (so an edit must not expect text an earlier edit already changed).',
    'If any edit fails, nothing is written and the error says which one.',
    'Read the file with read_file first. Never include read_file line-number prefixes in the strings.',
    'An empty old_string in the first edit creates a new file.',
    'Huge files (32 MiB or more by default) are refused (TOO_LARGE): change them with one edit_file or edit_lines call per change.',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(input, context) {
    const outcome = await context.change({
      tool: 'multi_edit',
      path: input.file_path,
      input,
      requireRead: true,
      encoding: input.encoding,
      stream: refuseHuge(context, 'multi_edit'),
      compute: (base, resolved) => computeStringEdits(base, resolved.relative, input.edits, context.matching),
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
