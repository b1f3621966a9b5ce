/**
 * Part of a change: the text a line diff gives when only some of its hunks are taken (a person accepted
 * hunks 1 and 3 and rejected 2). The hunks of a line diff cover separate runs of old lines with unchanged
 * lines between them, and every line carries its own terminator, so any subset of them applies on its own
 * and the result is exact to the byte: a taken hunk's new lines in place of its old ones, a rejected hunk's
 * old lines left as they are (CRLF, a lone "\r" and a last line without a terminator included).
 */
import type { Diff } from './diff.js';
import { EditgateError } from './errors.js';
import { splitLines } from './lines.js';

/**
 * Where a hunk's changed lines stand in the result: the new lines of a taken hunk, the old lines a
 * rejected hunk left in place. 1-based; `count` 0 (a taken deletion, a rejected insertion): the place
 * before line `start`.
 */
export interface PlacedHunk {
  taken: boolean;
  start: number;
  count: number;
}

/**
 * `before` with the hunks of `diff` for which `taken(index)` holds applied and the others left out, and where
 * each hunk's changed lines now are. Throws INVALID_INPUT when `diff` was not made from `before` (a hunk's
 * old lines are not there, or hunks overlap): nothing is guessed.
 */
export function applySomeHunks(
  before: string,
  diff: Diff,
  taken: (index: number) => boolean,
): { text: string; placed: PlacedHunk[] } {
  const old = splitLines(before);
  const out: string[] = [];
  const placed: PlacedHunk[] = [];
  let cursor = 0;
  let written = 0;
  diff.hunks.forEach((hunk, index) => {
    // A hunk without old lines names the line before it (0 at the top); otherwise its first old line.
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    if (start < cursor || start + hunk.oldLines > old.length) throw notMadeFrom(index);
    for (; cursor < start; cursor++) out.push(old[cursor]!.text + old[cursor]!.eol);
    written = out.length;
    const take = taken(index);
    let first = 0;
    let last = 0;
    for (const line of hunk.lines) {
      if (line.kind !== 'add') {
        const was = old[cursor];
        if (!was || was.text !== line.text || was.eol !== line.eol) throw notMadeFrom(index);
        cursor++;
      }
      if (line.kind !== 'context' && first === 0) first = written + 1;
      const kept = line.kind === 'context' || (line.kind === 'add') === take;
      if (!kept) continue;
      out.push(line.text + line.eol);
      written++;
      if (line.kind !== 'context') last = written;
    }
    if (cursor !== start + hunk.oldLines) throw notMadeFrom(index);
    placed.push({ taken: take, start: first, count: last === 0 ? 0 : last - first + 1 });
  });
  for (; cursor < old.length; cursor++) out.push(old[cursor]!.text + old[cursor]!.eol);
  return { text: out.join(''), placed };
}

function notMadeFrom(index: number): EditgateError {
  return new EditgateError(
    'INVALID_INPUT',
    `hunk ${index} of the diff does not match the text it is applied to (the diff was made from another version), so no part of it was taken.`,
    { hunk: index },
  );
}
