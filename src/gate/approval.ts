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
  /** A change set (one call that changes several files, issue #16): every file, in a stable order.
   * path/kind/diff/unifiedDiff/stats above describe the first. Absent for a change to one file. */
  files?: ApprovalFile[];
  /** Old and new text of a one-file change when held in memory. */
  texts?: { before: string; after: string };
  /** What the person must know about the change (e.g. that it is large). Always shown with the diff. */
  note?: string;
}

/** One file of a change as a person judges it. */
export interface ApprovalFile {
  path: string;
  kind: 'create' | 'modify' | 'delete';
  diff: Diff;
  unifiedDiff: string;
  stats: { added: number; removed: number };
  /** Old and new text when held in memory (absent for streamed huge files), so a view can expand
   * unchanged regions. */
  texts?: { before: string; after: string };
  /** What the person must know about this file's change (e.g. how its diff is shown). */
  note?: string;
}

/**
 * once: this change only; file: this file for the rest of the session; all: every change this session;
 * deny / { deny: reason }: refuse, the reason reaches the model.
 */
export type Decision = 'once' | 'file' | 'all' | 'deny' | { deny: string };

export type Approver = (request: ApprovalRequest) => Decision | Promise<Decision>;

/** The part of a proposal a person judges: what the approver is asked, and what a preview shows. */
export function approvalRequestFor(proposal: Proposal): ApprovalRequest {
  const request: ApprovalRequest = {
    tool: proposal.tool,
    path: proposal.path,
    kind: proposal.kind === 'noop' ? 'modify' : proposal.kind,
    diff: proposal.diff,
    unifiedDiff: proposal.unifiedDiff,
    stats: proposal.stats,
    input: proposal.input,
  };
  // A streamed change never held either text: a view of it has only the diff.
  if (!proposal.streamed) request.texts = { before: proposal.base.text, after: proposal.after };
  if (proposal.note) request.note = proposal.note;
  return request;
}
