import type { Approver } from '../gate/approval.js';
import type { LoadedConfig } from '../tools/config.js';
import type { ApproveChoice } from './approval-mode.js';
import type { Logger } from './logger.js';

/** Everything a server needs, decided once at start-up and shared by every session. */
export interface McpServeOptions {
  /** Absolute workspace roots; relative paths resolve against the first. */
  roots: string[];
  approve: ApproveChoice;
  /** The root's editgate.config.json (or --config), loaded once: it applies to every session. */
  config: LoadedConfig;
  /** Narrow the roots to the client's MCP roots (never wider). */
  useClientRoots: boolean;
  /** Preview mode: how long a change_id stays valid. */
  changeTtlMs: number;
  /** Elicit mode: how long to wait for the person's answer before counting it as a denial. */
  approvalTimeoutMs: number;
  /**
   * read_file's page size in characters. Clients keep only so much of a result (Claude Code about 45,000
   * characters, Gemini CLI the first 8,000 and last 32,000 of anything over 40,000): a page they cut would be
   * recorded as read though the model never saw all of it, so pages stay below every known cut-off.
   * Default DEFAULT_READ_PAGE_CHARS.
   */
  readPageChars?: number;
  /** Tool arguments larger than this (as JSON, in bytes) are refused with TOO_LARGE. */
  maxInputBytes: number;
  log: Logger;
  /**
   * Where undo history is kept when the config names no stateDir: the user's state folder, so `editgate
   * undo` after the session (and the next session) finds it. Absent: history in memory only.
   */
  stateDir?: string;
  /** With approve 'web': the web review page's approver (the CLI starts the page; mcp does not import web). */
  webApprover?: Approver;
}

export const DEFAULT_CHANGE_TTL_MS = 10 * 60_000;
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_READ_PAGE_CHARS = 25_000;
export const DEFAULT_MAX_INPUT_BYTES = 8 * 1024 * 1024;
