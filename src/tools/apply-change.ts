import { z } from 'zod';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { defineTool, fileCall, textField, titlePath } from './tool.js';

// The call names the file and the change's hash as well as its id: the person approves this call in their
// client, which shows its arguments, so what they approve says what is written (a bare id says nothing).
const schema = z.strictObject({
  change_id: z
    .string()
    .min(1, 'give the change_id from the proposed change')
    .describe('The change_id that write_file, edit_file, multi_edit, edit_lines or undo_edit returned.'),
  file_path: z
    .string()
    .min(1, 'give the file_path the proposed change names')
    .describe('The file the proposed change writes, exactly as its proposal names it.'),
  change_hash: z
    .string()
    .min(1, 'give the change_hash from the proposed change')
    .describe('The change_hash the proposal states (12 hex digits); the user compares it with the diff.'),
});

/** Preview mode only: writes a change that an edit tool proposed, after the person approved this call. */
export const applyChangeTool = defineTool({
  name: 'apply_change',
  title: 'Apply a proposed change',
  description: [
    'Write a change that write_file, edit_file, multi_edit, edit_lines or undo_edit proposed. In this mode those tools write nothing: they return the diff and a change_id.',
    'Show the user the diff first; calling this tool is how they approve it. Name the change_id, the file_path and the change_hash exactly as the proposal states them: a call that does not match its change is refused.',
    'A change_id works once and expires after the time its proposal states; if the file changed since the diff was made, nothing is written (STALE): read the file and propose the change again.',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  describe: (input) => {
    const id = textField(input, 'change_id');
    return fileCall(
      input,
      'Apply the proposed change to',
      'Apply a proposed change',
      id ? ` (change ${titlePath(id)})` : '',
    );
  },
  async run(input, context) {
    const outcome = await context.gate.applyStaged(input.change_id, context.signal, {
      path: input.file_path,
      hash: input.change_hash,
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
