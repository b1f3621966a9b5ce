import { z } from 'zod';
import { filePathField } from './fields.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { defineTool } from './tool.js';

const schema = z.strictObject({
  file_path: filePathField('the path of the file whose last change to undo'),
});

export const undoEditTool = defineTool({
  name: 'undo_edit',
  title: 'Undo last edit',
  description: [
    'Undo the last change editgate made to a file in this session, putting back the content it had before (a file editgate created is deleted).',
    'Works only if the file has not been changed by anything else since; call it again to step further back.',
    'The undo is shown and approved like any other change.',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(input, context) {
    const outcome = await context.change({
      tool: 'undo_edit',
      path: input.file_path,
      input,
      requireRead: false,
      prepare: (workspace, resolved, options) => workspace.undo(resolved, options),
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
