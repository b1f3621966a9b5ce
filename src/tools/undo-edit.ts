import { z } from 'zod';
import { EditgateError } from '../core/errors.js';
import type { FileRequest } from '../gate/gate.js';
import { filePathField } from './fields.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { defineTool, fileCall, type ToolContext } from './tool.js';

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
  describe: (input) => fileCall(input, 'Undo the last change to', 'Undo last edit'),
  async run(input, context) {
    const undo: FileRequest['prepare'] = (workspace, resolved, options) => workspace.undo(resolved, options);
    const outcome = await context.change({
      tool: 'undo_edit',
      path: input.file_path,
      input,
      requireRead: false,
      prepare: undo,
      more: await restOfSet(input.file_path, context, undo),
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});

/**
 * The other files of the change set the file's latest change belonged to: undoing one file of a set undoes
 * all of them, as one change. Each must still have that set as its latest change.
 */
async function restOfSet(
  path: string,
  context: ToolContext,
  undo: FileRequest['prepare'],
): Promise<FileRequest[] | undefined> {
  const { guard, history } = context.workspace;
  const resolved = await guard.resolve(path);
  const set = (await history.peek(resolved.absolute))?.set;
  if (!set) return undefined;
  const more: FileRequest[] = [];
  for (const other of set.paths) {
    if (other === resolved.absolute) continue;
    if ((await history.peek(other))?.set?.id !== set.id) {
      const display = (await guard.resolve(other)).relative;
      throw new EditgateError(
        'STALE',
        `${resolved.relative} was changed together with ${display} (one change set), and ${display} has been changed by editgate since, so the set cannot be undone as one. Undo ${display}'s later change first.`,
        { path: resolved.relative, other: display },
      );
    }
    more.push({ path: other, requireRead: false, prepare: undo });
  }
  return more;
}
