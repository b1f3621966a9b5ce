import { z } from 'zod';
import { EditgateError } from '../core/errors.js';
import { decodeText } from '../core/text.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { streamUndo } from './streaming.js';
import { defineTool } from './tool.js';

const schema = z.strictObject({
  file_path: z.string().min(1, 'give the path of the file whose last change to undo'),
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
    const { history } = context.gate;
    const outcome = await context.change({
      tool: 'undo_edit',
      path: input.file_path,
      input,
      requireRead: false,
      stream: streamUndo(context),
      compute: async (base, resolved) => {
        const entry = await history.peek(resolved.absolute);
        if (!entry) {
          throw new EditgateError(
            'NOTHING_TO_UNDO',
            `There is nothing to undo for ${resolved.relative}: editgate has no change of its own to it on record (or has undone them all).`,
            { path: resolved.relative },
          );
        }
        if (!base.exists || base.fingerprint?.hash !== entry.after.hash) {
          throw new EditgateError(
            'STALE',
            `${resolved.relative} has changed since editgate last wrote it, so undoing would lose those changes. Read the file and edit it back by hand if needed.`,
            { path: resolved.relative },
          );
        }
        if (entry.before === null) return { after: '', kind: 'delete' as const };
        // The earlier content is decoded with the encoding the file has now (editgate never changes it).
        const { encoding } = base.codec;
        const detected = encoding === 'utf8' || encoding === 'utf16le' || encoding === 'utf16be';
        const before = decodeText(entry.before, detected ? {} : { encoding });
        return { after: before.text, codecFrom: { ...base, codec: before.codec } };
      },
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
