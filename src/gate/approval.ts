import type { Diff } from '../core/diff.js';

/** What a person (or program) is asked to approve: one proposed change, with its diff. */
export interface ApprovalRequest {
  tool: string;
  /** Path relative to the workspace root, '/'-separated. */
  path: string;
  kind: 'create' | 'modify' | 'delete';
  diff: Diff;
  unifiedDiff: string;
  stats: { added: number; removed: number };
  /** The tool call's input, for showing the call on one line. */
  input?: Record<string, unknown>;
}

/**
 * once: this change only; file: this file for the rest of the session; all: every change this session;
 * deny / { deny: reason }: refuse, the reason reaches the model.
 */
export type Decision = 'once' | 'file' | 'all' | 'deny' | { deny: string };

export type Approver = (request: ApprovalRequest) => Decision | Promise<Decision>;
