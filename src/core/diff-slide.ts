/**
 * Where a group of changed lines is shown, when it could be shown in several places: git's xdl_change_compact
 * with its indent heuristic (git's default since 2.14). A group whose first line equals the line after it can
 * slide down (and up likewise) without changing the edit script, only which equal lines count as changed.
 * Each group slides as far down as it goes, merging with groups it bumps into; then back up to line up with
 * a change on the other side if it can; else to the place the indent heuristic scores best -- e.g. an inserted
 * function shown as `function b() {...}` plus a blank line, not as `}` + blank + `function b() {`.
 */

/** What the indent heuristic needs to know about the lines of both sides. */
export interface LineShape {
  /**
   * Indentation of line `index` of side 0 (old) or 1 (new), tabs to the next multiple of 8, capped at 200;
   * -1 for a line of whitespace only. `index` counts from the start of the sequences given to the engine and
   * may lie outside them, between `first` and `end[side]`.
   */
  indent(side: 0 | 1, index: number): number;
  /** Index of the first line of the texts (0, or negative when the sequences start further in). */
  first: number;
  /** Index just past the last line of each side. */
  end: [number, number];
}

interface Group {
  start: number;
  end: number;
}

/** Slide the changed groups of `seq` (marked in `marks`), keeping `otherMarks` (the other side) in step. */
export function slideGroups(
  seq: Int32Array,
  marks: Uint8Array,
  otherMarks: Uint8Array,
  side: 0 | 1,
  shape: LineShape | undefined,
): void {
  const n = seq.length;
  const g: Group = { start: 0, end: 0 };
  const go: Group = { start: 0, end: 0 };
  while (g.end < n && marks[g.end]) g.end++;
  while (go.end < otherMarks.length && otherMarks[go.end]) go.end++;

  for (;;) {
    if (g.end !== g.start) {
      let groupSize: number;
      let earliestEnd: number;
      let endMatchingOther: number;
      do {
        groupSize = g.end - g.start;
        endMatchingOther = -1;
        while (slideUp(seq, marks, g)) previousGroup(otherMarks, go);
        earliestEnd = g.end;
        if (go.end > go.start) endMatchingOther = g.end;
        while (slideDown(seq, marks, g)) {
          nextGroup(otherMarks, go);
          if (go.end > go.start) endMatchingOther = g.end;
        }
      } while (groupSize !== g.end - g.start);

      let target = g.end;
      if (g.end === earliestEnd) {
        // Cannot move.
      } else if (endMatchingOther !== -1) {
        // Line up with the change on the other side so both show as one replacement.
        while (go.end === go.start) {
          slideUp(seq, marks, g);
          previousGroup(otherMarks, go);
        }
      } else if (shape) {
        target = bestShift(shape, side, g.end, groupSize, earliestEnd);
      }
      while (g.end > target) {
        slideUp(seq, marks, g);
        previousGroup(otherMarks, go);
      }
    }
    if (!nextGroup(marks, g)) break;
    nextGroup(otherMarks, go);
  }
}

function nextGroup(marks: Uint8Array, g: Group): boolean {
  if (g.end === marks.length) return false;
  g.start = g.end + 1;
  g.end = g.start;
  while (g.end < marks.length && marks[g.end]) g.end++;
  return true;
}

function previousGroup(marks: Uint8Array, g: Group): boolean {
  if (g.start === 0) return false;
  g.end = g.start - 1;
  g.start = g.end;
  while (g.start > 0 && marks[g.start - 1]) g.start--;
  return true;
}

function slideDown(seq: Int32Array, marks: Uint8Array, g: Group): boolean {
  if (g.end >= seq.length || seq[g.start] !== seq[g.end]) return false;
  marks[g.start++] = 0;
  marks[g.end++] = 1;
  while (g.end < seq.length && marks[g.end]) g.end++;
  return true;
}

function slideUp(seq: Int32Array, marks: Uint8Array, g: Group): boolean {
  if (g.start === 0 || seq[g.start - 1] !== seq[g.end - 1]) return false;
  marks[--g.start] = 1;
  marks[--g.end] = 0;
  while (g.start > 0 && marks[g.start - 1]) g.start--;
  return true;
}

