import { randomUUID } from 'node:crypto';
import { diffLines, formatUnifiedDiff } from '../core/diff.js';
import { EditgateError } from '../core/errors.js';
import type { MatchTier } from '../core/match.js';
import { encodeText } from '../core/text.js';
import { commitText, deleteFile, type Fingerprint, readSnapshot, type Snapshot } from '../workspace/files.js';
import type { Guard, ResolvedPath } from '../workspace/guard.js';
import type { History } from '../workspace/history.js';
import type { Ledger } from '../workspace/ledger.js';
import { commitPrepared } from '../workspace/stream/commit.js';
import type { StreamedChange } from '../workspace/stream/streamer.js';
import { type ApprovalRequest, type Approver, approvalRequestFor, type Decision } from './approval.js';
import { appendAudit } from './audit.js';
import type { Hooks } from './hooks.js';
import { PendingChanges, type StagedChange } from './pending.js';
import { type Policy, PolicyEngine } from './policy.js';
import type { Proposal, ProposalKind } from './proposal.js';
import { reviseProposal } from './revised-proposal.js';
import { SessionGrants } from './session.js';
import { discardProposal, streamedProposal } from './streamed-proposal.js';

export interface GateOptions {
  guard: Guard;
  ledger: Ledger;
  history: History;
  /** Who answers when policy says ask. 'allow' approves everything; 'deny' refuses whatever would be asked. */
  approve: Approver | 'allow' | 'deny';
  policy?: Policy;
  hooks?: Hooks;
  /** Edits and overwrites need a full, current read_file first. Default true. */
  requireReadBeforeEdit?: boolean;
  /** Path of a JSON Lines audit log; none when absent. */
  auditLog?: string;
  /**
   * Called (and awaited) with every proposal before approval is asked, asked or auto-approved. `screening`
   * says whether a person will be asked next or who already approved it, so a front end can show the diff
   * once (with the question, or with a note saying why no question).
   */
  onPreview?: (proposal: Proposal, screening: Screening) => void | Promise<void>;
  session?: SessionGrants;
  /** How long a staged (preview-mode) change can wait to be applied. Default 10 minutes. */
  stagedTtlMs?: number;
}

/** What a tool computes from the file as it is now. */
export interface ComputedChange {
  after: string;
  /** Overrides the kind derived from the base (e.g. 'delete' for undoing a creation). */
  kind?: ProposalKind;
  replacements?: number;
  tiers?: MatchTier[];
  /** The snapshot whose codec the new text is written with (undo restores the old codec). */
  codecFrom?: Snapshot;
}

export interface ChangeRequest {
  tool: string;
  path: string;
  input: Record<string, unknown>;
  /** The file must have been read in full, unchanged since (when the gate requires reads). */
  requireRead: boolean;
  encoding?: string;
  compute: (base: Snapshot, resolved: ResolvedPath) => ComputedChange | Promise<ComputedChange>;
  /**
   * Huge files: the change computed by streaming (workspace/stream), read check included; null when the
   * file is small enough for `compute`.
   */
  stream?: (resolved: ResolvedPath, options: { requireRead: boolean }) => Promise<StreamedChange | null>;
}

export interface Approval {
  decision: 'once' | 'file' | 'all' | 'policy' | 'session';
  decidedBy: 'user' | 'policy' | 'session';
  /**
   * The person approved their own version of the new text: `proposal` is what is written instead of the
   * proposed change, and `unifiedDiff` says what they changed (proposed -> theirs), for the model.
   */
  edited?: { proposal: Proposal; unifiedDiff: string };
}

/**
 * What screening found, told to onPreview: a person is asked next, or policy / a session grant approved.
 * After a person approved their own version of a change, onPreview is called again with that version
 * (`approvedBy: 'user', edited: true`), so what is written is shown as it is.
 */
export type Screening =
  | { ask: true }
  | { ask: false; approvedBy: 'policy' | 'session' }
  | { ask: false; approvedBy: 'user'; edited: true };

export interface ChangeOutcome {
  proposal: Proposal;
  approval?: Approval;
  fingerprint?: Fingerprint;
  /** Text from after-change hooks, for the model. */
  hookMessage?: string;
  /** Preview mode: the change was not written; it waits under this id. */
  staged?: StagedChange;
}

const ALWAYS: Approver = () => 'once';

/**
 * The one path by which any front end changes a file: propose (compute the change and its diff), decide
 * (hooks, policy, preview, approval), commit (stale check, atomic write, history, ledger, audit, hooks).
 */
export class Gate {
  readonly session: SessionGrants;
  readonly guard: Guard;
  readonly ledger: Ledger;
  readonly history: History;
  private readonly policy: PolicyEngine;
  private readonly approver: Approver | 'deny';
  private readonly requireReads: boolean;
  private readonly pending: PendingChanges;

