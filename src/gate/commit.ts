/**
 * The gate's last step, after a proposal was approved: the workspace writes it (stale check under the
 * lock, atomic write, fsync) and records it (history, ledger); then it is settled (settle.ts: the audit
 * line and the after-change hooks, as for a write someone else made). Nothing here decides anything.
 */
import type { Fingerprint } from '../workspace/fingerprint.js';
import type { SessionLog } from '../workspace/session-log.js';
import type { Workspace } from '../workspace/workspace.js';
import type { AnsweredFrom } from './approval.js';
import type { AuditLog } from './audit.js';
import type { Hooks } from './hooks.js';
import type { TakenHunks } from './hunk-decision.js';
import type { PolicyRule } from './policy.js';
import type { Proposal } from './proposal.js';
import { settleCommitted } from './settle.js';
import type { StagedChange } from './staging.js';

/**
 * Who let a change through: a person answering the question ('user'), an approver that says yes without
 * asking anyone ('auto': --yes), a policy rule ('policy', with the rule), or a grant a person gave earlier in
 * the session ('session', with the grant). Hooks only refuse, so they never approve.
 */
export interface Approval {
  decision: 'once' | 'file' | 'all' | 'policy' | 'session';
  decidedBy: 'user' | 'auto' | 'policy' | 'session';
  /** decidedBy 'policy': the rule that allowed it (in a change set, the first file's). */
  rule?: PolicyRule;
  /** decidedBy 'session': the grant given earlier that covers it: this file, or every change. */
  grant?: 'file' | 'all';
  /** decidedBy 'auto': what said yes, e.g. '--yes', or "approve: 'allow'" for a library caller. */
  auto?: string;
  /**
   * The person approved their own version of the new text: `proposal` is what is written instead of the
   * proposed change, and `unifiedDiff` says what they changed (proposed -> theirs), for the model.
   */
  edited?: { proposal: Proposal; unifiedDiff: string };
  /**
   * The person accepted part of the change, hunk by hunk (hunk-decision.ts): `proposal` is what is written
   * instead (only the accepted hunks), `files` what landed and what did not in every file, with reasons.
   */
  hunks?: TakenHunks;
  /** The person's note given with the approval, for the model. */
  reason?: string;
  /**
   * The change rules and checks that made a person be asked although a grant, an automatic yes or an allow
   * rule would have let the change through (their findings' `source`s, e.g. "rule:removed-over-200").
   */
  askedBy?: string[];
  /** decidedBy 'user', answered over a network (the review page): from where. */
  answeredFrom?: AnsweredFrom;
}

/** What became of a proposal. */
export interface ChangeOutcome {
  proposal: Proposal;
  approval?: Approval;
  /** The written file's fingerprint (absent for a deletion, a no-op, a staged change). */
  fingerprint?: Fingerprint;
  /** Text from after-change hooks, for the model. */
  hookMessage?: string;
  /** Preview mode: the change was not written; it waits under this id. */
  staged?: StagedChange;
}

export interface CommitSteps {
  workspace: Workspace;
  audit: AuditLog;
  hooks?: Hooks;
  sessionLog?: SessionLog;
  /** The guard's recheck of each file's path, under its lock, right before the rename. */
  verify: (path: Proposal['files'][number]) => Promise<void>;
  signal?: AbortSignal;
}

export async function commitProposal(
  proposal: Proposal,
  approval: Approval | undefined,
  steps: CommitSteps,
): Promise<ChangeOutcome> {
  const files = proposal.files;
  // A change set is committed all or nothing by the workspace, never file by file here.
  const written =
    files.length === 1
      ? [
          await steps.workspace.commit(files[0]!.change, {
            verify: () => steps.verify(files[0]!),
            signal: steps.signal,
            tool: proposal.tool,
          }),
        ]
      : await steps.workspace.commitSet(
          files.map((file) => file.change),
          {
            verify: (change) => steps.verify(files.find((file) => file.change === change)!),
            signal: steps.signal,
            tool: proposal.tool,
          },
        );
  const fingerprint = written[0]!.fingerprint ?? undefined;
  const hookMessage = await settleCommitted(
    proposal,
    approval,
    written.map((each) => each.fingerprint),
    steps,
  );
  return { proposal, approval, fingerprint, ...(hookMessage ? { hookMessage } : {}) };
}
