/**
 * The errors edit_file and multi_edit give a model when old_string matches nowhere, more than once, or
 * changes nothing. Both the in-memory path (edit.ts) and the streaming path (workspace/stream/string-edit.ts)
 * build them here, so a model reads the same guidance whatever the file's size. Each says what happened in
 * words a person reads too ("the text to replace"), and the advice in the tools' own words apart
 * (core/errors.ts): the CLI shows the first with its own hint.
 */
import type { ClosestRegion } from './closest.js';
import { EditgateError } from './errors.js';
import { describeTier, type MatchTier } from './match.js';

/** Lines of matches listed in an AMBIGUOUS message. */
const MAX_LISTED_LINES = 50;

/**
 * old_string matches `count` places; `lines` are the 1-based lines the matches start on (all of them, or
 * only the first ones where a huge file has too many to number: the message then says so).
 */
export function ambiguousError(tier: MatchTier, count: number, lines: number[]): EditgateError {
  const how =
    tier === 'exact'
      ? 'The text to replace matches'
      : `The text to replace is not in the file exactly; ${describeTier(tier)} it matches`;
  const numbered = lines.length < count ? ` (line numbers of the first ${lines.length} matches)` : '';
  return new EditgateError(
    'AMBIGUOUS',
    {
      happened: `${how} ${count} places (${formatLines(lines)}${numbered}), but it must match exactly one.`,
      advice: `Add more surrounding lines to old_string so that it matches only the place you mean, or set replace_all to true to replace all ${count}.`,
    },
    { count, lines, tier },
  );
}

/** How the model gets the text back when nothing matched: the only words that depend on the path. */
export interface NotFoundWording {
  /** Why there is no closest region, e.g. 'Nothing in the file resembles it'. */
  noneClose: string;
  /** How to see the text again, e.g. 'Read the file again with read_file'. */
  reread: string;
}

/** old_string was not found; points at the closest region when there is one. */
export function notFoundError(
  matching: 'exact' | 'tolerant',
  closest: ClosestRegion | null,
  wording: NotFoundWording,
): EditgateError {
  const tried =
    matching === 'exact'
      ? 'The text to replace was not found in the file (exact matching).'
      : 'The text to replace was not found in the file, not even with trailing whitespace, indentation, typographic punctuation, line-number prefixes or escaping tolerated.';
  let hint: string;
  if (closest) {
    const span =
      closest.startLine === closest.endLine
        ? `line ${closest.startLine}`
        : `lines ${closest.startLine}-${closest.endLine}`;
    const difference = closest.whitespaceOnly ? '; it differs only in whitespace' : '';
    hint = ` The closest text is at ${span} (similarity ${closest.similarity}${difference}):\n${closest.excerpt}\n`;
  } else {
    hint = ` ${wording.noneClose}; the file may have changed, or this may be the wrong file.`;
  }
  const next = closest?.whitespaceOnly
    ? `${wording.reread} and copy old_string exactly, with the same indentation (tabs or spaces), spacing and blank lines, without the line-number prefixes.`
    : `${wording.reread} and copy old_string exactly from it, without the line-number prefixes.`;
  return new EditgateError('NOT_FOUND', { happened: `${tried}${hint}`, advice: next }, { matching, closest });
}

/**
 * old_string equals new_string. `index` and `count` say which edit of a batch (named only in a batch), so
 * edit_file, multi_edit and the streamed edit_file word it the same.
 */
export function identicalStringsError(index = 0, count = 1): EditgateError {
  const which = count > 1 ? `edit ${index + 1}: ` : '';
  return new EditgateError(
    'NO_CHANGE',
    {
      happened: `${which}the text to replace and the new text are identical, so this edit would change nothing.`,
      advice: 'Put the new text in new_string.',
    },
    { editIndex: index },
  );
}

/** An empty old_string where the file already has text (an empty one only creates a file or fills an empty one). */
export function emptyOldStringError(display?: string): EditgateError {
  return new EditgateError(
    'INVALID_INPUT',
    {
      happened: `The text to replace is empty, but ${display ?? 'the file'} already exists and is not empty; an empty text to replace only creates a file.`,
      advice: 'Give the exact text to replace in old_string, or use write_file to replace the whole file.',
    },
    display === undefined ? {} : { path: display },
  );
}

/** The edit made no difference (every replacement equals what it replaces). */
export function noChangeError(tier: MatchTier): EditgateError {
  return new EditgateError(
    'NO_CHANGE',
    'The edit would leave the file exactly as it is (the text to replace and the new text differ only in ways the file already has, such as line endings). Nothing to do.',
    { tier },
  );
}

/** "lines 3, 7 (2 matches) and 9", listing at most MAX_LISTED_LINES distinct lines. */
function formatLines(lines: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  const parts = [...counts].map(([line, count]) => (count > 1 ? `${line} (${count} matches)` : String(line)));
  const shown = parts.slice(0, MAX_LISTED_LINES);
  const rest = parts.length - shown.length;
  const label = parts.length === 1 ? 'line' : 'lines';
  if (rest > 0) return `${label} ${shown.join(', ')} and ${rest} more`;
  if (shown.length === 1) return `${label} ${shown[0]}`;
  return `${label} ${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}
