import { applyStringEditsPausing, checkStringEditTarget } from '../core/edit.js';
import type { Snapshot } from '../workspace/read.js';
import type { ComputedText } from '../workspace/workspace.js';
import type { ToolContext } from './tool.js';

/** One exact-text edit as edit_file and multi_edit take it. */
export interface StringEditInput {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/**
 * edit_file's and multi_edit's change to a file held in memory: the edits checked, then applied in order,
 * with the number of replacements and the tier each edit matched at.
 */
export async function computeStringEdits(
  base: Snapshot,
  path: string,
  edits: StringEditInput[],
  matching: ToolContext['matching'],
): Promise<ComputedText> {
  const stringEdits = edits.map((edit) => ({
    oldText: edit.old_string,
    newText: edit.new_string,
    replaceAll: edit.replace_all ?? false,
  }));
  checkStringEditTarget(stringEdits, { exists: base.exists, empty: base.text === '', display: path });
  // A tolerant search of a large file lets the event loop run between its steps (other MCP sessions).
  const result = await applyStringEditsPausing(base.text, stringEdits, { matching }, yieldToEventLoop);
  return {
    text: result.text,
    replacements: result.replacements,
    tiers: result.edits.map((edit) => edit.tier),
  };
}

/** Lets timers, I/O and other calls run before the search goes on. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
