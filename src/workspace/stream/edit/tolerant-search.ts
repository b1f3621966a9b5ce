/**
 * The tolerant tiers on a huge file, used only when exact matching found nothing (as in memory). The file
 * is cut into blocks of whole lines (line-blocks.ts) and core's own matcher runs on each block, so every
 * tier behaves exactly as it does in memory. The tiers are tried in order there and "the first tier that
 * finds anything decides" holds file-wide: the winning tier is the earliest one any block found, and only
 * its matches count (a block that found an earlier tier would have been reported as that tier).
 *
 * A one-place step (blank-lines, template-literal escapes) is judged file-wide too: a block returns every
 * place the step matches, and when the file holds several, the step finds nothing and the file is searched
 * again from the next step, as in memory. (Judged per block, two places in two blocks would each look alone.)
 *
 * Blocks are decoded only when one of the old text's anchors (a piece of it that each tier's match must
 * contain verbatim) is in their bytes, so most of a huge file is only scanned with memchr.
 */
import type { FileHandle } from 'node:fs/promises';
import { type ClosestRegion, findClosest } from '../../../core/closest.js';
import { findMatches, type MatchTier } from '../../../core/match.js';
import { neutralView, toLf } from '../../../core/neutral.js';
import type { ProgressReporter } from '../../../core/progress.js';
import {
  foldTypography,
  hasEscapes,
  hasTemplateEscapes,
  lineContent,
  stripLineNumbers,
  unescapeText,
} from '../../../core/tolerant.js';
import { type LineBlock, lineBlocks } from '../read/line-blocks.js';
import type { LineIndex } from '../read/line-index.js';

export interface TolerantMatch {
  start: number;
  end: number;
  /** 1-based line of the start. */
  line: number;
  /**
   * The new text for this match, "\n" line breaks (before the file's line ending is applied). A function:
   * only the matches written need it, and a long new_string times a million matches would not fit.
   */
  inserted: () => string;
}

export interface TolerantPlan {
  tier: MatchTier;
  /** The step of core's matcher that found the matches (FoundMatches.step); replacements are found by it. */
  step: number;
  /** Every match of the tier, overlapping ones included (what uniqueness counts). */
  count: number;
  /** Left-to-right non-overlapping matches (what replace_all replaces). */
  replaceable: number;
  /** The first matches, in order. */
  first: TolerantMatch[];
}

export interface TolerantOptions {
  chunkSize: number;
  progress?: ProgressReporter;
  /** Matches kept in `first`. */
  keep?: number;
}

const CLOSEST_BLOCKS = 16;

/** The winning tier and its matches, or null with the closest region found on the way (for NOT_FOUND). */
export async function planTolerant(
  handle: FileHandle,
  index: LineIndex,
  oldText: string,
  newLf: string,
  options: TolerantOptions,
): Promise<{ plan: TolerantPlan | null; closest: ClosestRegion | null }> {
  let fromStep = 1;
  let closest: ClosestRegion | null = null;
  for (;;) {
    const found = await planFromStep(handle, index, oldText, newLf, options, fromStep);
    closest ??= found.closest;
    const { plan, onePlace } = found;
    if (!plan || !onePlace || plan.count === 1) return { plan, closest };
    fromStep = plan.step + 1;
  }
}

async function planFromStep(
  handle: FileHandle,
  index: LineIndex,
  oldText: string,
  newLf: string,
  options: TolerantOptions,
  fromStep: number,
): Promise<{ plan: TolerantPlan | null; onePlace: boolean; closest: ClosestRegion | null }> {
  const keep = options.keep ?? 1000;
  const old = toLf(oldText);
  const anchors = anchorsOf(old);
  let plan: TolerantPlan | null = null;
  let onePlace = false;
  let lastEnd = -1;
  let closest: ClosestRegion | null = null;
  let closestTries = 0;
  for await (const block of blocksOf(handle, index, old, anchors, options)) {
    if (
      fromStep === 1 &&
      closestTries < CLOSEST_BLOCKS &&
      anchors.closest &&
      block.text.includes(anchors.closest)
    ) {
      closestTries++;
      const found = closestIn(block, old);
      if (found && (!closest || found.similarity > closest.similarity)) closest = found;
    }
    const matches = matchesIn(block, oldText, newLf, fromStep);
    if (!matches || (plan && matches.step > plan.step)) continue;
    if (!plan || matches.step < plan.step) {
      plan = { tier: matches.tier, step: matches.step, count: 0, replaceable: 0, first: [] };
      onePlace = matches.onePlace;
      lastEnd = -1;
    }
    for (const match of matches.list) {
      plan.count++;
      if (match.start >= lastEnd) {
        plan.replaceable++;
        lastEnd = match.end;
      }
      if (plan.first.length < keep) plan.first.push(match);
    }
  }
  return { plan, onePlace, closest };
}