  constructor(private readonly options: GateOptions) {
    this.guard = options.guard;
    this.ledger = options.ledger;
    this.history = options.history;
    this.session = options.session ?? new SessionGrants();
    this.policy = new PolicyEngine(options.policy);
    this.approver = options.approve === 'allow' ? ALWAYS : options.approve;
    this.requireReads = options.requireReadBeforeEdit ?? true;
    this.pending = new PendingChanges(options.stagedTtlMs);
  }

  /** Resolve a path and read it as a reader: applies read policy; records nothing. */
  async readForTool(
    tool: string,
    path: string,
    options: { encoding?: string; resolved?: ResolvedPath } = {},
  ) {
    const resolved = options.resolved ?? (await this.resolveForRead(tool, path));
    const snapshot = await readSnapshot(resolved.absolute, {
      encoding: options.encoding,
      display: resolved.relative,
    });
    return { resolved, snapshot };
  }

  /** Resolve a path for reading and apply read policy, reading nothing (huge files are read by streaming). */
  async resolveForRead(tool: string, path: string): Promise<ResolvedPath> {
    const resolved = await this.guard.resolve(path);
    await this.ensureReadable(tool, resolved);
    if (!resolved.exists) {
      throw new EditgateError(
        'FILE_NOT_FOUND',
        `${resolved.relative} does not exist. Check the path (it is relative to the workspace root), or create the file with write_file.`,
        { path: resolved.relative },
      );
    }
    return resolved;
  }

  /** Compute a change and its diff; nothing is asked or written yet. */
  async propose(request: ChangeRequest): Promise<Proposal> {
    const resolved = await this.guard.resolve(request.path);
    if (resolved.exists) await this.ensureReadable(request.tool, resolved);
    const streamed = await request.stream?.(resolved, {
      requireRead: request.requireRead && this.requireReads,
    });
    if (streamed) return streamedProposal(request, resolved, streamed);
    const base = await readSnapshot(resolved.absolute, {
      encoding: request.encoding,
      display: resolved.relative,
    });
    if (request.requireRead && this.requireReads && base.exists) {
      this.ledger.check(resolved.absolute, base.fingerprint, { display: resolved.relative });
    }
    const computed = await request.compute(base, resolved);
    const kind = computed.kind ?? deriveKind(base, computed.after);
    const after = kind === 'delete' ? '' : computed.after;
    const diff = diffLines(base.text, after);
    const unifiedDiff = diff.identical
      ? ''
      : formatUnifiedDiff(diff, {
          oldPath: kind === 'create' ? '/dev/null' : resolved.relative,
          newPath: kind === 'delete' ? '/dev/null' : resolved.relative,
        });
    const codecBase = computed.codecFrom ? { ...base, codec: computed.codecFrom.codec } : base;
    return {
      id: randomUUID(),
      tool: request.tool,
      path: resolved.relative,
      resolved,
      kind,
      base: codecBase,
      after,
      diff,
      unifiedDiff,
      stats: { added: diff.added, removed: diff.removed },
      replacements: computed.replacements,
      tiers: computed.tiers,
      input: request.input,
    };
  }

  /**
   * Hooks, policy and preview, in that order: throws DENIED_HOOK / DENIED_POLICY, else says whether the change
   * is already allowed (by policy or a session grant) or must be asked about.
   */
  async screen(proposal: Proposal): Promise<Approval | 'ask'> {
    const verdict = await this.options.hooks?.beforeChange?.(proposal);
    if (verdict && typeof verdict === 'object' && 'deny' in verdict) {
      await this.audit(proposal, 'deny', 'hook', verdict.deny);
      throw new EditgateError(
        'DENIED_HOOK',
        `A before-change hook refused this change to ${proposal.path}: ${verdict.deny}`,
        { path: proposal.path, reason: verdict.deny },
      );
    }

    const policy = this.policy.evaluate(proposal.tool, proposal.path);
    if (policy.action === 'deny') {
      await this.audit(proposal, 'deny', 'policy');
      throw new EditgateError(
        'DENIED_POLICY',
        `Policy does not allow ${proposal.tool} on ${proposal.path}${policy.rule?.path ? ` (rule: ${policy.rule.path} → deny)` : ''}. Do not retry this change; tell the user if it is needed.`,
        { path: proposal.path, rule: policy.rule },
      );
    }

    const screened: Approval | 'ask' =
      policy.action === 'allow'
        ? { decision: 'policy', decidedBy: 'policy' }
        : this.session.coversChange(proposal.path)
          ? { decision: 'session', decidedBy: 'session' }
          : 'ask';
    await this.options.onPreview?.(
      proposal,
      screened === 'ask'
        ? { ask: true }
        : { ask: false, approvedBy: screened.decision as 'policy' | 'session' },
    );
    return screened;
  }

