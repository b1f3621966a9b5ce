/**
 * edit_file on a huge file: old text found over the whole file (byte-search.ts, then tolerant-search.ts
 * when exact finds nothing), uniqueness checked over the whole file, and the replacement spans produced
 * exactly as core's applyStringEdits would write them: same tier order, same rewrite of the new text, same
 * line endings. Errors carry the same codes and, as far as a bounded scan can know them, the same details.
 *
 * Exact matches are found while the new content is written (the writer follows the search), so memory
 * never holds more than the spans in flight, however many there are; the tolerant tiers plan first (one
 * pass, keeping the first matches) and replace_all finds their matches again while the writer copies.
 */
import type { FileHandle } from 'node:fs/promises';
import type { ClosestRegion } from '../../core/closest.js';
import { EditgateError } from '../../core/errors.js';
import type { Eol } from '../../core/lines.js';
import { describeTier, type MatchTier } from '../../core/match.js';
import { toLf } from '../../core/neutral.js';
import { findAll } from './byte-search.js';
import { chooseEolAt } from './eol-choice.js';
import { encodeInsert, hasLoneSurrogate } from './insert-text.js';
import { type LineIndex, lineAt } from './line-index.js';
import type { ProgressReporter } from './progress.js';
import type { Span, Until } from './span-writer.js';
import { type ChangePlan, Replan } from './streamer.js';
import { planTolerant, tolerantReplacements } from './tolerant-search.js';

export interface StringEditRequest {
  oldText: string;
  newText: string;
  replaceAll: boolean;
  matching: 'exact' | 'tolerant';
}

export interface StringEditOptions {
  chunkSize: number;
  progress?: ProgressReporter;
}

/** Lines of matches listed in an AMBIGUOUS error (as core lists them), and how many are numbered. */
const MAX_LISTED_LINES = 50;
const NUMBERED_MATCHES = 1000;

export async function planStringEdit(
  handle: FileHandle,
  index: LineIndex,
  request: StringEditRequest,
  options: StringEditOptions,
): Promise<ChangePlan> {
  const { oldText, newText, replaceAll, matching } = request;
  if (oldText === newText) {
    throw new EditgateError(
      'NO_CHANGE',
      'old_string and new_string are identical, so this edit would change nothing. Put the new text in new_string.',
      { editIndex: 0 },
    );
  }
  if (oldText === '') {
    // As in memory: an empty old_string fills an empty file (a streamed file all of whose lines were deleted).
    if (index.size === index.bodyStart) {
      const insert = encodeInsert(newText);
      return {
        tier: 'exact',
        replacements: 1,
        reversible: true,
        spans: () => [{ start: index.bodyStart, end: index.bodyStart, insert }],
      };
    }
    throw new EditgateError(
      'INVALID_INPUT',
      'old_string is empty, but the file already exists and is not empty. An empty old_string only creates a file. Give the exact text to replace, or use write_file to replace the whole file.',
      {},
    );
  }
  const { chunkSize, progress } = options;
  const needle = toLf(oldText);
  const newLf = toLf(newText);
  const insertFor = async (inserted: string, from: number, to: number) => {
    if (!inserted.includes('\n')) return encodeInsert(inserted);
    const eol: Eol = await chooseEolAt(handle, index, from, to, chunkSize);
    return encodeInsert(eol === '\n' ? inserted : inserted.split('\n').join(eol));
  };
  // New text must be encodable before any pass over the file.
  encodeInsert(newLf);

  const tolerant = async (): Promise<ChangePlan> => {
    if (matching === 'exact') throw notFound(matching, null);
    const { plan, closest } = await planTolerant(handle, index, oldText, newLf, { chunkSize, progress });
    if (!plan) throw notFound(matching, closest);
    if (!replaceAll && plan.count > 1) {
      throw ambiguous(
        plan.tier,
        plan.count,
        plan.first.map((match) => match.line),
      );
    }
    const tier = plan.tier;
    const only = plan.first[0]!;
    return {
      tier,
      replacements: replaceAll ? plan.replaceable : 1,
      reversible: true,
      noChange: () => noChangeError(tier),
      spans: replaceAll
        ? async function* () {
            for await (const match of tolerantReplacements(handle, index, oldText, newLf, tier, {
              chunkSize,
            })) {
              yield {
                start: match.start,
                end: match.end,
                insert: await insertFor(match.inserted(), match.start, match.end),
              };
            }
          }
        : async function* () {
            yield {
              start: only.start,
              end: only.end,
              insert: await insertFor(only.inserted(), only.start, only.end),
            };
          },
    };
  };
  // A lone surrogate cannot occur in a UTF-8 file (and would be searched for as U+FFFD): no exact match.
  if (hasLoneSurrogate(needle)) return tolerant();

  // Exact matching writes while it searches: the writer follows the search and copies what it has passed,
  // so the search costs no pass of its own. Only if it ends with no match (the write is thrown away, the
  // tolerant tiers plan again) or with a second one (AMBIGUOUS) is the copy wasted. Holding the copy back
  // from the disk until a match turns up was tried: a match near the end then left a whole file to fsync.
  const plan: ChangePlan = {
    tier: 'exact',
    replacements: 0,
    reversible: true,
    noChange: () => noChangeError('exact'),
    spans: async function* (): AsyncGenerator<Span | Until> {
      let count = 0;
      let lastEnd = -1;
      const starts: number[] = [];
      // Without line breaks in the new text the bytes are the same everywhere: encode once.
      const constant = newLf.includes('\n') ? null : encodeInsert(newLf);
      for await (const item of findAll(handle, index, needle, { chunkSize, progress })) {
        if ('frontier' in item) {
          // Past a second match (no replace_all) the write is lost anyway: the writer waits, the search counts.
          if (replaceAll || count < 2) yield { until: item.frontier };
          continue;
        }
        count++;
        if (starts.length < NUMBERED_MATCHES) starts.push(item.start);
        if (replaceAll ? item.start < lastEnd : count > 1) continue;
        lastEnd = item.end;
        plan.replacements = (plan.replacements ?? 0) + 1;
        yield {
          start: item.start,
          end: item.end,
          insert: constant ?? (await insertFor(newLf, item.start, item.end)),
        };
      }
      if (count === 0) throw new Replan(tolerant);
      if (!replaceAll && count > 1) {
        const lines: number[] = [];
        for (const start of starts) lines.push(await lineAt(handle, index, start, chunkSize));
        throw ambiguous('exact', count, lines);
      }
    },
  };
  return plan;
}

