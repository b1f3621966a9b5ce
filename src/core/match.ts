/**
 * Finding where old text is in a file. Exact first, on the line-ending-neutral view; only when exact finds
 * nothing, the tolerant tiers in a fixed order, and the first tier that finds anything decides (if it finds
 * several places, that is the caller's AMBIGUOUS, never "take the first"). No tier uses edit distance or
 * anchors on first/last lines: each one is an exact comparison after one well-defined normalisation.
 */
import { EditgateError } from './errors.js';
import { type NeutralView, neutralView, toLf } from './neutral.js';
import { indexAll, KeyTable, sequenceMatches } from './occurrences.js';
import {
  blankEnds,
  contentLength,
  foldTypography,
  foldWithMap,
  hasEscapes,
  hasTemplateEscapes,
  hasTypography,
  type IndentShift,
  indentShift,
  isOverEscaped,
  keepUnchangedLines,
  lineContent,
  reindentLine,
  stripLineNumbers,
  stripLineNumbersLoose,
  trimmedLength,
  trimTrailingBlanks,
  unescapeText,
} from './tolerant.js';

/** Which comparison found the text; shown to the model, so the names are short and plain. */
export type MatchTier =
  | 'exact'
  | 'trailing-whitespace'
  | 'indentation'
  | 'typographic'
  | 'line-numbers'
  | 'unescaped'
  | 'blank-lines';

/** The tier in words, for messages: "found <description>". */
export function describeTier(tier: MatchTier): string {
  switch (tier) {
    case 'exact':
      return 'exactly';
    case 'trailing-whitespace':
      return 'when trailing spaces and tabs are ignored';
    case 'indentation':
      return 'when indentation is shifted uniformly (tabs and spaces compared by width)';
    case 'typographic':
      return 'when curly quotes, dashes, ellipses and no-break spaces are read as ASCII';
    case 'line-numbers':
      return 'after removing read_file line-number prefixes';
    case 'unescaped':
      return 'after unescaping \\n, \\t, \\", \\\' and \\\\ written as two characters (new_string is unescaped only when it is over-escaped too)';
    case 'blank-lines':
      return 'once, when the blank lines at the start and end of old_string are ignored';
  }
}

export interface FindOptions {
  /** 'exact' turns the tolerant tiers off. Default 'tolerant'. */
  matching?: 'exact' | 'tolerant';
  /** Return the left-to-right non-overlapping matches instead of every match. */
  replaceAll?: boolean;
  /**
   * Only matches this accepts count ([start, end) in view offsets), at every tier: a tier whose matches
   * are all refused finds nothing, so the next one is tried. apply_patch's hunks use it to match whole
   * lines in the part of the file after the hunk before.
   */
  accept?: (start: number, end: number) => boolean;
  /**
   * For callers that see the file a block at a time (the streaming path): a one-place step (see
   * FoundMatches.onePlace) returns every match it finds in this text, since "exactly one place" can only be
   * judged file-wide. The caller judges it, and when it fails, searches again from the next step.
   */
  everyPlace?: boolean;
  /** The first tolerant step to try (1 is the first; see FoundMatches.step); exact matching is then skipped. */
  fromStep?: number;
  /** The last step to try (0: exact only). Default: every step. */
  toStep?: number;
}

export interface FoundMatches {
  tier: MatchTier;
  /**
   * Which step found the matches: 0 exact, then the tolerant steps in order from 1. A tier may take two
   * steps (unescaped: plain escapes first, template-literal escapes only when those find nothing).
   */
  step: number;
  /** The step accepts its text only at exactly one place in the file (several places decide nothing). */
  onePlace: boolean;
  /**
   * [start, end) offsets, ascending by start. Without replaceAll: every match, overlapping ones included, so
   * a count is honest ("aa" is twice in "aaa"). With replaceAll: scanning left to right, each match that
   * starts at or after the end of the last one kept, so every replaced character was matched exactly once.
   */
  ranges: [number, number][];
  /**
   * The text to put in place of ranges[i], given the model's new text with "\n" line breaks; its line breaks
   * are "\n" too (the caller gives them the file's line ending). Exact: the new text as written.
   */
  rewrite(newText: string, index: number): string;
}

/** Matches in `text` itself (offsets into `text`, whatever its line endings); null when nothing matches. */
export function findMatches(text: string, oldText: string, options: FindOptions = {}): FoundMatches | null {
  const view = neutralView(text);
  const found = findInView(view, oldText, options);
  if (!found) return null;
  return {
    ...found,
    ranges: found.ranges.map(([start, end]) => [view.toOriginal(start), view.toOriginal(end)]),
  };
}

