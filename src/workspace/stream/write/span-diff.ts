/**
 * The preview diff of a streamed edit, in the same Diff type as the normal path (so approval, renderers and
 * unified diffs are identical): for each changed place, the whole lines it touches plus three lines of
 * context are read from the old file and from the new temp file, diffed with core diffLines, and the hunks
 * moved to their real line numbers. Places whose context would touch share one region, as hunks do.
 *
 * Bounded: only the places the writer kept (the first 200) and at most `maxBytes` of region text are
 * diffed. A region too large to diff as text (say, ten million deleted lines) becomes one hunk listing its
 * first lines; changes beyond the budget are counted, not shown. `shownAll` says whether the diff is the
 * complete change.
 */
import type { FileHandle } from 'node:fs/promises';
import { type Diff, type DiffLine, diffLines, type Hunk } from '../../../core/diff.js';
import { readRange } from '../read/chunks.js';
import { type LineIndex, lineAt, lineStart } from '../read/line-index.js';
import { readLines } from '../read/read-lines.js';
import type { SpanPlace } from './span-writer.js';

export interface SpanDiffOptions {
  chunkSize: number;
  context?: number;
  /** Regions larger than this (either side) are listed, not diffed. Default 512 KiB. */
  maxRegionBytes?: number;
  /** Total region text diffed. Default 2 MiB: more is no use to a person, and memory stays small. */
  maxBytes?: number;
  /** Lines listed per side of a region too large to diff. Default 50. */
  listLines?: number;
}

export interface SpanDiff {
  diff: Diff;
  /** The hunks show every change (nothing listed in part or left out). */
  shownAll: boolean;
}

interface Region {
  /** Old lines [oldFirst, oldLast] and new lines [newFirst, newLast], context included. */
  oldFirst: number;
  oldLast: number;
  newFirst: number;
  newLast: number;
  /** The changed lines alone (no context), for listing a region too large to diff. */
  changedOld: [number, number];
  changedNew: [number, number];
}

export async function diffSpans(
  oldFile: FileHandle,
  oldIndex: LineIndex,
  newFile: FileHandle,
  newIndex: LineIndex,
  places: readonly SpanPlace[],
  extra: { removed: number; added: number; count: number },
  options: SpanDiffOptions,
): Promise<SpanDiff> {
  const context = options.context ?? 3;
  const maxRegionBytes = options.maxRegionBytes ?? 512 << 10;
  let budget = options.maxBytes ?? 2 << 20;
  const { chunkSize } = options;
  const hunks: Hunk[] = [];
  let added = extra.added;
  let removed = extra.removed;
  let shownAll = extra.count === 0;

  const regions: Region[] = [];
  for (const place of places) {
    const oldStart = await lineAt(oldFile, oldIndex, place.start, chunkSize);
    const oldEnd = await lineAt(oldFile, oldIndex, place.end, chunkSize);
    const newStart = await lineAt(newFile, newIndex, place.newStart, chunkSize);
    const newEnd = await lineAt(newFile, newIndex, place.newEnd, chunkSize);
    const region: Region = {
      oldFirst: Math.max(1, oldStart - context),
      oldLast: Math.min(oldIndex.lineCount, oldEnd + context),
      newFirst: Math.max(1, newStart - context),
      newLast: Math.min(newIndex.lineCount, newEnd + context),
      changedOld: [oldStart, oldEnd],
      changedNew: [newStart, newEnd],
    };
    const last = regions[regions.length - 1];
    if (last && region.oldFirst <= last.oldLast + 1) {
      last.oldLast = Math.max(last.oldLast, region.oldLast);
      last.newLast = Math.max(last.newLast, region.newLast);
      last.changedOld[1] = oldEnd;
      last.changedNew[1] = newEnd;
    } else regions.push(region);
  }

  for (const region of regions) {
    const oldFrom = await lineStart(oldFile, oldIndex, region.oldFirst, chunkSize);
    const oldTo = await lineStart(oldFile, oldIndex, region.oldLast + 1, chunkSize);
    const newFrom = await lineStart(newFile, newIndex, region.newFirst, chunkSize);
    const newTo = await lineStart(newFile, newIndex, region.newLast + 1, chunkSize);
    const bytes = oldTo - oldFrom + (newTo - newFrom);
    const removedHere = region.changedOld[1] - region.changedOld[0] + 1;
    const addedHere = region.changedNew[1] - region.changedNew[0] + 1;
    if (budget <= 0) {
      // Past the budget: counted only.
      removed += removedHere;
      added += addedHere;
      shownAll = false;
      continue;
    }
    if (oldTo - oldFrom > maxRegionBytes || newTo - newFrom > maxRegionBytes) {
      const listed = await listRegion(
        oldFile,
        oldIndex,
        newFile,
        newIndex,
        region,
        options.listLines ?? 50,
        chunkSize,
      );
      hunks.push(listed);
      removed += removedHere;
      added += addedHere;
      budget -= maxRegionBytes;
      shownAll = false;
      continue;
    }
    budget -= bytes;
    const oldText = (await readRange(oldFile, oldFrom, oldTo - oldFrom)).toString('utf8');
    const newText = (await readRange(newFile, newFrom, newTo - newFrom)).toString('utf8');
    const diff = diffLines(oldText, newText, { context });
    added += diff.added;
    removed += diff.removed;
    const oldShift = region.oldFirst - 1;
    const newShift = region.newFirst - 1;
    for (const hunk of diff.hunks) {
      hunks.push({
        oldStart: hunk.oldStart + oldShift,
        oldLines: hunk.oldLines,
        newStart: hunk.newStart + newShift,
        newLines: hunk.newLines,
        lines: hunk.lines.map((line) => ({
          ...line,
          ...(line.oldLine !== undefined ? { oldLine: line.oldLine + oldShift } : {}),
          ...(line.newLine !== undefined ? { newLine: line.newLine + newShift } : {}),
        })),
      });
    }
  }
  return {
    diff: { hunks, added, removed, identical: hunks.length === 0 && added + removed === 0 },
    shownAll,
  };
}

