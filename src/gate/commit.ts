/**
 * The gate's last step, after a proposal was approved: the workspace writes it (stale check under the
 * lock, atomic write, fsync) and records it (history, ledger); then the audit log gets its line and the
 * after-change hooks run. Nothing here decides anything.
 */
import type { Fingerprint } from '../workspace/fingerprint.js';
import type { Workspace } from '../workspace/workspace.js';
import type { AuditLog } from './audit.js';
import type { Hooks } from './hooks.js';
import type { Proposal } from './proposal.js';
import type { StagedChange } from './staging.js';

/** Who let a change through: a person's decision, a policy rule, or a grant made earlier in the session. */
export interface Approval {
  decision: 'once' | 'file' | 'all' | 'policy' | 'session';
  decidedBy: 'user' | 'policy' | 'session';
  /**
   * The person approved their own version of the new text: `proposal` is what is written instead of the
   * proposed change, and `unifiedDiff` says what they changed (proposed -> theirs), for the model.
   */
  edited?: { proposal: Proposal; unifiedDiff: string };
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
  /** The guard's recheck of each file's path, under its lock, right before the rename. */
  verify: (path: Proposal['files'][number]) => Promise<void>;
  signal?: AbortSignal;
}

export async function commitProposal(
  proposal: Proposal,
  approval: Approval | undefined,
  steps: CommitSteps,
): Promise<ChangeOutcome> {
  if (proposal.files.length !== 1) {
    // A change set is committed all or nothing by the workspace (issue #16), never file by file here.
    throw new Error(`a change to ${proposal.files.length} files cannot be committed yet`);
  }
  const file = proposal.files[0]!;
  const written = await steps.workspace.commit(file.change, {
    verify: () => steps.verify(file),
    signal: steps.signal,
    tool: proposal.tool,
  });
  const fingerprint = written.fingerprint ?? undefined;
  await steps.audit.record(proposal, {
    decision: approval?.decision ?? 'once',
    decidedBy: approval?.decidedBy ?? 'user',
    written: [written.fingerprint],
  });
  const outcome: ChangeOutcome = { proposal, approval, fingerprint };
  const afterChange = steps.hooks?.afterChange;
  if (afterChange) {
    try {
      const said = await afterChange({
        tool: proposal.tool,
        path: proposal.path,
        absolutePath: file.change.path,
        kind: proposal.kind === 'noop' ? 'modify' : proposal.kind,
        stats: proposal.stats,
        unifiedDiff: proposal.unifiedDiff,
      });
      if (typeof said === 'string' && said.trim()) outcome.hookMessage = said.trim();
    } catch (error) {
      // The change is written; a failing observer must not turn that into a reported failure.
      outcome.hookMessage = `after-change hook failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return outcome;
}
