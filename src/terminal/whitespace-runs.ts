/**
 * Long runs of whitespace in text someone must judge (a command on the chat's card) are shown as a mark,
 * `␣×300`, instead of as blank space: `git status` followed by 300 spaces and `; touch LONGTAIL` looks like
 * `git status` when the tail is pushed off the row, or onto rows far below that nobody reads.
 */

/** Runs of at least this many whitespace characters are marked; shorter ones (indentation) stay as they are. */
export const MARKED_WHITESPACE_RUN = 8;

/** Spaces, tabs and the other blank characters a terminal draws as empty columns. */
const RUN = new RegExp(`[ \\t\\u00a0\\u2000-\\u200a\\u202f\\u205f\\u3000]{${MARKED_WHITESPACE_RUN},}`, 'g');

/** `text` with each long run of whitespace replaced by ` ␣×N ` (N: the characters in the run). */
export function markWhitespaceRuns(text: string): string {
  return text.replace(RUN, (run) => ` ␣×${run.length} `);
}
