import { z } from 'zod';
import { applyStringEdits } from '../core/edit.js';
import { EditgateError } from '../core/errors.js';
import type { Snapshot } from '../workspace/files.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { streamEditFile } from './streaming.js';
import { defineTool } from './tool.js';

const schema = z.strictObject({
  file_path: z.string().min(1, 'give the path of the file to edit'),
  old_string: z.string({ error: 'old_string must be a string (the exact text to replace)' }),
  new_string: z.string({ error: 'new_string must be a string (the text to put in its place)' }),
  replace_all: z.boolean().optional(),
  encoding: z.string().min(1).optional(),
});

/** Guards every string edit shares: identical strings, creating with an empty old_string, missing files. */
export function checkStringEditTarget(
  base: Snapshot,
  path: string,
  edits: { old_string: string; new_string: string }[],
): void {
  edits.forEach((edit, index) => {
    if (edit.old_string === edit.new_string) {
      const which = edits.length > 1 ? `edit ${index + 1}: ` : '';
      throw new EditgateError(
        'NO_CHANGE',
        `${which}old_string and new_string are identical, so this edit would change nothing. Put the new text in new_string.`,
        { editIndex: index },
      );
    }
  });
  const first = edits[0];
  if (!first) return;
  if (!base.exists && first.old_string !== '') {
    throw new EditgateError(
      'FILE_NOT_FOUND',
      `${path} does not exist. Check the path (it is relative to the workspace root); to create the file, use write_file, or edit_file with an empty old_string.`,
      { path },
    );
  }
  if (base.exists && base.text !== '' && first.old_string === '') {
    throw new EditgateError(
      'INVALID_INPUT',
      `old_string is empty, but ${path} already exists and is not empty. An empty old_string only creates a file. Give the exact text to replace, or use write_file to replace the whole file.`,
      { path },
    );
  }
}

export const editFileTool = defineTool({
  name: 'edit_file',
  title: 'Edit file',
  description: [
    'Replace exact text in a file: old_string is found literally and replaced with new_string.',
    'Rules:',
    '- Read the file with read_file first (in full); edits to files you have not read, or that changed since, are refused.',
    '- old_string must match the file exactly, including indentation and blank lines, and must occur exactly once. Include enough surrounding lines to make it unique; if it occurs several times the error lists the line of each match.',
    '- Never include the line-number prefix of read_file output (the number and the tab) in old_string or new_string.',
    '- To rename something everywhere in the file, set replace_all to true.',
    '- old_string and new_string must differ. An empty old_string creates a new file (or fills an empty one) with new_string.',
    '- For several changes to one file, prefer multi_edit (one approval, all or nothing).',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(input, context) {
    const outcome = await context.change({
      tool: 'edit_file',
      path: input.file_path,
      input,
      requireRead: true,
      encoding: input.encoding,
      stream: streamEditFile(context, input),
      compute: (base, resolved) => {
        checkStringEditTarget(base, resolved.relative, [input]);
        const result = applyStringEdits(
          base.text,
          [{ oldText: input.old_string, newText: input.new_string, replaceAll: input.replace_all ?? false }],
          { matching: context.matching },
        );
        return {
          after: result.text,
          replacements: result.replacements,
          tiers: result.edits.map((edit) => edit.tier),
        };
      },
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