// git's weights (xdiffi.c), tuned on a corpus of real diffs; larger is worse.
const MAX_SLIDING = 100;
const MAX_BLANKS = 20;
const START_OF_FILE_PENALTY = 1;
const END_OF_FILE_PENALTY = 21;
const TOTAL_BLANK_WEIGHT = -30;
const POST_BLANK_WEIGHT = 6;
const RELATIVE_INDENT_PENALTY = -4;
const RELATIVE_INDENT_WITH_BLANK_PENALTY = 10;
const RELATIVE_OUTDENT_PENALTY = 24;
const RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17;
const RELATIVE_DEDENT_PENALTY = 23;
const RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17;
const INDENT_WEIGHT = 60;

interface Score {
  effectiveIndent: number;
  penalty: number;
}

/** The group end in [earliestEnd, end] whose two splits (above and below the group) score best. */
function bestShift(
  shape: LineShape,
  side: 0 | 1,
  end: number,
  groupSize: number,
  earliestEnd: number,
): number {
  let shift = Math.max(earliestEnd, end - groupSize - 1, end - MAX_SLIDING);
  let best = -1;
  const bestScore: Score = { effectiveIndent: 0, penalty: 0 };
  const score: Score = { effectiveIndent: 0, penalty: 0 };
  for (; shift <= end; shift++) {
    score.effectiveIndent = 0;
    score.penalty = 0;
    scoreSplit(shape, side, shift, score);
    scoreSplit(shape, side, shift - groupSize, score);
    const indents = Math.sign(score.effectiveIndent - bestScore.effectiveIndent);
    if (best === -1 || INDENT_WEIGHT * indents + (score.penalty - bestScore.penalty) <= 0) {
      best = shift;
      bestScore.effectiveIndent = score.effectiveIndent;
      bestScore.penalty = score.penalty;
    }
  }
  return best;
}

/** git's measure_split + score_add_split for a split just above line `split`. */
function scoreSplit(shape: LineShape, side: 0 | 1, split: number, score: Score): void {
  const last = shape.end[side];
  const endOfFile = split >= last;
  const indentAt = endOfFile ? -1 : shape.indent(side, split);

  let preBlank = 0;
  let preIndent = -1;
  for (let i = split - 1; i >= shape.first; i--) {
    preIndent = shape.indent(side, i);
    if (preIndent !== -1) break;
    if (++preBlank === MAX_BLANKS) {
      preIndent = 0;
      break;
    }
  }
  let postBlankAfter = 0;
  let postIndent = -1;
  for (let i = split + 1; i < last; i++) {
    postIndent = shape.indent(side, i);
    if (postIndent !== -1) break;
    if (++postBlankAfter === MAX_BLANKS) {
      postIndent = 0;
      break;
    }
  }

  if (preIndent === -1 && preBlank === 0) score.penalty += START_OF_FILE_PENALTY;
  if (endOfFile) score.penalty += END_OF_FILE_PENALTY;
  // Blank lines after the split, counting the line right after it.
  const postBlank = indentAt === -1 ? 1 + postBlankAfter : 0;
  const totalBlank = preBlank + postBlank;
  score.penalty += TOTAL_BLANK_WEIGHT * totalBlank + POST_BLANK_WEIGHT * postBlank;
  const indent = indentAt !== -1 ? indentAt : postIndent;
  const anyBlanks = totalBlank !== 0;
  score.effectiveIndent += indent;
  if (indent === -1 || preIndent === -1) return;
  if (indent > preIndent) {
    score.penalty += anyBlanks ? RELATIVE_INDENT_WITH_BLANK_PENALTY : RELATIVE_INDENT_PENALTY;
  } else if (indent < preIndent) {
    // Less indented than the line before: the start of a block if the next line is indented more,
    // else probably the end of one.
    if (postIndent !== -1 && postIndent > indent) {
      score.penalty += anyBlanks ? RELATIVE_OUTDENT_WITH_BLANK_PENALTY : RELATIVE_OUTDENT_PENALTY;
    } else {
      score.penalty += anyBlanks ? RELATIVE_DEDENT_WITH_BLANK_PENALTY : RELATIVE_DEDENT_PENALTY;
    }
  }
}
