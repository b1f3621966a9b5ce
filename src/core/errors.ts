import type { ERROR_CODES } from './error-codes.js';

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
/** Every code a result can fail with: the keys of core/error-codes.ts, where each says what it means. */
export type ErrorCode = keyof typeof ERROR_CODES;

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
