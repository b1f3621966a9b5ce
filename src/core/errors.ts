/**
 * The one error type editgate raises. `code` is stable (programs branch on it), `message` is written for
 * the model or person who made the call (what went wrong and what to do next), `details` is for programs.
 * Whenever an EditgateError is raised, nothing has been written.
 */
export type ErrorCode =
  | 'NOT_FOUND' // old text not found in the file
  | 'AMBIGUOUS' // old text found more than once without replace_all
  | 'NO_CHANGE' // the edit would not change anything
  | 'FILE_NOT_FOUND'
  | 'FILE_EXISTS'
  | 'NOT_READ' // edit or overwrite of a file never read in full
  | 'PARTIAL_READ' // only part of the file was read
  | 'STALE' // the file changed since it was read or since the change was computed
  | 'OUTSIDE_ROOT'
  | 'DENIED_POLICY'
  | 'DENIED_USER'
  | 'DENIED_HOOK'
  | 'DENIED_NO_APPROVER' // approval was needed and no one could be asked (no terminal): not a person's no
  | 'BINARY'
  | 'ENCODING'
  | 'INVALID_INPUT'
  | 'INVALID_RANGE'
  | 'UNKNOWN_TOOL'
  | 'TOO_LARGE'
  | 'NOTHING_TO_UNDO'
  | 'EXPIRED'
  | 'PERMISSION' // the operating system refused access
  | 'READ_ONLY' // read-only filesystem
  | 'DISK_FULL'
  | 'IS_DIRECTORY'
  | 'NAME_TOO_LONG'
  | 'CANCELLED' // the caller cancelled the call; nothing was written
  | 'IO';

export class EditgateError extends Error {
  override readonly name = 'EditgateError';
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

export function isEditgateError(value: unknown, code?: ErrorCode): value is EditgateError {
  return value instanceof EditgateError && (code === undefined || value.code === code);
}

/** The call was cancelled (an AbortSignal fired) before anything was written. */
export function cancelledError(): EditgateError {
  return new EditgateError(
    'CANCELLED',
    'The call was cancelled before anything was written; the file is as it was.',
    { cancelled: true },
  );
}

/** Throws CANCELLED when `signal` has fired: called at each step before the point of no return. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelledError();
}