/** The edit made no difference (every replacement equals what it replaces): as core says it. */
export function noChangeError(tier: MatchTier): EditgateError {
  return new EditgateError(
    'NO_CHANGE',
    'The edit would leave the file exactly as it is (old_string and new_string differ only in ways the file already has, such as line endings). Nothing to do.',
    { tier },
  );
}

function ambiguous(tier: MatchTier, count: number, lines: number[]): EditgateError {
  const how =
    tier === 'exact'
      ? 'old_string matches'
      : `old_string is not in the file exactly; ${describeTier(tier)} it matches`;
  const numbered = lines.length < count ? ` (line numbers of the first ${lines.length} matches)` : '';
  return new EditgateError(
    'AMBIGUOUS',
    `${how} ${count} places (${formatLines(lines)}${numbered}), but it must match exactly one. Add more surrounding lines to old_string so that it matches only the place you mean, or set replace_all to true to replace all ${count}.`,
    { count, lines, tier },
  );
}

/** "lines 3, 7 (2 matches) and 9", listing at most MAX_LISTED_LINES distinct lines (as core does). */
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

function notFound(matching: 'exact' | 'tolerant', closest: ClosestRegion | null): EditgateError {
  const tried =
    matching === 'exact'
      ? 'old_string was not found in the file (exact matching).'
      : 'old_string was not found in the file, not even with trailing whitespace, indentation, typographic punctuation, line-number prefixes or escaping tolerated.';
  let hint: string;
  if (closest) {
    const span =
      closest.startLine === closest.endLine
        ? `line ${closest.startLine}`
        : `lines ${closest.startLine}-${closest.endLine}`;
    const difference = closest.whitespaceOnly ? '; it differs only in whitespace' : '';
    hint = ` The closest text is at ${span} (similarity ${closest.similarity}${difference}):\n${closest.excerpt}\n`;
  } else {
    hint = ' No line of it was found in the file; the file may have changed, or this may be the wrong file. ';
  }
  const next = closest?.whitespaceOnly
    ? 'Read that part of the file again with read_file (offset and limit) and copy old_string exactly, with the same indentation (tabs or spaces), spacing and blank lines, without the line-number prefixes.'
    : 'Read that part of the file again with read_file (offset and limit) and copy old_string exactly from it, without the line-number prefixes.';
  return new EditgateError('NOT_FOUND', `${tried}${hint}${next}`, { matching, closest });
}