/** A region too large to diff: its context before, then the first lines removed and the first lines added. */
async function listRegion(
  oldFile: FileHandle,
  oldIndex: LineIndex,
  newFile: FileHandle,
  newIndex: LineIndex,
  region: Region,
  listLines: number,
  chunkSize: number,
): Promise<Hunk> {
  const lines: DiffLine[] = [];
  const maxLineBytes = 4096;
  const [oldFirst, oldLast] = region.changedOld;
  const [newFirst, newLast] = region.changedNew;
  const contextLines = oldFirst - region.oldFirst;
  await readLines(
    oldFile,
    oldIndex,
    region.oldFirst,
    contextLines,
    (line) => {
      lines.push({
        kind: 'context',
        oldLine: line.number,
        newLine: region.newFirst + (line.number - region.oldFirst),
        text: line.text,
        eol: line.eol,
      });
      return true;
    },
    { chunkSize, maxLineBytes },
  );
  let oldCount = 0;
  await readLines(
    oldFile,
    oldIndex,
    oldFirst,
    Math.min(listLines, oldLast - oldFirst + 1),
    (line) => {
      lines.push({ kind: 'remove', oldLine: line.number, text: line.text, eol: line.eol });
      oldCount++;
      return true;
    },
    { chunkSize, maxLineBytes },
  );
  let newCount = 0;
  await readLines(
    newFile,
    newIndex,
    newFirst,
    Math.min(listLines, newLast - newFirst + 1),
    (line) => {
      lines.push({ kind: 'add', newLine: line.number, text: line.text, eol: line.eol });
      newCount++;
      return true;
    },
    { chunkSize, maxLineBytes },
  );
  const oldLines = contextLines + oldCount;
  const newLines = contextLines + newCount;
  return {
    oldStart: oldLines > 0 ? region.oldFirst : region.oldFirst - 1,
    oldLines,
    newStart: newLines > 0 ? region.newFirst : region.newFirst - 1,
    newLines,
    lines,
  };
}
