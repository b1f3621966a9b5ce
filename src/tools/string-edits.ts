import { applyStringEdits } from '../core/edit.js';
import { EditgateError } from '../core/errors.js';
import type { ComputedChange } from '../gate/gate.js';
import type { Snapshot } from '../workspace/files.js';
import type { ToolContext } from './tool.js';

/** One exact-text edit as edit_file and multi_edit take it. */
export interface StringEditInput {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Guards every string edit shares: identical strings, creating with an empty old_string, missing files. */
function checkStringEditTarget(base: Snapshot, path: string, edits: StringEditInput[]): void {
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

/**
 * edit_file's and multi_edit's change to a file held in memory: the edits checked, then applied in order,
 * with the number of replacements and the tier each edit matched at.
 */
export function computeStringEdits(
  base: Snapshot,
  path: string,
  edits: StringEditInput[],
  matching: ToolContext['matching'],
): ComputedChange {
  checkStringEditTarget(base, path, edits);
  const result = applyStringEdits(
    base.text,
    edits.map((edit) => ({
      oldText: edit.old_string,
      newText: edit.new_string,
      replaceAll: edit.replace_all ?? false,
    })),
    { matching },
  );
  return {
    after: result.text,
    replacements: result.replacements,
    tiers: result.edits.map((edit) => edit.tier),
  };
}
