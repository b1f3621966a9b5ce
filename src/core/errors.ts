/**
 * The one error type editgate raises. `code` is stable (programs branch on it), `message` is written for
 * the model or person who made the call (what went wrong and what to do next), `details` is for programs.
 * Whenever an EditgateError is raised, nothing has been written.
 *
 * Its words come in two parts (issue #27): `happened`, what went wrong, in words anyone can read, and
 * `advice`, what the model should do next in its own tools' words (read_file, old_string, "tell the
 * user"). `message` is both, as a model reads it; a front end that speaks to a person (the CLI) shows
 * `happened` and its own hint instead of the advice.
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

/** An error's words apart: what happened (for anyone), and the advice only a model can follow. */
export interface ErrorWords {
  /** What went wrong, in words a person and a model both read: no tool names, no tool parameters. */
  happened: string;
  /** What the model should do next, in its tools' words; absent when there is nothing to add. */
  advice?: string;
}

export class EditgateError extends Error {
  override readonly name = 'EditgateError';
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  /** What went wrong (the whole message when it was given as one string). */
  readonly happened: string;
  /** The advice for the model, when the words were given apart. */
  readonly advice: string | undefined;

  /** `words`: the two parts apart, or one message (then all of it counts as what happened). */
  constructor(code: ErrorCode, words: string | ErrorWords, details: Record<string, unknown> = {}) {
    const { happened, advice } = typeof words === 'string' ? { happened: words, advice: undefined } : words;
    super(joinWords(happened, advice));
    this.code = code;
    this.details = details;
    this.happened = happened;
    this.advice = advice;
  }
}

/** The message a model reads: what happened, then the advice (on the same line unless a line ended). */
export function joinWords(happened: string, advice: string | undefined): string {
  if (!advice) return happened;
  return /\s$/.test(happened) ? `${happened}${advice}` : `${happened} ${advice}`;
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