  /** Hooks, policy, preview and approval, in that order. Throws DENIED_* when the change may not happen. */
  async decide(proposal: Proposal): Promise<Approval> {
    const screened = await this.screen(proposal);
    if (screened !== 'ask') return screened;

    let decision = await this.ask(approvalRequestFor(proposal));
    let edited: Approval['edited'];
    if (typeof decision === 'object' && 'edited' in decision) {
      const revised = reviseProposal(proposal, decision.edited);
      if ('refused' in revised) decision = { deny: revised.refused };
      else {
        // The same text as proposed is a plain approval.
        if (revised.unifiedDiff !== '') edited = revised;
        decision = decision.allow;
      }
    }
    if (decision === 'file') this.session.grantFile(proposal.path);
    if (decision === 'all') this.session.grantAll();
    if (decision === 'deny' || typeof decision === 'object') {
      const reason = typeof decision === 'object' ? decision.deny.trim() : '';
      await this.audit(proposal, 'deny', 'user', reason || undefined);
      throw new EditgateError(
        'DENIED_USER',
        reason
          ? `The user denied this edit: ${reason}`
          : `The user denied this change to ${proposal.path}. Do not retry it as is; ask the user what they want instead.`,
        { path: proposal.path, reason: reason || undefined },
      );
    }
    if (!edited) return { decision, decidedBy: 'user' };
    // The diff of what will be written, shown again: it is no longer the one the question showed.
    await this.options.onPreview?.(edited.proposal, { ask: false, approvedBy: 'user', edited: true });
    return { decision, decidedBy: 'user', edited };
  }

  /**
   * Preview mode: compute and screen the change but write nothing; it waits under a change id for
   * `applyStaged`, which the person approves in their client.
   */
  async stage(request: ChangeRequest): Promise<ChangeOutcome> {
    const proposal = await this.propose(request);
    if (proposal.kind === 'noop') return { proposal };
    await this.screen(proposal).catch(async (error) => {
      await discardProposal(proposal);
      throw error;
    });
    return { proposal, staged: this.pending.stage(proposal) };
  }

  /** Apply a staged change once, if it has not expired and the file is still what its diff was made from. */
  async applyStaged(changeId: string): Promise<ChangeOutcome> {
    const proposal = this.pending.take(changeId);
    return this.commit(proposal, { decision: 'once', decidedBy: 'user' });
  }

