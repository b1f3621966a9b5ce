/**
 * Edits to a whole decoded text: literal string replacements (found by match.ts) and line-range edits.
 * Pure: the input is never mutated, and any failure throws an EditgateError before anything is returned,
 * so a failed batch changes nothing. Every byte outside a replaced region is kept; line breaks that come in
 * with new text take the file's line ending.
 */
import { findClosest } from './closest.js';
import {
  ambiguousError,
  emptyOldStringError,
  identicalStringsError,
  noChangeError,
  notFoundError,
} from './edit-errors.js';
import { EditgateError } from './errors.js';
import { type Eol, eolOf, lineStartOffsets } from './lines.js';
import { type FoundMatches, findInView, findInViewPausing, type MatchTier } from './match.js';
import { chooseEol, countNewlines, type NeutralView, neutralView, toLf } from './neutral.js';

export interface StringEdit {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

export interface StringEditResult {
  text: string;
  /** Replacements made by all edits together. */
  replacements: number;
  /**
   * Per edit: the tier that matched and, per replacement, the 1-based inclusive [first, last] line the new
   * text occupies in the text right after that edit (an empty replacement: the line where it was).
   */
  edits: { tier: MatchTier; lines: [number, number][] }[];
}

export interface LineEdit {
  /** 1-based [start, end), end exclusive: [n, n] inserts before line n, [n, n + 1] replaces line n. */
  range: [number, number];
  replacement: string;
}

/** What a string edit is aimed at: whether the file exists, whether it has any text, its name for messages. */
export interface StringEditTarget {
  exists: boolean;
  empty: boolean;
  display: string;
}

/**
 * The checks every string edit makes before any matching, whether the file is in memory or streamed:
 * old_string and new_string differ in every edit; a missing file is only created (empty old_string
 * first); an empty old_string only creates a file or fills an empty one. One wording for every path.
 */
export function checkStringEditTarget(edits: readonly StringEdit[], target: StringEditTarget): void {
  edits.forEach((edit, index) => {
    if (edit.oldText === edit.newText) throw identicalStringsError(index, edits.length);
  });
  const first = edits[0];
  if (!first) return;
  if (!target.exists && first.oldText !== '') {
    throw new EditgateError(
      'FILE_NOT_FOUND',
      {
        happened: `${target.display} does not exist.`,
        advice:
          'Check the path (it is relative to the workspace root); to create the file, use write_file, or edit_file with an empty old_string.',
      },
      { path: target.display },
    );
  }
  if (target.exists && !target.empty && first.oldText === '') throw emptyOldStringError(target.display);
}

/**
 * Applies the edits in order, each to the result of the one before. All or nothing: the first failing edit
 * throws (its message and `details.edit` say which one, counting from 1).
 */
export function applyStringEdits(
  text: string,
  edits: readonly StringEdit[],
  options: { matching?: 'exact' | 'tolerant' } = {},
): StringEditResult {
  const matching = checkedEditsInput(text, edits, options);
  const result: StringEditResult = { text, replacements: 0, edits: [] };
  edits.forEach((edit, i) => {
    try {
      addApplied(result, applyOne(result.text, edit, matching));
    } catch (error) {
      throw which(error, i, edits.length);
    }
  });
  return result;
}

/** One more edit applied, in order: its text is the next edit's. */
function addApplied(result: StringEditResult, applied: Applied): void {
  result.text = applied.text;
  result.replacements += applied.lines.length;
  result.edits.push({ tier: applied.tier, lines: applied.lines });
}

/**
 * applyStringEdits with `pause()` awaited between the steps of each edit's search (core/match.ts
 * findInViewPausing): a tolerant search of a large file held in memory lets other work run between its
 * steps. The same result and the same errors as applyStringEdits.
 */
export async function applyStringEditsPausing(
  text: string,
  edits: readonly StringEdit[],
  options: { matching?: 'exact' | 'tolerant' },
  pause: () => Promise<void>,
): Promise<StringEditResult> {
  const matching = checkedEditsInput(text, edits, options);
  const result: StringEditResult = { text, replacements: 0, edits: [] };
  for (const [i, edit] of edits.entries()) {
    try {
      // Searched ahead only when applyOne would search (its own checks come first, with their own words).
      let searched: Searched | undefined;
      if (searchable(edit)) {
        const view = neutralView(result.text);
        const found = await findInViewPausing(
          view,
          edit.oldText,
          { matching, replaceAll: edit.replaceAll === true },
          pause,
        );
        searched = { view, found };
        // Not found: the refusal's hint (the closest region) is one more long look at the file.
        if (found === null) await pause();
      }
      addApplied(result, applyOne(result.text, edit, matching, searched));
    } catch (error) {
      throw which(error, i, edits.length);
    }
  }
  return result;
}

/** The search applyOne would make, made ahead of it (by applyStringEditsPausing). */
interface Searched {
  view: NeutralView;
  found: FoundMatches | null;
}

/** An edit applyOne goes on to search for (its inputs pass applyOne's own checks). */
function searchable(edit: StringEdit): boolean {
  const { oldText, newText, replaceAll } = (edit ?? {}) as Partial<StringEdit>;
  return (
    typeof oldText === 'string' &&
    typeof newText === 'string' &&
    (replaceAll === undefined || typeof replaceAll === 'boolean') &&
    oldText !== newText &&
    oldText !== ''
  );
}

/** The checks of applyStringEdits' arguments; the matching mode to use. */
function checkedEditsInput(
  text: string,
  edits: readonly StringEdit[],
  options: { matching?: 'exact' | 'tolerant' },
): 'exact' | 'tolerant' {
  const matching = options.matching ?? 'tolerant';
  if (matching !== 'exact' && matching !== 'tolerant') {
    throw new EditgateError(
      'INVALID_INPUT',
      `matching must be 'exact' or 'tolerant', not ${String(matching)}.`,
      {
        matching,
      },
    );
  }
  if (typeof text !== 'string')
    throw new EditgateError('INVALID_INPUT', 'The text to edit must be a string.');
  if (!Array.isArray(edits) || edits.length === 0) {
    throw new EditgateError(
      'INVALID_INPUT',
      'No edits were given; give at least one { old_string, new_string }.',
    );
  }
  return matching;
}

/** The same error, saying which edit failed (1-based) when there are several. */
function which(error: unknown, index: number, total: number): unknown {
  if (!(error instanceof EditgateError)) return error;
  let { happened, advice } = error;
  if (total > 1) {
    happened = `Edit ${index + 1} of ${total} failed, so none were applied: ${happened}`;
    if (index > 0 && error.code === 'NOT_FOUND') {
      const order = `Edits apply in order: edit ${index + 1} is matched against the text as edits 1-${index} left it.`;
      advice = advice ? `${advice} ${order}` : order;
    }
  }
  return new EditgateError(error.code, { happened, advice }, { ...error.details, edit: index + 1 });
}

interface Applied {
  text: string;
  tier: MatchTier;
  lines: [number, number][];
}

function applyOne(
  text: string,
  edit: StringEdit,
  matching: 'exact' | 'tolerant',
  searched?: Searched,
): Applied {
  const { oldText, newText, replaceAll } = (edit ?? {}) as Partial<StringEdit>;
  if (typeof oldText !== 'string' || typeof newText !== 'string') {
    throw new EditgateError('INVALID_INPUT', 'Each edit needs old_string and new_string, both strings.');
  }
  if (replaceAll !== undefined && typeof replaceAll !== 'boolean') {
    throw new EditgateError('INVALID_INPUT', 'replace_all must be true or false.');
  }
  if (oldText === newText) throw identicalStringsError();
  if (oldText === '') {
    if (text !== '') throw emptyOldStringError();
    return { text: newText, tier: 'exact', lines: [occupied(1, toLf(newText))] };
  }

  const view = searched?.view ?? neutralView(text);
  const found = searched
    ? searched.found
    : findInView(view, oldText, { matching, replaceAll: replaceAll === true });
  if (!found) throw notFound(view, oldText, matching);
  if (!replaceAll && found.ranges.length > 1) throw ambiguous(view, found.tier, found.ranges);

  const newLf = toLf(newText);
  const pieces: string[] = [];
  const lines: [number, number][] = [];
  let inserted = '';
  let position = 0; // view offset up to which the text has been copied
  let copiedTo = 0; // the same point in the original
  let line = 1; // line number, in the result, of `position`
  found.ranges.forEach(([start, end], i) => {
    inserted = found.rewrite(newLf, i);
    const from = view.toOriginal(start);
    const to = view.toOriginal(end);
    pieces.push(
      text.slice(copiedTo, from),
      withEol(inserted, () => chooseEol(text, from, to, view.eol())),
    );
    line += countNewlines(view.text, position, start);
    lines.push(occupied(line, inserted));
    line += countNewlines(inserted);
    position = end;
    copiedTo = to;
  });
  pieces.push(text.slice(copiedTo));
  const result = pieces.join('');
  if (result === text) throw noChangeError(found.tier);
  // An empty replacement at the very end of text that now ends with a line break sits on the line before.
  if (inserted === '' && position === view.text.length && /[\r\n]$|^$/.test(result)) {
    const at = Math.max(1, lines[lines.length - 1]![0] - 1);
    lines[lines.length - 1] = [at, at];
  }
  return { text: result, tier: found.tier, lines };
}

/** First and last line of inserted text starting on line `first` (its final line break ends its last line). */
function occupied(first: number, inserted: string): [number, number] {
  const breaks = countNewlines(inserted) - (inserted.endsWith('\n') ? 1 : 0);
  return [first, first + Math.max(0, breaks)];
}

function withEol(lf: string, eol: () => Eol): string {
  if (!lf.includes('\n')) return lf;
  const chosen = eol();
  return chosen === '\n' ? lf : lf.split('\n').join(chosen);
}

// ── errors for the model ─────────────────────────────────────────────────────────────────────────────────

function startLines(view: NeutralView, ranges: readonly [number, number][]): number[] {
  const lines: number[] = [];
  let line = 1;
  let position = 0;
  for (const [start] of ranges) {
    line += countNewlines(view.text, position, start);
    position = start;
    lines.push(line);
  }
  return lines;
}

function ambiguous(view: NeutralView, tier: MatchTier, ranges: readonly [number, number][]): EditgateError {
  return ambiguousError(tier, ranges.length, startLines(view, ranges));
}

function notFound(view: NeutralView, oldText: string, matching: 'exact' | 'tolerant'): EditgateError {
  const closest = findClosest(view.text, view.lines(), view.lineStarts(), toLf(oldText));
  return notFoundError(matching, closest, {
    noneClose: 'Nothing in the file resembles it',
    reread: 'Read the file again with read_file',
  });
}

// ── line edits ───────────────────────────────────────────────────────────────────────────────────────────

/**
 * Replaces line ranges of the original text (line numbers always refer to it, as if applied bottom-up).
 * Ranges must be sorted and must not overlap: each starts at or after the previous one's end, so [3, 5] and
 * [5, 6] may touch, and several inserts at the same line ([4, 4], [4, 4]) go in in the order given.
 * A replacement without a final line break gets the file's line ending, except where it ends the file and
 * the file had no final line break; an empty replacement deletes. Deleting the last lines of a file without
 * a final line break leaves the line before them as it was (with its line break): bytes outside a range
 * are never touched. Returns the text unchanged when the edits change nothing.
 */
export function applyLineEdits(text: string, edits: readonly LineEdit[]): { text: string } {
  if (typeof text !== 'string')
    throw new EditgateError('INVALID_INPUT', 'The text to edit must be a string.');
  if (!Array.isArray(edits) || edits.length === 0) {
    throw new EditgateError(
      'INVALID_INPUT',
      'No edits were given; give at least one { range, replacement }.',
    );
  }
  const starts = lineStartOffsets(text);
  const count = starts.length;
  edits.forEach((edit, i) => {
    validateLineEdit(edit, i, edits, count);
  });

  const summary = eolOf(text);
  const offsetOf = (line: number) => (line <= count ? starts[line - 1]! : text.length);
  const pieces: string[] = [];
  let copiedTo = 0;
  let endsOpen = false; // what has been emitted so far ends inside a line (no line break yet)
  const emit = (piece: string) => {
    if (piece === '') return;
    pieces.push(piece);
    const last = piece.charCodeAt(piece.length - 1);
    endsOpen = last !== 10 && last !== 13;
  };
  edits.forEach(({ range: [start, end], replacement }, i) => {
    const from = offsetOf(start);
    const to = offsetOf(end);
    emit(text.slice(copiedTo, from));
    copiedTo = to;
    if (replacement === '') return;
    emit(
      lineEditText(replacement, chooseEol(text, from, to, summary), {
        endsFile: end === count + 1 && i === edits.length - 1,
        finalNewline: summary.finalNewline,
        afterOpenLine: endsOpen,
      }),
    );
  });
  emit(text.slice(copiedTo));
  return { text: pieces.join('') };
}

/**
 * The text a line edit puts in place of its range, the same on every path (in memory here, streamed in
 * workspace/stream/edit/line-edits.ts): the replacement's line breaks in the file's ending `eol`, a final
 * line ending added unless it ends a file that had none, and a line break first when it follows a last line
 * that has none (`afterOpenLine`).
 */
export function lineEditText(
  replacement: string,
  eol: Eol,
  options: { endsFile: boolean; finalNewline: boolean; afterOpenLine: boolean },
): string {
  let lf = toLf(replacement);
  if (!lf.endsWith('\n') && !(options.endsFile && !options.finalNewline)) lf += '\n';
  return (options.afterOpenLine ? eol : '') + withEol(lf, () => eol);
}

/**
 * Checks edit `i` of a line-edit batch against a text of `count` lines: a well-formed range inside the
 * text, a string replacement, sorted after and not overlapping the edit before it. Throws INVALID_RANGE
 * (INVALID_INPUT for the replacement) with a message for the model. Exported so the streaming path
 * (workspace/stream/line-edits.ts) refuses exactly what this path refuses, with the same words.
 */
export function validateLineEdit(edit: LineEdit, i: number, edits: readonly LineEdit[], count: number): void {
  const range = (edit as Partial<LineEdit> | undefined)?.range;
  const valid =
    count === 0
      ? 'the file is empty, so the only valid range is [1, 1]'
      : `the file has ${count} line${count === 1 ? '' : 's'}; ranges go from 1 to ${count + 1} ([${count + 1}, ${count + 1}] appends)`;
  const fail = (reason: string, why: string) =>
    new EditgateError('INVALID_RANGE', `Edit ${i + 1}: ${why}; ${valid}. No edit was applied.`, {
      edit: i + 1,
      range,
      reason,
      lineCount: count,
    });
  if (!Array.isArray(range) || range.length !== 2 || !range.every((n) => Number.isInteger(n))) {
    throw fail(
      'malformed',
      `range must be two whole line numbers [start, end], not ${JSON.stringify(range)}`,
    );
  }
  if (typeof edit.replacement !== 'string') {
    throw new EditgateError('INVALID_INPUT', `Edit ${i + 1}: replacement must be a string.`, { edit: i + 1 });
  }
  const [start, end] = range;
  if (end < start) {
    throw fail(
      'reversed',
      `range [${start}, ${end}] ends before it starts (the end is exclusive: [${start}, ${start + 1}] replaces line ${start}, [${start}, ${start}] inserts before it)`,
    );
  }
  if (start < 1 || end > count + 1)
    throw fail('out-of-bounds', `range [${start}, ${end}] is outside the file`);
  const previous = edits[i - 1]?.range;
  if (previous && start < previous[1]) {
    const reason = start < previous[0] ? 'unsorted' : 'overlapping';
    const why =
      reason === 'unsorted'
        ? `range [${start}, ${end}] comes after [${previous[0]}, ${previous[1]}] but starts before it; sort the edits by start line`
        : `range [${start}, ${end}] overlaps edit ${i}'s range [${previous[0]}, ${previous[1]}] (ends are exclusive, so a range may start where the previous one ends); merge them or fix the numbers`;
    throw fail(reason, why);
  }
}
