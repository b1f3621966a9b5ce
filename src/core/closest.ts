/**
 * The NOT_FOUND hint: the region of the file most like the old text the model sent, so it can fix its call
 * in one step. Only a hint, never used to write. Bounded on any file: candidate places come from literal
 * anchors (the old text's longest lines, then its longest words) found with indexOf, each source capped;
 * only files of a few thousand lines are scanned window by window; scoring stops at a character budget.
 */
import { blankEnds } from './tolerant.js';

export interface ClosestRegion {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** 0..1, character-bigram similarity with whitespace runs collapsed, two decimals. */
  similarity: number;
  /** The region and the old text differ only in whitespace (indentation, tabs, spaces, blank lines). */
  whitespaceOnly: boolean;
  /** The region's lines, numbered like read_file output (long regions and lines shortened). */
  excerpt: string;
}

const MIN_SIMILARITY = 0.4;
const ANCHOR_LINES = 3;
const ANCHOR_WORDS = 8;
const HITS_PER_ANCHOR = 30;
const SCAN_ALL_UP_TO_LINES = 2000;
const SCORE_BUDGET = 4_000_000; // characters compared, in total
const MAX_OLD_CHARS = 8000; // longer old texts are scored on their start
const EXCERPT_LINES = 12;
const EXCERPT_WIDTH = 160;

/**
 * `text` and `oldText` use "\n" line breaks; `lines` and `starts` are text's lines and their offsets (a
 * final "\n" does not start another line). Null when nothing is similar enough to be worth showing.
 */
export function findClosest(
  text: string,
  lines: readonly string[],
  starts: readonly number[],
  sentText: string,
): ClosestRegion | null {
  // Blank lines at the ends would shift the region by as many lines: they are left out of the comparison.
  const oldText = blankEnds(sentText)?.core ?? sentText;
  const oldLines = (oldText.endsWith('\n') ? oldText.slice(0, -1) : oldText).split('\n');
  const k = oldLines.length;
  if (lines.length === 0 || oldText.trim() === '') return null;

  const candidates = new Set<number>();
  const addAt = (offset: number, lineInOld: number) => {
    const line = lineIndexAt(starts, offset);
    candidates.add(Math.max(0, Math.min(line - lineInOld, lines.length - 1)));
  };
  if (lines.length <= SCAN_ALL_UP_TO_LINES) {
    for (let i = 0; i < lines.length; i++) candidates.add(i);
  } else {
    // Longest lines first: a long line found verbatim pins the region down.
    const byLength = oldLines
      .map((line, j) => ({ needle: line.trim(), j }))
      .filter(({ needle }) => needle.length >= 8)
      .sort((a, b) => b.needle.length - a.needle.length)
      .slice(0, ANCHOR_LINES);
    for (const { needle, j } of byLength) hits(text, needle, (p) => addAt(p, j));
    if (candidates.size === 0) {
      // Every line differs somewhere: fall back to distinctive words (identifiers, long tokens).
      const seen = new Set<string>();
      const words: { word: string; j: number }[] = [];
      oldLines.forEach((line, j) => {
        for (const word of line.match(/[A-Za-z_$][\w$]{3,}/g) ?? []) {
          if (!seen.has(word)) {
            seen.add(word);
            words.push({ word, j });
          }
        }
      });
      words.sort((a, b) => b.word.length - a.word.length);
      for (const { word, j } of words.slice(0, ANCHOR_WORDS)) hits(text, word, (p) => addAt(p, j));
    }
  }

  const target = squash(oldText.slice(0, MAX_OLD_CHARS));
  const targetGrams = bigrams(target);
  let budget = SCORE_BUDGET;
  let best: { first: number; score: number } | undefined;
  for (const first of [...candidates].sort((a, b) => a - b)) {
    if (budget <= 0) break;
    const window = squash(
      lines
        .slice(first, first + k)
        .join('\n')
        .slice(0, MAX_OLD_CHARS),
    );
    budget -= window.length + target.length;
    const score = dice(targetGrams, target.length, window);
    if (!best || score > best.score) best = { first, score };
  }
  if (!best || best.score < MIN_SIMILARITY) return null;

  const last = Math.min(best.first + k, lines.length) - 1;
  const region = lines.slice(best.first, last + 1);
  return {
    startLine: best.first + 1,
    endLine: last + 1,
    similarity: Math.round(best.score * 100) / 100,
    whitespaceOnly: region.join('\n').replace(/\s+/g, '') === oldText.replace(/\s+/g, ''),
    excerpt: excerpt(region, best.first + 1),
  };
}

/** Line index (0-based) of an offset. */
function lineIndexAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

function hits(text: string, needle: string, found: (offset: number) => void): void {
  let count = 0;
  for (let p = text.indexOf(needle); p !== -1 && count < HITS_PER_ANCHOR; p = text.indexOf(needle, p + 1)) {
    found(p);
    count++;
  }
}

/** Whitespace runs as one space, so indentation style barely moves the score. */
function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i + 1 < text.length; i++) {
    const gram = text.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Sørensen–Dice over character bigrams (multiset), 0..1. */
function dice(targetGrams: Map<string, number>, targetLength: number, other: string): number {
  if (targetLength < 2 || other.length < 2) return targetLength === other.length && other.length > 0 ? 1 : 0;
  const remaining = new Map(targetGrams);
  let shared = 0;
  for (let i = 0; i + 1 < other.length; i++) {
    const gram = other.slice(i, i + 2);
    const left = remaining.get(gram);
    if (left) {
      shared++;
      remaining.set(gram, left - 1);
    }
  }
  return (2 * shared) / (targetLength - 1 + other.length - 1);
}

function excerpt(region: readonly string[], firstLine: number): string {
  const shown = region.length > EXCERPT_LINES ? region.slice(0, EXCERPT_LINES) : region;
  const out = shown.map((line, i) => {
    const text = line.length > EXCERPT_WIDTH ? `${line.slice(0, EXCERPT_WIDTH)}…` : line;
    return `${String(firstLine + i).padStart(6)}\t${text}`;
  });
  if (region.length > shown.length) out.push(`       … ${region.length - shown.length} more lines`);
  return out.join('\n');
}
