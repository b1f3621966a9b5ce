/**
 * A person is never asked to approve what they cannot see (issue #13, item 3). A streamed change of more
 * places than its diff keeps (the first 200) has a diff that shows only part of it; a front end that can
 * show only so much of a diff (the MCP elicitation form) cannot show a longer one. Either way the change is
 * not put to a person as it stands: it is refused, saying how to split it, and nothing is written. A change
 * that policy or a session grant allows without asking is not affected: nobody is asked to look at it.
 */
import { EditgateError } from '../core/errors.js';
import { formatBytes } from '../core/format-bytes.js';
import type { Proposal } from './proposal.js';

/** The first file of `proposal` whose diff shows only part of its change, with what is known of the rest. */
export function partialDiffIn(proposal: Proposal) {
  for (const file of proposal.files) {
    const partial = file.change.partialDiff;
    if (partial) return { path: file.path, ...partial };
  }
  return undefined;
}

/** The refusal of a change whose diff is partial: nothing written, split it. */
export function partialDiffError(partial: NonNullable<ReturnType<typeof partialDiffIn>>): EditgateError {
  const { path, places, shown, size } = partial;
  return new EditgateError(
    'TOO_LARGE',
    `This change to ${path} touches ${places} places in a file of ${formatBytes(size)}, but its diff can show only the first ${shown}, and editgate never asks anyone to approve a change they cannot see whole. Nothing was written. Split it into changes of at most ${shown} places each (edit_lines with fewer ranges at a time, or edit_file on a narrower old_string instead of replace_all).`,
    { path, places, shown, reason: 'partial-diff' },
  );
}

/** The refusal of a change whose diff is longer than the front end asking can show. */
export function diffTooLongToShowError(
  path: string,
  diff: { lines: number; chars: number },
  limit: { lines: number; chars: number; instead: string },
): EditgateError {
  return new EditgateError(
    'TOO_LARGE',
    `The diff of this change to ${path} is ${diff.lines} lines (${diff.chars} characters), more than the approval form shows (${limit.lines} lines, ${limit.chars} characters), and editgate never asks anyone to approve a change they cannot see whole. Nothing was written. Split it into smaller changes whose diffs fit (for a new file: write a first part, then add the rest with further edits), or ${limit.instead}.`,
    { path, lines: diff.lines, chars: diff.chars, reason: 'diff-too-long' },
  );
}
