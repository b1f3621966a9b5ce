import { EditgateError, type ErrorCode, type ErrorWords, joinWords } from '../core/errors.js';

/** What every tool call returns: never thrown, always a message a model can act on. */
export type ToolResult = ToolSuccess | ToolFailure;

/** A tool's success; `Details` is the tool's own type of details (details.ts), open on the wire. */
export interface ToolSuccess<Details extends Record<string, unknown> = Record<string, unknown>> {
  ok: true;
  message: string;
  details: Details;
}

export interface ToolFailure {
  ok: false;
  code: ErrorCode;
  /** For the model: `<tool> failed (<code>): ` then what happened and the advice. */
  message: string;
  details: Record<string, unknown>;
  /** What went wrong, in words a person reads too (no tool names or parameters): what the CLI shows. */
  happened: string;
  /** What the model should do next, in its tools' words (part of `message`); absent when none was given. */
  advice?: string;
}

export function success<Details extends Record<string, unknown>>(
  message: string,
  details: Details,
): ToolSuccess<Details> {
  return { ok: true, message, details };
}

/** A failure of `tool` with these words: the model's message is built from them. */
export function failed(
  tool: string,
  code: ErrorCode,
  words: ErrorWords,
  details: Record<string, unknown> = {},
): ToolFailure {
  return {
    ok: false,
    code,
    message: `${tool} failed (${code}): ${joinWords(words.happened, words.advice)}`,
    details: { tool, ...details },
    happened: words.happened,
    ...(words.advice ? { advice: words.advice } : {}),
  };
}

/** Turns anything thrown into a failure result; unexpected errors become IO with their message. */
export function failure(tool: string, error: unknown): ToolFailure {
  if (error instanceof EditgateError) {
    return failed(tool, error.code, { happened: error.happened, advice: error.advice }, error.details);
  }
  const text = error instanceof Error ? error.message : String(error);
  return failed(tool, 'IO', {
    happened: `${text}. Nothing was written.`,
    advice: 'If this persists, tell the user.',
  });
}
