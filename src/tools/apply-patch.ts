import { z } from 'zod';
import { EditgateError } from '../core/errors.js';
import { type PatchHunk, type PatchOperation, parsePatch } from '../core/patch.js';
import { checkPatchPlaceholders } from '../core/placeholders.js';
import type { FileRequest } from '../gate/gate.js';
import type { ComputedText, FileChange } from '../workspace/workspace.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { refuseHuge } from './streaming.js';
import {
  type CallDescription,
  type CallInput,
  defineTool,
  editing,
  type ToolContext,
  textField,
  titlePath,
} from './tool.js';

const schema = z.strictObject({
  patch: z
    .string({ error: 'patch must be the patch text, from "*** Begin Patch" to "*** End Patch"' })
    .describe('The whole patch, from "*** Begin Patch" to "*** End Patch".'),
});

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  title: 'Apply patch',
  description: [
    'Change one or more files with a patch in the apply_patch format; every file of the patch is approved once and written all or nothing.',
    '*** Begin Patch',
    '*** Add File: path/new.py      (then each line of the new file, starting with "+")',
    '*** Delete File: path/old.py',
    '*** Update File: path/app.py   (optionally followed by "*** Move to: path/renamed.py")',
    '@@ def run():                  (optional: a line above the change, to locate it)',
    ' context line                  (a space, then the line as it is)',
    '-removed line',
    '+added line',
    '*** End of File                (after a hunk whose last lines end the file)',
    '*** End Patch',
    "Rules: give about 3 lines of context above and below each change; each hunk's context and removed lines must match exactly one place in the file, or the whole patch is refused naming the file, the hunk and what was found. Paths are relative to the workspace root. Adding a file that exists or deleting or updating one that does not is refused; a '*** Move to:' onto an existing file replaces it (its lost lines are in the diff). Line endings, encoding and byte-order mark of each file are kept, also by a move.",
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  describe: describePatch,
  async run(input, context) {
    const [first, ...more] = patchRequests(parsePatch(input.patch), context);
    const outcome = await context.change({ tool: 'apply_patch', input, ...first!, more });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});

/**
 * The files a patch's operations change, as the gate's file requests (in the patch's order; a move is the
 * deletion of the old path, then the creation of the new one). The patch's context proves what it was made
 * from, so no read_file is required first: a hunk that does not match the file as it is refuses the patch.
 */
export function patchRequests(operations: readonly PatchOperation[], context: ToolContext): FileRequest[] {
  // Placeholders for code left out are refused before any file is read, as edit_file refuses them.
  if (context.placeholders === 'refuse') checkPatchPlaceholders(operations);
  const requests: FileRequest[] = [];
  for (const operation of operations) {
    const { path } = operation;
    if (operation.type === 'add') {
      requests.push({ path, requireRead: false, prepare: creating(operation.content) });
    } else if (operation.type === 'delete') {
      requests.push({
        path,
        requireRead: false,
        prepare: (workspace, resolved, options) => workspace.remove(resolved, options),
      });
    } else if (operation.moveTo === undefined) {
      requests.push({
        path,
        requireRead: false,
        prepare: editing({
          compute: async (base) => {
            if (!base.exists) throw missing(base.display ?? path, 'update');
            return await patched(base.text, operation.hunks, base.display ?? path, context);
          },
          tooLarge: refuseHuge('apply_patch'),
        }),
      });
    } else {
      // The new file's text comes from the old one, which its deletion reads first; it keeps the old one's
      // encoding, byte-order mark, line endings and mode.
      let moved: ComputedText | undefined;
      requests.push({
        path,
        requireRead: false,
        prepare: async (workspace, resolved, options) => {
          const change: FileChange = await workspace.remove(resolved, options);
          change.movedTo = operation.moveTo;
          if (!change.texts) {
            throw refuseHuge('apply_patch')!({
              display: change.display,
              size: change.base.fingerprint?.size ?? 0,
              threshold: workspace.streamer.threshold,
            });
          }
          const { text } = await patched(change.texts.before, operation.hunks, change.display, context);
          moved = { text };
          if ('codec' in change.base) moved.codec = change.base.codec;
          if ('mode' in change.base && change.base.mode !== null) moved.mode = change.base.mode;
          return change;
        },
      });
      requests.push({
        path: operation.moveTo,
        requireRead: false,
        prepare: async (workspace, resolved, options) => {
          // Onto an existing file, as Codex's apply_patch does: it is replaced. Its diff shows every line
          // it loses, the approval covers it as one file of the set, and undo puts it back.
          const change = await editing({ compute: () => moved!, tooLarge: refuseHuge('apply_patch') })(
            workspace,
            resolved,
            options,
          );
          if (change.kind !== 'create') {
            change.note = `${change.display} already exists: the moved ${operation.path} replaces it, and what it holds now is lost (the removed lines below) unless the change is undone.`;
          }
          return change;
        },
      });
    }
  }
  return requests;
}

/**
 * A patch call described from its operations: every file it adds, deletes, updates or moves (a move's old
 * path, then its new one). A patch that does not parse touches nothing, so it names no path.
 */
function describePatch(input: CallInput): CallDescription {
  const patch = textField(input, 'patch');
  let operations: PatchOperation[];
  try {
    operations = patch === undefined ? [] : parsePatch(patch);
  } catch {
    operations = [];
  }
  if (operations.length === 0) return { title: 'Apply patch', paths: [] };
  const paths = new Set<string>();
  const steps = operations.map((operation) => {
    paths.add(operation.path);
    const path = titlePath(operation.path);
    if (operation.type === 'add') return `add ${path}`;
    if (operation.type === 'delete') return `delete ${path}`;
    if (operation.moveTo === undefined) return `update ${path}`;
    paths.add(operation.moveTo);
    return `move ${path} → ${titlePath(operation.moveTo)}`;
  });
  const title =
    steps.length === 1
      ? `${steps[0]![0]!.toUpperCase()}${steps[0]!.slice(1)}`
      : `Patch ${paths.size} files: ${steps.join(', ')}`;
  return { title, paths: [...paths] };
}

function creating(content: string): FileRequest['prepare'] {
  return editing({
    compute: (base) => {
      if (base.exists) {
        const display = base.display ?? base.path;
        throw new EditgateError(
          'FILE_EXISTS',
          `${display} already exists, so the patch cannot add it. Nothing was changed. To change it, use "*** Update File: ${display}" with hunks against its current content.`,
          { path: display },
        );
      }
      return { text: content };
    },
  });
}

/** The text with the hunks applied by edit_file's rule; core's matcher loads at the first call. */
async function patched(text: string, hunks: readonly PatchHunk[], display: string, context: ToolContext) {
  const { applyHunks } = await import('../core/patch-apply.js');
  return applyHunks(text, hunks, { path: display, matching: context.matching });
}

function missing(display: string, verb: 'update'): EditgateError {
  return new EditgateError(
    'FILE_NOT_FOUND',
    `${display} does not exist, so the patch cannot ${verb} it. Nothing was changed. Check the path (relative to the workspace root), or add the file with "*** Add File: ${display}".`,
    { path: display },
  );
}