  /** Write the approved change if the file still is exactly what the change was computed from. */
  async commit(proposal: Proposal, approval?: Approval): Promise<ChangeOutcome> {
    const { resolved, base } = proposal;
    const verify = () => this.guard.recheck(resolved);
    let fingerprint: Fingerprint | undefined;
    if (proposal.kind === 'delete') {
      await deleteFile(base, { verify });
    } else if (proposal.streamed) {
      fingerprint = (await commitPrepared(base, proposal.streamed, { verify })).fingerprint;
    } else {
      fingerprint = (await commitText(base, proposal.after, { verify })).fingerprint;
    }

    if (proposal.tool === 'undo_edit') {
      await this.history.pop(resolved.absolute, fingerprint);
    } else if (proposal.streamed) {
      // A streamed change keeps a reverse patch for undo, not the old bytes (which were never in memory).
      const patch = proposal.streamed.patch ?? undefined;
      if (fingerprint)
        await this.history.record(resolved.absolute, {
          before: null,
          patch,
          after: fingerprint,
          tool: proposal.tool,
        });
    } else {
      const before = base.exists ? encodeText(base.text, base.codec) : null;
      if (fingerprint)
        await this.history.record(resolved.absolute, { before, after: fingerprint, tool: proposal.tool });
    }
    if (fingerprint) this.ledger.recordWrite(resolved.absolute, fingerprint, { display: resolved.relative });
    else this.ledger.forget(resolved.absolute);

    await this.audit(
      proposal,
      approval?.decision ?? 'once',
      approval?.decidedBy ?? 'user',
      undefined,
      fingerprint?.hash ?? null,
    );

    let hookMessage: string | undefined;
    const afterChange = this.options.hooks?.afterChange;
    if (afterChange) {
      try {
        const said = await afterChange({
          tool: proposal.tool,
          path: proposal.path,
          absolutePath: resolved.absolute,
          kind: proposal.kind === 'noop' ? 'modify' : proposal.kind,
          stats: proposal.stats,
          unifiedDiff: proposal.unifiedDiff,
        });
        if (typeof said === 'string' && said.trim()) hookMessage = said.trim();
      } catch (error) {
        // The change is written; a failing observer must not turn that into a reported failure.
        hookMessage = `after-change hook failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    return { proposal, approval, fingerprint, hookMessage };
  }

  /** propose → decide → commit; a no-op is reported without asking or writing. */
  async change(request: ChangeRequest): Promise<ChangeOutcome> {
    const proposal = await this.propose(request);
    if (proposal.kind === 'noop') return { proposal };
    const approval = await this.decide(proposal).catch(async (error) => {
      await discardProposal(proposal);
      throw error;
    });
    const approved = approval.edited?.proposal ?? proposal;
    // The person's version may be the file as it already is: nothing to write.
    if (approved.kind === 'noop') return { proposal: approved, approval };
    return this.commit(approved, approval);
  }

  private async ask(request: ApprovalRequest): Promise<Decision> {
    if (this.approver === 'deny') {
      return {
        deny: `changes that need approval are refused in this session (approve: 'deny'); ${request.path} was not changed`,
      };
    }
    try {
      return normalizeDecision(await this.approver(request));
    } catch (error) {
      // An approver that fails has not said yes.
      return {
        deny: `the approval prompt failed (${error instanceof Error ? error.message : String(error)})`,
      };
    }
  }

  /** When policy asks before reads, a change to a file not yet readable asks for the read first. */
  private async ensureReadable(tool: string, resolved: ResolvedPath): Promise<void> {
    const verdict = this.policy.evaluate('read_file', resolved.relative);
    if (verdict.action === 'allow' || this.session.coversRead(resolved.relative)) return;
    if (verdict.action === 'deny') {
      throw new EditgateError(
        'DENIED_POLICY',
        `Policy does not allow reading ${resolved.relative}. Do not retry; tell the user if you need it.`,
        { path: resolved.relative, rule: verdict.rule },
      );
    }
    const isRead = tool === 'read_file';
    const answer = await this.ask({
      tool,
      path: resolved.relative,
      kind: 'read',
      question: isRead ? `Read ${resolved.relative}?` : `Read ${resolved.relative} to preview the change?`,
      diff: { hunks: [], added: 0, removed: 0, identical: true },
      unifiedDiff: '',
      stats: { added: 0, removed: 0 },
    });
    // A read has no text to edit: an edited answer counts for its grant alone.
    const decision = typeof answer === 'object' && 'allow' in answer ? answer.allow : answer;
    if (decision === 'file') this.session.grantReadFile(resolved.relative);
    if (decision === 'all') this.session.grantAllReads();
    if (decision === 'deny' || typeof decision === 'object') {
      const reason = typeof decision === 'object' ? decision.deny.trim() : '';
      throw new EditgateError(
        'DENIED_USER',
        reason
          ? `The user denied reading ${resolved.relative}: ${reason}`
          : `The user denied reading ${resolved.relative}.`,
        { path: resolved.relative, reason: reason || undefined },
      );
    }
  }

  private async audit(
    proposal: Proposal,
    decision: string,
    decidedBy: string,
    reason?: string,
    hashAfter?: string | null,
  ): Promise<void> {
    const logPath = this.options.auditLog;
    if (!logPath) return;
    await appendAudit(logPath, {
      time: new Date().toISOString(),
      tool: proposal.tool,
      path: proposal.path,
      kind: proposal.kind,
      decision,
      decidedBy,
      stats: proposal.stats,
      hashBefore: proposal.base.fingerprint?.hash ?? null,
      hashAfter: hashAfter ?? null,
      reason,
    });
  }
}

function deriveKind(base: Snapshot, after: string): ProposalKind {
  if (!base.exists) return 'create';
  return after === base.text ? 'noop' : 'modify';
}

/** Approvers are user code: accept the documented decisions and refuse anything else as a denial. */
function normalizeDecision(decision: unknown): Decision {
  if (decision === 'once' || decision === 'file' || decision === 'all' || decision === 'deny')
    return decision;
  if (decision && typeof decision === 'object' && typeof (decision as { deny?: unknown }).deny === 'string') {
    return { deny: (decision as { deny: string }).deny };
  }
  if (decision && typeof decision === 'object') {
    const { allow, edited } = decision as { allow?: unknown; edited?: unknown };
    if (
      (allow === 'once' || allow === 'file' || allow === 'all') &&
      edited &&
      typeof edited === 'object' &&
      !Array.isArray(edited) &&
      Object.values(edited).every((text) => typeof text === 'string')
    ) {
      return { allow, edited: { ...(edited as Record<string, string>) } };
    }
  }
  return { deny: `the approver gave an unknown decision (${JSON.stringify(decision)})` };
}
