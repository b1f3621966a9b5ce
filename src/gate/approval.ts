import type { Diff } from '../core/diff.js';
import type { Proposal } from './proposal.js';

/**
 * What a person (or program) is asked to approve: one proposed change, with its diff. `kind: 'read'` asks
 * only for permission to read the file (policy can require it) before a change to it is even computed;
 * such a request has an empty diff and a `question` to show instead.
 */
export interface ApprovalRequest {
  tool: string;
  /** Path relative to the workspace root, '/'-separated. */
  path: string;
  kind: 'create' | 'modify' | 'delete' | 'read';
  /** The question to ask, e.g. "Read src/x.ts to preview the change?" (set for 'read'). */
  question?: string;
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

/** The part of a proposal a person judges: what the approver is asked, and what a preview shows. */
export function approvalRequestFor(proposal: Proposal): ApprovalRequest {
  return {
    tool: proposal.tool,
    path: proposal.path,
    kind: proposal.kind === 'noop' ? 'modify' : proposal.kind,
    diff: proposal.diff,
    unifiedDiff: proposal.unifiedDiff,
    stats: proposal.stats,
    input: proposal.input,
  };
}