/** Like findMatches, with offsets into the view's "\n"-only text (what edit.ts works in). */
export function findInView(
  view: NeutralView,
  oldText: string,
  options: FindOptions = {},
): FoundMatches | null {
  const old = toLf(oldText);
  if (old === '') {
    throw new EditgateError('INVALID_INPUT', 'old_string is empty; there is nothing to look for.', {});
  }
  const accepted = (found: FoundMatches | null) =>
    found && options.accept ? keepOnly(found, (range) => options.accept!(range[0], range[1])) : found;
  const fromStep = options.fromStep ?? 0;
  let found: FoundMatches | null = null;
  if (fromStep === 0) {
    const exact = indexAll(view.text, old);
    found = accepted(
      exact.length > 0
        ? { tier: 'exact', step: 0, onePlace: false, ranges: exact, rewrite: (newText) => newText }
        : null,
    );
  }
  const lastStep = Math.min(options.toStep ?? STEPS.length, STEPS.length);
  if (!found && options.matching !== 'exact') {
    for (let step = Math.max(fromStep, 1); step <= lastStep && !found; step++) {
      const { find, onePlace } = STEPS[step - 1]!;
      const matches = find(view, old);
      if (!matches || (onePlace && !options.everyPlace && matches.ranges.length !== 1)) continue;
      found = accepted({ ...matches, step, onePlace });
    }
  }
  if (!found || !options.replaceAll) return found;
  return nonOverlapping(found);
}

/**
 * findInView, one step at a time with `pause()` awaited between steps, so a long tolerant search does not
 * hold the thread from start to end (other MCP sessions, timers, a Ctrl-C keep running between steps). The
 * same steps in the same order: the same result as findInView, always.
 */
export async function findInViewPausing(
  view: NeutralView,
  oldText: string,
  options: FindOptions,
  pause: () => Promise<void>,
): Promise<FoundMatches | null> {
  const first = options.fromStep ?? 0;
  const last = options.matching === 'exact' ? 0 : Math.min(options.toStep ?? STEPS.length, STEPS.length);
  for (let step = first; step <= Math.max(first, last); step++) {
    if (step > first) await pause();
    const found = findInView(view, oldText, { ...options, fromStep: step, toStep: step });
    if (found) return found;
  }
  return null;
}

function nonOverlapping(found: FoundMatches): FoundMatches {
  let end = -1;
  return keepOnly(found, ([start, stop]) => {
    if (start < end) return false;
    end = stop;
    return true;
  })!;
}

/** The matches `keep` says yes to (asked in order), rewrites renumbered; null when none is kept. */
function keepOnly(found: FoundMatches, keep: (range: [number, number]) => boolean): FoundMatches | null {
  const kept: number[] = [];
  found.ranges.forEach((range, i) => {
    if (keep(range)) kept.push(i);
  });
  if (kept.length === 0) return null;
  if (kept.length === found.ranges.length) return found;
  return {
    ...found,
    ranges: kept.map((i) => found.ranges[i]!),
    rewrite: (newText, index) => found.rewrite(newText, kept[index]!),
  };
}

// ── the tiers, in order ──────────────────────────────────────────────────────────────────────────────────

/** A tier's search: its matches (every place it matches), or null. */
type TierSearch = (view: NeutralView, old: string) => TierMatches | null;
type TierMatches = Omit<FoundMatches, 'step' | 'onePlace'>;

/** The tolerant steps in the order they are tried; the first that finds anything decides. */
const STEPS: readonly { find: TierSearch; onePlace: boolean }[] = [
  { find: trailingWhitespace, onePlace: false },
  { find: indentation, onePlace: false },
  { find: typographic, onePlace: false },
  { find: lineNumbers, onePlace: false },
  { find: (view, old) => (hasEscapes(old) ? unescapedMatches(view, old, false) : null), onePlace: false },
  // `\${` and `${` mean different things: the template-literal escapes are read as slips only at one place.
  {
    find: (view, old) => (hasTemplateEscapes(old) ? unescapedMatches(view, old, true) : null),
    onePlace: true,
  },
  // Several places decide nothing when the only thing known is the lines between the blank ones.
  { find: blankLines, onePlace: true },
];

/** Old text as whole lines: the pieces between "\n", and whether it ends with a line break. */
function oldLinesOf(old: string): { lines: string[]; endsWithNewline: boolean } {
  const endsWithNewline = old.endsWith('\n');
  return { lines: (endsWithNewline ? old.slice(0, -1) : old).split('\n'), endsWithNewline };
}

