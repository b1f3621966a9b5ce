/**
 * Undoing a streamed edit: the current file streamed once more, with each span the edit wrote put back to
 * the old bytes its reverse patch kept (undo-patch.ts). No reverse patch of the undo is kept: history moves
 * back one step, as for the normal path.
 */
import { open } from 'node:fs/promises';
import { EditgateError } from '../../core/errors.js';
import type { CommitOptions, Fingerprint } from '../files.js';
import { commitPrepared } from './commit.js';
import type { ChangePlan, Streamer } from './streamer.js';
import { readPatch } from './write/reverse-patch.js';
import type { Span } from './write/span-writer.js';

/** The plan that restores the content from before the edit whose reverse patch is `patchPath`. */
export function undoPlan(patchPath: string): ChangePlan {
  return {
    reversible: false,
    spans: async function* (): AsyncGenerator<Span> {
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(patchPath, 'r');
      } catch {
        throw new EditgateError(
          'IO',
          'The undo data for this file is gone (its temp folder was cleaned), so the change cannot be undone; nothing was written. Edit the file back by hand if needed.',
          { undo: 'patch' },
        );
      }
      try {
        const size = (await handle.stat()).size;
        for await (const record of readPatch(handle, size)) {
          yield { start: record.newStart, end: record.newStart + record.newLength, insert: record.old };
        }
      } finally {
        await handle.close().catch(() => {});
      }
    },
  };
}

/**
 * History.undo for a streamed entry: the file must still be exactly what editgate wrote (`after`), else
 * STALE; then it is restored through a temp file and a locked rename like any streamed change.
 */
export async function undoStreamed(
  streamer: Streamer,
  path: string,
  change: { patch: string; after: Fingerprint },
  options: CommitOptions & { display?: string },
): Promise<Fingerprint> {
  const display = options.display ?? 'the file';
  const file = await streamer.open(path, display, { prefer: 'stream' });
  if (!file) {
    throw new EditgateError(
      'STALE',
      `${display} was deleted since editgate last wrote it; nothing was written.`,
      {
        path: display,
        reason: 'deleted',
      },
    );
  }
  try {
    if (file.fingerprint.hash !== change.after.hash) {
      throw new EditgateError(
        'STALE',
        `${display} has changed since editgate last wrote it; nothing was written.`,
        {
          path: display,
          reason: 'changed',
        },
      );
    }
    const prepared = await streamer.change(file, undefined, async () => undoPlan(change.patch));
    if (!prepared.prepared) return file.fingerprint;
    const { fingerprint } = await commitPrepared(
      { path, exists: true, fingerprint: file.fingerprint, display: options.display },
      prepared.prepared,
      { ...options, indexes: streamer.indexes },
    );
    return fingerprint;
  } finally {
    await file.close();
  }
}
