import { EditgateError, type ErrorCode } from '../core/errors.js';

/** What every tool call returns: never thrown, always a message a model can act on. */
export type ToolResult = ToolSuccess | ToolFailure;

export interface ToolSuccess {
  ok: true;
  message: string;
  details: Record<string, unknown>;
}

export interface ToolFailure {
  ok: false;
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
}

export function success(message: string, details: Record<string, unknown> = {}): ToolSuccess {
  return { ok: true, message, details };
}

/** Turns anything thrown into a failure result; unexpected errors become IO with their message. */
export function failure(tool: string, error: unknown): ToolFailure {
  if (error instanceof EditgateError) {
    return {
      ok: false,
      code: error.code,
      message: `${tool} failed (${error.code}): ${error.message}`,
      details: { tool, ...error.details },
    };
  }
  const text = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    code: 'IO',
    message: `${tool} failed (IO): ${text}. Nothing was written. If this persists, tell the user.`,
    details: { tool },
  };
}