/**
 * Line comparisons the window checks of one search may make (a window check costs one per old line); past
 * it the search stops with a clear error rather than hold the thread. Only old text of many lines that
 * matches at thousands of overlapping places (a file of equal lines) comes near it.
 */
export const WINDOW_CHECK_BUDGET = 200_000;

/**
 * Whole-line windows of the file whose lines' keys equal the old lines' keys, one for one (found in linear
 * time: Knuth–Morris–Pratt over interned keys), and where the whole window passes `windowTest`. A window
 * covers its lines from the first one's start to the last one's end, plus that line's "\n" when the old text
 * ends with one.
 */
function scanWindows<T>(
  view: NeutralView,
  oldKeys: readonly string[],
  endsWithNewline: boolean,
  keyOf: (fileLine: string) => string,
  keyLength: (fileLine: string) => number,
  windowTest: ((first: number) => T | null) | null,
): { ranges: [number, number][]; data: (T | true)[] } {
  const lines = view.lines();
  const starts = view.lineStarts();
  const k = oldKeys.length;
  const table = new KeyTable();
  const pattern = Int32Array.from(oldKeys, (key) => table.add(key));
  // Most file lines have a key of a length no old line has: those are told apart without making the key.
  const lengths = new Set(oldKeys.map((key) => key.length));
  const keys = new Int32Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    keys[i] = lengths.has(keyLength(line)) ? table.get(keyOf(line)) : -1;
  }
  const terminatedLast = view.text.endsWith('\n');
  const ranges: [number, number][] = [];
  const data: (T | true)[] = [];
  let checks = 0;
  for (const i of sequenceMatches(keys, pattern)) {
    const last = i + k - 1;
    if (endsWithNewline && last === lines.length - 1 && !terminatedLast) continue;
    let found: T | true | null = true;
    if (windowTest) {
      checks += k;
      if (checks > WINDOW_CHECK_BUDGET) throw searchBudgetError(checks / k);
      found = windowTest(i);
    }
    if (found === null) continue;
    ranges.push([starts[i]!, starts[last]! + lines[last]!.length + (endsWithNewline ? 1 : 0)]);
    data.push(found);
  }
  return { ranges, data };
}

function searchBudgetError(places: number): EditgateError {
  return new EditgateError(
    'TOO_LARGE',
    `old_string is not in the file exactly, and when indentation is ignored it matches too many overlapping places (the tolerant search stopped after ${places - 1}). Give an old_string that occurs once: include a distinctive line near the change, or use edit_lines with the line numbers from read_file.`,
    { reason: 'search-budget', budget: WINDOW_CHECK_BUDGET },
  );
}

/** The matched region's lines, one per old-text line (a trailing '' when the region ends with "\n"). */
function regionLines(view: NeutralView, [start, end]: [number, number]): string[] {
  return view.text.slice(start, end).split('\n');
}

/** Whole lines equal once trailing spaces and tabs are dropped on both sides. */
function trailingWhitespace(view: NeutralView, old: string): TierMatches | null {
  const { lines, endsWithNewline } = oldLinesOf(old);
  const keys = lines.map(trimTrailingBlanks);
  if (keys.every((key) => key === '')) return null;
  const { ranges } = scanWindows(view, keys, endsWithNewline, trimTrailingBlanks, trimmedLength, null);
  if (ranges.length === 0) return null;
  const oldPieces = old.split('\n');
  return {
    tier: 'trailing-whitespace',
    ranges,
    rewrite: (newText, i) =>
      keepUnchangedLines(oldPieces, regionLines(view, ranges[i]!), newText.split('\n'), (line) => line),
  };
}

/** Whole lines with equal content whose indentation differs by one uniform shift (see IndentShift). */
function indentation(view: NeutralView, old: string): TierMatches | null {
  const { lines, endsWithNewline } = oldLinesOf(old);
  const contents = lines.map(lineContent);
  if (contents.every((content) => content === '')) return null;
  const fileLines = view.lines();
  const { ranges, data } = scanWindows<IndentShift>(
    view,
    contents,
    endsWithNewline,
    lineContent,
    contentLength,
    (first) => indentShift(fileLines.slice(first, first + lines.length), lines),
  );
  if (ranges.length === 0) return null;
  const oldPieces = old.split('\n');
  return {
    tier: 'indentation',
    ranges,
    rewrite: (newText, i) =>
      keepUnchangedLines(oldPieces, regionLines(view, ranges[i]!), newText.split('\n'), (line) =>
        reindentLine(line, data[i] as IndentShift),
      ),
  };
}

