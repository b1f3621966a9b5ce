/**
 * The tools' side of the streaming path (workspace/stream): files of `streamThreshold` bytes or more are
 * read and edited without ever holding them in memory. Each tool hands its ChangeRequest a `stream`
 * callback from here; the gate calls it first and falls back to the normal path when it returns null (a
 * small file). write_file and multi_edit cannot stream and refuse huge files with TOO_LARGE.
 */

import type { FileHandle } from 'node:fs/promises';
import type { LineEdit } from '../core/edit.js';
import { EditgateError } from '../core/errors.js';
import { formatBytes } from '../core/format-bytes.js';
import type { ProgressReporter } from '../core/progress.js';
import type { ChangeRequest } from '../gate/gate.js';
import { isStatFingerprint } from '../workspace/fingerprint.js';
import type { ResolvedPath } from '../workspace/guard.js';
import { planLineEdits } from '../workspace/stream/edit/line-edits.js';
import { planStringEdit } from '../workspace/stream/edit/string-edit.js';
import type { LineIndex } from '../workspace/stream/read/line-index.js';
import { readLines } from '../workspace/stream/read/read-lines.js';
import { checkStreamedRead } from '../workspace/stream/read-check.js';
import type { ChangePlan } from '../workspace/stream/streamer.js';
import { undoPlan } from '../workspace/stream/undo.js';
import { emptyFileRead, ReadPage } from './read-page.js';
import type { ToolSuccess } from './result.js';
import type { ToolContext } from './tool.js';

type StreamCallback = NonNullable<ChangeRequest['stream']>;

/** read_file of a huge file, in read_file's format; null when the file is small enough for the normal path. */
export async function readHugeFile(
  context: ToolContext,
  resolved: ResolvedPath,
  input: { offset?: number; limit?: number; encoding?: string },
): Promise<ToolSuccess | null> {
  const streamer = context.streamer;
  if (!streamer) return null;
  const file = await streamer.open(resolved.absolute, resolved.relative);
  if (!file) return null;
  try {
    const progress = streamer.progress(file);
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
  } finally {
    await file.close();
  }
}

/** edit_file's stream callback. */
export function streamEditFile(
  context: ToolContext,
  input: { old_string: string; new_string: string; replace_all?: boolean; encoding?: string },
): StreamCallback | undefined {
  return streamed(context, input.encoding, (handle, index, progress, display) =>
    planStringEdit(
      handle,
      index,
      {
        display,
        oldText: input.old_string,
        newText: input.new_string,
        replaceAll: input.replace_all ?? false,
        matching: context.matching,
      },
      { chunkSize: context.streamer!.chunkSize, progress },
    ),
  );
}

/** edit_lines's stream callback. */
export function streamEditLines(
  context: ToolContext,
  input: { edits: LineEdit[]; encoding?: string },
): StreamCallback | undefined {
  return streamed(context, input.encoding, async (handle, index): Promise<ChangePlan> => {
    const spans = await planLineEdits(handle, index, input.edits, context.streamer!.chunkSize);
    return { spans: () => spans, reversible: true };
  });
}

/** undo_edit's stream callback: for a change that was streamed (its history entry holds a reverse patch). */
export function streamUndo(context: ToolContext): StreamCallback | undefined {
  const streamer = context.streamer;
  if (!streamer) return undefined;
  return async (resolved) => {
    const entry = await context.gate.history.peek(resolved.absolute);
    if (!entry?.patch) return null;
    const patch = entry.patch;
    const file = await streamer.open(resolved.absolute, resolved.relative, { prefer: 'stream' });
    if (!file || file.fingerprint.hash !== entry.after.hash) {
      await file?.close();
      throw new EditgateError(
        'STALE',
        `${resolved.relative} has changed since editgate last wrote it, so undoing would lose those changes. Read the file and edit it back by hand if needed.`,
        { path: resolved.relative },
      );
    }
    try {
      return await streamer.change(file, undefined, async () => undoPlan(patch));
    } finally {
      await file.close();
    }
  };
}

/** write_file's and multi_edit's stream callback: a huge file is refused with what to use instead. */
export function refuseHuge(context: ToolContext, tool: string): StreamCallback | undefined {
  const streamer = context.streamer;
  if (!streamer) return undefined;
  return async (resolved) => {
    if (!resolved.exists) return null;
    const file = await streamer.open(resolved.absolute, resolved.relative, preference(context, resolved));
    if (!file) return null;
    await file.close();
    throw new EditgateError(
      'TOO_LARGE',
      `${resolved.relative} is too large for ${tool} (${formatBytes(file.size)}; files of ${formatBytes(streamer.threshold)} or more are edited by streaming, which ${tool} cannot do). Nothing was written. Use edit_file (exact text; replace_all for renames) or edit_lines (line ranges) on it instead, one change per call.`,
      { path: resolved.relative, size: file.size, threshold: streamer.threshold },
    );
  };
}

/**
 * A file stays on the path it was read or written on, whatever its size now: the ledger holds a stat
 * fingerprint for a streamed file and a content hash otherwise, and only the same path can compare them.
 */
function preference(context: ToolContext, resolved: ResolvedPath): { prefer?: 'stream' | 'memory' } {
  const entry = context.gate.ledger.get(resolved.absolute);
  if (!entry) return {};
  return { prefer: isStatFingerprint(entry.fingerprint) ? 'stream' : 'memory' };
}

function streamed(
  context: ToolContext,
  encoding: string | undefined,
  plan: (
    handle: FileHandle,
    index: LineIndex,
    progress: ProgressReporter,
    display: string,
  ) => Promise<ChangePlan>,
): StreamCallback | undefined {
  const streamer = context.streamer;
  if (!streamer) return undefined;
  return async (resolved, { requireRead }) => {
    if (!resolved.exists) return null;
    const file = await streamer.open(resolved.absolute, resolved.relative, preference(context, resolved));
    if (!file) return null;
    try {
      if (requireRead)
        checkStreamedRead(context.gate.ledger, resolved.absolute, file.fingerprint, resolved.relative);
      return await streamer.change(file, encoding, plan);
    } finally {
      await file.close();
    }
  };
}
