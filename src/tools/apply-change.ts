import { z } from 'zod';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { defineTool } from './tool.js';

const schema = z.strictObject({
  change_id: z
    .string()
    .min(1, 'give the change_id from the proposed change')
    .describe('The change_id that write_file, edit_file, multi_edit, edit_lines or undo_edit returned.'),
});

/** Preview mode only: writes a change that an edit tool proposed, after the person approved this call. */
export const applyChangeTool = defineTool({
  name: 'apply_change',
  title: 'Apply a proposed change',
  description: [
    'Write a change that write_file, edit_file, multi_edit, edit_lines or undo_edit proposed. In this mode those tools write nothing: they return the diff and a change_id.',
    'Show the user the diff first; calling this tool is how they approve it.',
    'A change_id works once and expires after the time its proposal states; if the file changed since the diff was made, nothing is written (STALE): read the file and propose the change again.',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(input, context) {
    const outcome = await context.gate.applyStaged(input.change_id, context.signal);
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
