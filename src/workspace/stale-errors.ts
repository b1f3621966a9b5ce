/**
 * STALE: the file is no longer what a change was computed from, so nothing is written. One wording for
 * the in-memory commit (files.ts) and the streaming path (stream/commit.ts, stream/streamer.ts).
 */
import { EditgateError } from '../core/errors.js';

export function staleError(display: string | undefined, how: 'changed' | 'deleted'): EditgateError {
  const file = display ?? 'The file';
  return new EditgateError(
    'STALE',
    how === 'deleted'
      ? `${file} was deleted since this change was computed; nothing was written. Check whether it should still exist before trying again.`
      : `${file} was changed by someone else since this change was computed; nothing was written. Read it again with read_file, then redo the edit against its current content.`,
    { path: display, reason: how },
  );
}

/** A file that did not exist when the change was computed exists now. */
export function appearedError(display: string | undefined): EditgateError {
  const file = display ?? 'The file';
  return new EditgateError(
    'STALE',
    `${file} was created by someone else since this change was computed; nothing was written and it was not overwritten. Read it with read_file, then decide how to change it.`,
    { path: display, reason: 'created' },
  );
}
