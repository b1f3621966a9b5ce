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
import type { ClosestRegion } from '../../../core/closest.js';
import { checkStringEditTarget } from '../../../core/edit.js';
import { ambiguousError, noChangeError, notFoundError } from '../../../core/edit-errors.js';
import type { EditgateError } from '../../../core/errors.js';
import type { Eol } from '../../../core/lines.js';
import { toLf } from '../../../core/neutral.js';
import type { ProgressReporter } from '../../../core/progress.js';
import { type LineIndex, lineAt } from '../read/line-index.js';
import { type ChangePlan, Replan } from '../streamer.js';
import type { Span, Until } from '../write/span-writer.js';
import { findAll } from './exact-search.js';
import { chooseEolAt, encodeInsert, hasLoneSurrogate } from './new-text.js';
import { planTolerant, tolerantReplacements } from './tolerant-search.js';

export interface StringEditRequest {
  /** The file's name in messages. */
  display: string;
  oldText: string;
  newText: string;
  replaceAll: boolean;
  matching: 'exact' | 'tolerant';
}

export interface StringEditOptions {
  chunkSize: number;
  progress?: ProgressReporter;
}

/** How many matches an AMBIGUOUS error numbers (core's message says when there are more). */
const NUMBERED_MATCHES = 1000;

export async function planStringEdit(
  handle: FileHandle,
  index: LineIndex,
  request: StringEditRequest,
  options: StringEditOptions,
): Promise<ChangePlan> {
  const { oldText, newText, replaceAll, matching } = request;
  const empty = index.size === index.bodyStart;
  checkStringEditTarget([request], { exists: true, empty, display: request.display });
  if (oldText === '') {
    // As in memory: an empty old_string fills an empty file (a streamed file all of whose lines were deleted).
    const insert = encodeInsert(newText);
    return {
      tier: 'exact',
      replacements: 1,
      reversible: true,
      spans: () => [{ start: index.bodyStart, end: index.bodyStart, insert }],
    };
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
      throw ambiguousError(
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
            for await (const match of tolerantReplacements(handle, index, oldText, newLf, plan.step, {
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
        throw ambiguousError('exact', count, lines);
      }
    },
  };
  return plan;
}

function notFound(matching: 'exact' | 'tolerant', closest: ClosestRegion | null): EditgateError {
  // The closest region is searched line by line here, and a huge file is read again in pages.
  return notFoundError(matching, closest, {
    noneClose: 'No line of it was found in the file',
    reread: 'Read that part of the file again with read_file (offset and limit)',
  });
}
