/**
 * The tools' side of the streaming path (workspace/stream): files of `streamThreshold` bytes or more are
 * read and edited without ever holding them in memory. edit_file and edit_lines give the workspace a plan
 * for such a file beside their in-memory computation; write_file and multi_edit cannot stream and refuse
 * huge files with TOO_LARGE, saying what to use instead. The streaming machinery is loaded the first time a
 * huge file is met, never at start-up.
 */
import type { LineEdit } from '../core/edit.js';
import { EditgateError } from '../core/errors.js';
import { formatBytes } from '../core/format-bytes.js';
import { checkLineEditPlaceholders, placeholderLines, placeholderOf } from '../core/placeholders.js';
import type { ResolvedPath } from '../workspace/guard.js';
import type { ReadLine, StreamFile, StreamPlanner } from '../workspace/stream/index.js';
import type { EditSpec } from '../workspace/workspace.js';
import type { ReadDetails } from './details.js';
import { emptyFileRead, ReadPage } from './read-page.js';
import type { ToolSuccess } from './result.js';
import type { ToolContext } from './tool.js';

const stream = () => import('../workspace/stream/index.js');

/** read_file of a huge file, in read_file's format. */
export async function readHugeFile(
  context: ToolContext,
  resolved: ResolvedPath,
  file: StreamFile,
  input: { offset?: number; limit?: number; encoding?: string },
): Promise<ToolSuccess<ReadDetails>> {
  const { readLines } = await stream();
  const { streamer } = context.workspace;
  const progress = streamer.progress(file, context.signal);
  const index = await streamer.index(file, input.encoding, progress);
  const total = index.lineCount;
  const { fingerprint } = file;
  if (total === 0) return emptyFileRead(context, resolved, fingerprint);
  const page = new ReadPage(context, resolved, fingerprint, input.offset ?? 1, total);
  await readLines(
    file.handle,
    index,
    page.first,
    input.limit ?? context.readLimit,
    (line) => {
      const cut = line.fullBytes ? ` … [line cut here: it is ${formatBytes(line.fullBytes)} long]` : '';
      return page.add(line.number, line.text + cut);
    },
    {
      chunkSize: streamer.chunkSize,
      maxLineBytes: context.maxReadChars,
      onBytes: (at) => progress.report('read', at),
    },
  );
  return page.finish(
    () =>
      ` ${resolved.relative} is large (${formatBytes(file.size)}), ` +
      'so it is edited by streaming: you may edit it after reading just the part you change, as long as it does not change in between.',
    index.finalNewline,
    { encoding: 'utf8', streamed: true, size: file.size },
  );
}

/** edit_file's plan on a huge file: the same search and replacement as in memory, over its bytes. */
export function stringEditPlan(
  input: { old_string: string; new_string: string; replace_all?: boolean },
  matching: 'exact' | 'tolerant',
): StreamPlanner {
  return async ({ handle, index, progress, display, chunkSize }) =>
    (await stream()).planStringEdit(
      handle,
      index,
      {
        display,
        oldText: input.old_string,
        newText: input.new_string,
        replaceAll: input.replace_all ?? false,
        matching,
      },
      { chunkSize, progress },
    );
}

/**
 * edit_lines' plan on a huge file. Placeholders are refused as in memory: a replacement that brings in a
 * placeholder line is checked against the placeholder lines of the lines it replaces, read in chunks
 * (only for a replacement that holds one; lines over 4 KiB are no placeholders).
 */
export function lineEditPlan(edits: LineEdit[], placeholders: ToolContext['placeholders']): StreamPlanner {
  return async ({ handle, index, chunkSize }) => {
    const { planLineEdits, readLines } = await stream();
    const spans = await planLineEdits(handle, index, edits, chunkSize);
    if (placeholders === 'refuse') {
      const replaced: string[] = [];
      for (const { range, replacement } of edits) {
        const found: string[] = [];
        const [start, end] = range;
        if (placeholderLines(replacement).length > 0 && end > start) {
          const keep = (line: ReadLine) => {
            if (!line.fullBytes && placeholderOf(line.text) !== null) found.push(line.text);
            return true;
          };
          await readLines(handle, index, start, end - start, keep, { chunkSize, maxLineBytes: 4096 });
        }
        replaced.push(found.join('\n'));
      }
      checkLineEditPlaceholders(edits, replaced);
    }
    return { spans: () => spans, reversible: true };
  };
}

/** write_file's and multi_edit's refusal of a huge file, with what to use instead. */
export function refuseHuge(tool: string): EditSpec['tooLarge'] {
  return ({ display, size, threshold }) =>
    new EditgateError(
      'TOO_LARGE',
      {
        happened: `${display} is too large for ${tool} (${formatBytes(size)}; files of ${formatBytes(threshold)} or more are edited by streaming, which ${tool} cannot do). Nothing was written.`,
        advice:
          'Use edit_file (exact text; replace_all for renames) or edit_lines (line ranges) on it instead, one change per call.',
      },
      { path: display, size, threshold },
    );
}