/** For replace_all: the tier's left-to-right non-overlapping matches, found again block by block. */
export async function* tolerantReplacements(
  handle: FileHandle,
  index: LineIndex,
  oldText: string,
  newLf: string,
  step: number,
  options: TolerantOptions,
): AsyncGenerator<TolerantMatch> {
  const old = toLf(oldText);
  let lastEnd = -1;
  for await (const block of blocksOf(handle, index, old, anchorsOf(old), options)) {
    const matches = matchesIn(block, oldText, newLf, step);
    if (!matches || matches.step !== step) continue;
    for (const match of matches.list) {
      if (match.start < lastEnd) continue;
      lastEnd = match.end;
      yield match;
    }
  }
}

interface Anchors {
  /** Byte strings of which each tier's match contains at least one verbatim; null: no prefilter. */
  any: Buffer[] | null;
  /** The old text's longest line content, for the closest-region hint. */
  closest: string | null;
}

function blocksOf(
  handle: FileHandle,
  index: LineIndex,
  old: string,
  anchors: Anchors,
  options: TolerantOptions,
) {
  const lines = (s: string) => s.split('\n').length;
  const overlap = Math.max(lines(old), hasEscapes(old) ? lines(toLf(unescapeText(old))) : 0) + 1;
  const wanted = anchors.any
    ? (bytes: Buffer) => anchors.any!.some((anchor) => bytes.includes(anchor))
    : undefined;
  // Blocks of about one chunk: 1 MiB of text in production, a few bytes in tests (to put borders everywhere).
  return lineBlocks(handle, index, {
    chunkSize: options.chunkSize,
    blockBytes: options.chunkSize,
    overlap,
    progress: options.progress,
    wanted,
  });
}

/**
 * The matches of the first step (from `fromStep`) that matches in this block and start in it, with file
 * offsets; a one-place step's every match (the caller counts them file-wide).
 */
function matchesIn(
  block: LineBlock,
  oldText: string,
  newLf: string,
  fromStep: number,
): { tier: MatchTier; step: number; onePlace: boolean; list: TolerantMatch[] } | null {
  const found = findMatches(block.text, oldText, { matching: 'tolerant', everyPlace: true, fromStep });
  if (!found) return null;
  const list: TolerantMatch[] = [];
  // Offsets are characters of the block text: walk them in order, converting to bytes and counting lines.
  let char = 0;
  let byte = block.start;
  let line = block.line;
  found.ranges.forEach(([start, end], i) => {
    if (start >= block.ownChars) return;
    const before = block.text.slice(char, start);
    byte += Buffer.byteLength(before, 'utf8');
    line += terminatorsIn(before);
    char = start;
    const matched = block.text.slice(start, end);
    list.push({
      start: byte,
      end: byte + Buffer.byteLength(matched, 'utf8'),
      line,
      inserted: () => found.rewrite(newLf, i),
    });
  });
  return list.length > 0 ? { tier: found.tier, step: found.step, onePlace: found.onePlace, list } : null;
}

/** Line terminators in text (a match never starts between "\r" and "\n", so pieces never split one). */
function terminatorsIn(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) {
    if (text.charCodeAt(i + 1) !== 10) count++;
  }
  return count;
}

function closestIn(block: LineBlock, old: string): ClosestRegion | null {
  const view = neutralView(block.text);
  const found = findClosest(view.text, view.lines(), view.lineStarts(), old);
  if (!found) return null;
  const shift = block.line - 1;
  return {
    ...found,
    startLine: found.startLine + shift,
    endLine: found.endLine + shift,
    // The excerpt is numbered from the block's first line: renumber it as the file's.
    excerpt: found.excerpt.replace(
      /^ *(\d+)\t/gm,
      (_, n: string) => `${String(Number(n) + shift).padStart(6)}\t`,
    ),
  };
}

/**
 * Pieces each tier's match must contain verbatim: the whitespace tiers keep a line's content; typographic
 * keeps the runs of characters it never folds; line-numbers and unescaped match their transformed text
 * exactly. A tier that has no such piece (old text of punctuation only) turns the prefilter off.
 */
function anchorsOf(old: string): Anchors {
  const longestContent = (text: string) =>
    text
      .split('\n')
      .map(lineContent)
      .reduce((best, line) => (line.length > best.length ? line : best), '');
  const pieces: string[] = [];
  let prefilter = true;
  const add = (piece: string) => {
    if (piece === '') prefilter = false;
    else pieces.push(piece);
  };
  const content = longestContent(old);
  add(content);
  const folded = foldTypography(old);
  add(folded.split(/['"\-. \n\t]+/).reduce((best, run) => (run.length > best.length ? run : best), ''));
  const stripped = stripLineNumbers((old.endsWith('\n') ? old.slice(0, -1) : old).split('\n'));
  if (stripped) add(longestContent(stripped.join('\n')));
  if (hasEscapes(old)) add(longestContent(toLf(unescapeText(old))));
  if (hasTemplateEscapes(old)) add(longestContent(toLf(unescapeText(old, { template: true }))));
  return {
    any: prefilter ? pieces.map((piece) => Buffer.from(piece, 'utf8')) : null,
    closest: content.length >= 3 ? content : null,
  };
}
