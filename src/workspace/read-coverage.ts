/**
 * The read-before-edit rule by region: an edit of a file held in memory may go ahead when every line it
 * changes was shown by read_file in the file's current version, even if other lines were not. What it
 * removes or replaces must have been seen line by line; a line it inserts must touch a seen line (the one
 * before or after it), so new text never lands inside a stretch the model has not seen. Uniqueness of
 * old_string is still judged over the whole file (core), so a region read cannot hide a second match.
 */
import type { Diff } from '../core/diff.js';

/**
 * The old-text lines (1-based, merged into inclusive ranges) the change needs seen and that `seen` (sorted,
 * merged, inclusive) does not hold; empty when the change lies within what was read.
 */
export function unseenLines(seen: readonly [number, number][], diff: Diff): [number, number][] {
  const isSeen = (line: number) => seen.some(([first, last]) => first <= line && line <= last);
  const needed = new Set<number>();
  for (const hunk of diff.hunks) {
    // The old line the walk is after: inserted lines go between it and the next one.
    let before = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    for (const line of hunk.lines) {
      if (line.kind === 'add') {
        if (!isSeen(before) && !isSeen(before + 1)) needed.add(before === 0 ? 1 : before);
        continue;
      }
      before = line.oldLine!;
      if (line.kind === 'remove' && !isSeen(before)) needed.add(before);
    }
  }
  return toRanges([...needed].sort((a, b) => a - b));
}

function toRanges(lines: readonly number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const line of lines) {
    const last = ranges[ranges.length - 1];
    if (last && line === last[1] + 1) last[1] = line;
    else ranges.push([line, line]);
  }
  return ranges;
}

/**
 * The lines seen after an editgate write of a file only partly read: the lines read before that the change
 * kept (at their new numbers) and every line it wrote; never the lines it did not show. Merged ranges.
 */
export function seenAfterChange(seen: readonly [number, number][], diff: Diff): [number, number][] {
  const lines: number[] = [];
  let hunkIndex = 0;
  let shift = 0; // new line minus old line, outside hunks, after the hunks passed
  const mapped = new Map<number, number>(); // old line -> new line, for context lines inside hunks
  const removed = new Set<number>();
  const spans: [number, number, number][] = []; // [first old line, last old line, shift after] per hunk
  for (const hunk of diff.hunks) {
    for (const line of hunk.lines) {
      if (line.kind === 'context') mapped.set(line.oldLine!, line.newLine!);
      else if (line.kind === 'remove') removed.add(line.oldLine!);
      else lines.push(line.newLine!);
    }
    const first = hunk.oldLines === 0 ? hunk.oldStart + 0.5 : hunk.oldStart;
    const last = hunk.oldLines === 0 ? hunk.oldStart + 0.5 : hunk.oldStart + hunk.oldLines - 1;
    spans.push([first, last, hunk.newLines - hunk.oldLines]);
  }
  for (const [from, to] of seen) {
    for (let old = from; old <= to; old++) {
      while (hunkIndex < spans.length && spans[hunkIndex]![1] < old) shift += spans[hunkIndex++]![2];
      if (removed.has(old)) continue;
      const inHunk = mapped.get(old);
      lines.push(inHunk ?? old + shift);
    }
  }
  lines.sort((a, b) => a - b);
  return toRanges([...new Set(lines)]);
}