/**
 * Substrings equal once typographic punctuation is read as ASCII on both sides. The new text goes in as the
 * model wrote it, except: lines it left unchanged keep the file's characters, and when the matched file text
 * has no typographic characters at all (so they came from the model, not the file) the new text's are made
 * ASCII too, so "smart quotes" the model invented never land in code.
 */
function typographic(view: NeutralView, old: string): TierMatches | null {
  const foldedOld = foldTypography(old);
  const fileHasTypography = hasTypography(view.text);
  if (!fileHasTypography && foldedOld === old) return null;
  const { folded, toSource } = fileHasTypography
    ? foldWithMap(view.text)
    : { folded: view.text, toSource: (offset: number) => offset };
  const ranges: [number, number][] = [];
  for (const [start, end] of indexAll(folded, foldedOld)) {
    const from = toSource(start);
    const to = toSource(end);
    if (from !== -1 && to !== -1) ranges.push([from, to]);
  }
  if (ranges.length === 0) return null;
  const oldPieces = old.split('\n');
  return {
    tier: 'typographic',
    ranges,
    rewrite: (newText, i) => {
      const region = regionLines(view, ranges[i]!);
      const fromModel = !region.some(hasTypography);
      return keepUnchangedLines(oldPieces, region, newText.split('\n'), (line) =>
        fromModel ? foldTypography(line) : line,
      );
    },
  };
}

/**
 * Old text copied from read_file output with its line-number prefixes: when every line carries one (see
 * stripLineNumbers), the stripped text must match exactly, on whole lines; prefixes are stripped from the
 * new text's lines too.
 */
function lineNumbers(view: NeutralView, old: string): TierMatches | null {
  const { lines, endsWithNewline } = oldLinesOf(old);
  const stripped = stripLineNumbers(lines);
  if (!stripped || stripped.every((line) => trimTrailingBlanks(line) === '')) return null;
  const target = stripped.join('\n') + (endsWithNewline ? '\n' : '');
  const text = view.text;
  const ranges = indexAll(text, target).filter(
    ([start, end]) =>
      (start === 0 || text[start - 1] === '\n') &&
      (endsWithNewline || end === text.length || text[end] === '\n'),
  );
  if (ranges.length === 0) return null;
  return {
    tier: 'line-numbers',
    ranges,
    rewrite: (newText) => stripLineNumbersLoose(newText.split('\n')).join('\n'),
  };
}

/**
 * Old text with `\n`, `\"`... written as two characters: unescaped, it must match exactly. The new text is
 * unescaped only when it is itself over-escaped (isOverEscaped); otherwise it goes in as written. Only when
 * that finds nothing (the next step), the template-literal escapes (a backquote or `$` after a backslash) are
 * unescaped too (`template`), and that step is accepted only at exactly one place.
 */
function unescapedMatches(view: NeutralView, old: string, template: boolean): TierMatches | null {
  const target = toLf(unescapeText(old, { template }));
  if (target === '' || target === old) return null;
  const ranges = indexAll(view.text, target);
  if (ranges.length === 0) return null;
  return {
    tier: 'unescaped',
    ranges,
    rewrite: (newText) =>
      isOverEscaped(newText, old, { template }) ? toLf(unescapeText(newText, { template })) : newText,
  };
}

/**
 * Old text with blank lines at its start or end that the file does not have there: without them it must be
 * in the file exactly, on whole lines (and, a one-place step, at exactly one place). The
 * same blank lines are taken off the new text when it has them too, so they are not added to the file.
 */
function blankLines(view: NeutralView, old: string): TierMatches | null {
  const ends = blankEnds(old);
  if (!ends) return null;
  const { core, leading, trailing } = ends;
  const text = view.text;
  // The core ends with its line break when blank lines followed it, so only its start needs checking.
  const ranges = indexAll(text, core).filter(
    ([start]) => leading === '' || start === 0 || text[start - 1] === '\n',
  );
  if (ranges.length === 0) return null;
  return {
    tier: 'blank-lines',
    ranges,
    rewrite: (newText) => {
      const from = newText.startsWith(leading) ? leading.length : 0;
      const to = newText.endsWith(trailing) ? newText.length - trailing.length : newText.length;
      return from <= to ? newText.slice(from, to) : newText;
    },
  };
}
