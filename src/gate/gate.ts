/**
 * The one path by which any front end changes a file:
 *   propose: resolve the path, permission to read it, and the workspace computes the change and its diff;
 *   decide:  before-change hooks, policy, the preview event, and the approver when policy asks;
 *   commit:  the workspace writes and records it; audit line; after-change hooks (commit.ts).
 * The gate decides without knowing what holds a change's content or which tool made it: tools describe
 * themselves (which only read) and their changes (workspace FileChanges).
 */
import { relative, sep } from 'node:path';
import { EditgateError, isEditgateError, throwIfCancelled } from '../core/errors.js';
import { findingLine, findingsNote } from '../core/finding-words.js';
import type { Finding } from '../core/findings.js';
import type { ResolvedPath } from '../workspace/guard.js';
import type { SessionLog } from '../workspace/session-log.js';
import type { FileChange, PrepareOptions, Workspace } from '../workspace/workspace.js';
import { readNow } from '../workspace/written-elsewhere.js';
import {
  type AnsweredFrom,
  type ApprovalRequest,
  type Approver,
  approvalReason,
  approvalRequestFor,
  askApprover,
  autoApprover,
  autoApproverName,
  type Decision,
  denialReason,
  grantOf,
  personBehind,
} from './approval.js';
import { AuditLog } from './audit.js';
import { BUILT_IN_CHECKS, type ChangeCheck, prepareChecksFor, runChecks } from './checks.js';
import { type Approval, type ChangeOutcome, commitProposal } from './commit.js';
import { SessionGrants } from './grants.js';
import type { CallWithoutDiff, Hooks } from './hooks.js';
import {
  checkHunkChoices,
  type FileHunkPlan,
  type FileHunks,
  planTakes,
  rejectedHunkLines,
  reportRejected,
  takeHunks,
} from './hunk-decision.js';
import { noApproverError } from './no-approver.js';
import { type Policy, PolicyEngine, type PolicyRule } from './policy.js';
import { type Proposal, proposalOf } from './proposal.js';
import { ReadApproval } from './read-approval.js';
import { editRefusal, reviseProposal } from './revised-proposal.js';
import { keepSecrets, secretsOf } from './secret-check.js';
import { type Settled, settleWrittenElsewhere, type WrittenElsewhere } from './settle.js';
import { partialDiffError, partialDiffIn } from './shown-whole.js';
import { type NamedChange, StagedChanges } from './staging.js';

export type { Approval, ChangeOutcome } from './commit.js';
export type { Allowed, Settled, WrittenElsewhere } from './settle.js';

export interface GateOptions {
  workspace: Workspace;
  /** Who answers when policy says ask. 'allow' approves everything; 'deny' refuses whatever would be asked. */
  approve: Approver | 'allow' | 'deny';
  policy?: Policy;
  /** The tools that only read: allowed without a rule saying otherwise, and their rules govern reading. */
  readOnlyTools?: Iterable<string>;
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
  /** Checks of a proposed change run after the built-in ones (checks.ts); their findings are shown and judged. */
  checks?: ChangeCheck[];
  /**
   * The session's log of changes (workspace/session-log.ts): every write this gate settles, its own and
   * others', goes into it, for `editgate review --session` and /review. None: nothing is logged.
   */
  sessionLog?: SessionLog;
}

/** A change a tool asks for: which file, and how the workspace computes the change. */
export interface ChangeRequest {
  tool: string;
  path: string;
  input: Record<string, unknown>;
  /** The file must have been read in full, unchanged since (when the gate requires reads). */
  requireRead: boolean;
  /**
   * The change, computed by the workspace from the file as it is now: `workspace.edit(...)` for an edit,
   * `workspace.undo(...)` for an undo, or any FileChange (a proxy's whole new text).
   */
  prepare(workspace: Workspace, resolved: ResolvedPath, options: PrepareOptions): Promise<FileChange>;
  /** Cancels the call; a cancelled change writes nothing (CANCELLED). */
  signal?: AbortSignal;
  /**
   * A change set: more files, each resolved, read-approved and prepared like the first, then proposed,
   * approved and committed with it as one (all or nothing). Files whose change is a no-op are left out.
   */
  more?: FileRequest[];
}

/** One more file of a change set. */
export type FileRequest = Pick<ChangeRequest, 'path' | 'requireRead' | 'prepare'>;

/**
 * What screening found, told to onPreview: a person is asked next, or policy / a session grant approved.
 * After a person approved their own version of a change, onPreview is called again with that version
 * (`approvedBy: 'user', edited: true`), so what is written is shown as it is; after they accepted part of
 * it hunk by hunk, with the change rebuilt from those hunks (`approvedBy: 'user', hunks: true`).
 */
export type Screening =
  /** `askedBy`: the findings that insist on a person, when an allow rule, a grant or --yes would not ask. */
  | { ask: true; askedBy?: Finding[] }
  | { ask: false; approvedBy: 'policy'; rule?: PolicyRule }
  | { ask: false; approvedBy: 'session'; grant: 'file' | 'all' }
  | { ask: false; approvedBy: 'user'; edited: true }
  | { ask: false; approvedBy: 'user'; hunks: true };

const ALWAYS: Approver = autoApprover("approve: 'allow'");

export class Gate {
  readonly session: SessionGrants;
  readonly workspace: Workspace;
  /** The session's log of changes, when it has one (GateOptions.sessionLog). */
  readonly sessionLog: SessionLog | undefined;
  private readonly policy: PolicyEngine;
  private readonly approver: Approver | 'deny';
  private readonly requireReads: boolean;
  private readonly reads: ReadApproval;
  private readonly staged: StagedChanges;
  private readonly audit: AuditLog;
  private readonly checks: readonly ChangeCheck[];

  constructor(private readonly options: GateOptions) {
    this.checks = [...BUILT_IN_CHECKS, ...(options.checks ?? [])];
    this.workspace = options.workspace;
    this.sessionLog = options.sessionLog;
    this.session = options.session ?? new SessionGrants();
    this.policy = new PolicyEngine(options.policy, options.readOnlyTools);
    this.approver = options.approve === 'allow' ? ALWAYS : options.approve;
    this.requireReads = options.requireReadBeforeEdit ?? true;
    this.audit = new AuditLog(options.auditLog);
    this.reads = new ReadApproval(this.policy, this.session, this.approver, this.audit);
    this.staged = new StagedChanges(options.stagedTtlMs);
  }

  /** Resolve an existing file for a read tool and apply read policy, reading nothing yet. */
  async resolveForRead(tool: string, path: string, signal?: AbortSignal): Promise<ResolvedPath> {
    // A dead process's half-renamed change set goes back first (its kept originals are second links).
    await this.workspace.recover();
    const resolved = await this.workspace.guard.resolve(path);
    await this.reads.ensure(tool, resolved, { forChange: false, signal });
    // A read is what comes before an edit: the checks get ready while the model reads.
    if (resolved.exists) prepareChecksFor(resolved.relative);
    if (!resolved.exists) {
      throw new EditgateError(
        'FILE_NOT_FOUND',
        {
          happened: `${resolved.relative} does not exist.`,
          advice:
            'Check the path (it is relative to the workspace root), or create the file with write_file.',
        },
        { path: resolved.relative },
      );
    }
    return resolved;
  }

  /**
   * Whether read policy keeps every tool from reading `path` (a deny rule), so a listing (a folder view)
   * must not show it either. Nobody is asked: an entry under an "ask" rule is listed, its content asked for
   * when it is read.
   */
  readDenied(path: Pick<ResolvedPath, 'relative' | 'ruleRelative'>): boolean {
    return this.policy.evaluateRead(path.ruleRelative ?? path.relative).action === 'deny';
  }

  /**
   * Compute a change and its diff; nothing is asked or written yet. `writeAhead`: the caller commits the
   * change as soon as it is decided (change(), not stage()), so a single file's change that nobody will be
   * asked about may get its new bytes written beside it meanwhile (workspace/early-write.ts).
   */
  async propose(request: ChangeRequest, options: { writeAhead?: boolean } = {}): Promise<Proposal> {
    throwIfCancelled(request.signal);
    // The checks' rules and grammars load while the change is computed, not after.
    prepareChecksFor(request.path);
    // A dead process's half-renamed change set goes back first (its kept originals are second links).
    await this.workspace.recover();
    const changes: FileChange[] = [];
    const single = (request.more ?? []).length === 0;
    try {
      for (const file of [request, ...(request.more ?? [])]) {
        const resolved = await this.workspace.guard.resolve(file.path);
        if (changes.some((change) => change.path === resolved.absolute)) {
          throw new EditgateError(
            'INVALID_INPUT',
            `${resolved.relative} appears twice in one change; give each file once, with all of its changes.`,
            { path: resolved.relative },
          );
        }
        if (resolved.exists)
          await this.reads.ensure(request.tool, resolved, { forChange: true, signal: request.signal });
        changes.push(
          await file.prepare(this.workspace, resolved, {
            requireRead: file.requireRead && this.requireReads,
            signal: request.signal,
            writeAhead: options.writeAhead === true && single && this.passesUnasked(request.tool, resolved),
          }),
        );
      }
    } catch (error) {
      for (const change of changes) await this.workspace.discard(change);
      throw error;
    }
    const changed = changes.filter((change) => change.kind !== 'noop');
    return proposalOf(request, changed.length > 0 ? changed : changes.slice(0, 1));
  }

  /**
   * Hooks, policy and preview, in that order: throws DENIED_HOOK / DENIED_POLICY, else says whether the change
   * is already allowed (by policy or a session grant) or must be asked about.
   */
  async screen(proposal: Proposal, signal?: AbortSignal): Promise<Approval | 'ask'> {
    const verdict = await this.options.hooks?.beforeChange?.(proposal);
    if (verdict && typeof verdict === 'object' && 'deny' in verdict) {
      await this.audit.record(proposal, {
        decision: 'deny',
        decidedBy: 'hook',
        code: 'DENIED_HOOK',
        reason: verdict.deny,
      });
      throw hookRefusal(`this change to ${proposal.files[0]!.path}`, verdict.deny, {
        path: proposal.files[0]!.path,
      });
    }
    // What the checks find, judged with the change rules: a 'deny' refuses, an 'ask' asks whoever else allows.
    const found = await runChecks(this.checks, proposal, { signal });
    proposal.findings = [
      ...found,
      ...this.policy.changeFindings(
        proposal,
        found,
        (file) => file.change.resolved.ruleRelative ?? file.path,
      ),
    ];
    const refusing = proposal.findings.filter((finding) => finding.severity === 'deny');
    if (refusing.length > 0) {
      const refusal = findingsRefusal(proposal, refusing);
      await this.audit.record(proposal, {
        decision: 'deny',
        decidedBy: 'policy',
        code: refusal.code,
        reason: refusal.message,
      });
      throw refusal;
    }
    const asking = proposal.findings.filter((finding) => finding.severity === 'ask');
    // Every file must be allowed; one deny refuses the whole change, one ask asks.
    let allowed = true;
    let allowedBy: PolicyRule | undefined;
    for (const file of proposal.files) {
      const policy = this.policy.evaluate(proposal.tool, file.change.resolved.ruleRelative ?? file.path);
      if (policy.action === 'deny') {
        const refusal = policyRefusal(proposal.tool, file.path, policy.rule);
        await this.audit.record(proposal, {
          decision: 'deny',
          decidedBy: 'policy',
          ...(policy.rule ? { rule: policy.rule } : {}),
          code: refusal.code,
          reason: refusal.message,
        });
        throw refusal;
      }
      if (policy.action !== 'allow') allowed = false;
      else allowedBy ??= policy.rule;
    }
    const screened =
      asking.length > 0
        ? 'ask'
        : allowed
          ? ({ decision: 'policy', decidedBy: 'policy', ...(allowedBy ? { rule: allowedBy } : {}) } as const)
          : this.grantCovering(proposal);
    await this.options.onPreview?.(
      proposal,
      screened === 'ask'
        ? { ask: true, ...(asking.length > 0 ? { askedBy: asking } : {}) }
        : screened.decidedBy === 'policy'
          ? { ask: false, approvedBy: 'policy', ...(screened.rule ? { rule: screened.rule } : {}) }
          : { ask: false, approvedBy: 'session', grant: screened.grant },
    );
    return screened;
  }

  /**
   * Policy for a call that is not a diff (the proxy's cards), in `screen`'s words: DENIED_POLICY when a rule
   * denies the tool on any of the paths it names (with none known, a rule without a path), 'allow' when
   * rules allow it on every one, else 'ask'. The caller audits (recordCall) and asks.
   */
  screenCall(tool: string, paths: string[]): 'allow' | 'ask' {
    const verdicts = (paths.length > 0 ? paths : ['']).map((path) => ({
      path,
      ...this.policy.evaluate(tool, path),
    }));
    const denied = verdicts.find((verdict) => verdict.action === 'deny');
    if (denied) throw policyRefusal(tool, denied.path, denied.rule);
    return verdicts.every((verdict) => verdict.action === 'allow') ? 'allow' : 'ask';
  }

  /**
   * A path a call that is not a diff names, checked as every path is: inside a root and not matching a deny
   * glob (OUTSIDE_ROOT otherwise). Folders are fine here. Returns it relative to its root.
   */
  async checkCallPath(absolute: string): Promise<string> {
    const given = absolute.length > 1 ? absolute.replace(/\/+$/, '') : absolute;
    try {
      return (await this.workspace.guard.resolve(given)).relative;
    } catch (error) {
      // The guard refuses folders only after the root and deny checks: a folder there is inside.
      if (!isEditgateError(error, 'IS_DIRECTORY')) throw error;
      const root = [...this.workspace.guard.roots]
        .sort((a, b) => b.length - a.length)
        .find((candidate) => given === candidate || given.startsWith(`${candidate}${sep}`));
      return root === undefined ? '.' : relative(root, given).split(sep).join('/') || '.';
    }
  }

  /**
   * The before-change hooks for a call that is not a diff, run first as for a change (before policy, grants
   * and the person): DENIED_HOOK, audited, when one denies.
   */
  async vetoCall(call: CallWithoutDiff): Promise<void> {
    const verdict = await this.options.hooks?.beforeCall?.(call);
    if (!verdict || typeof verdict !== 'object' || !('deny' in verdict)) return;
    await this.audit.recordCall(call.tool, call.paths, {
      decision: 'deny',
      decidedBy: 'hook',
      code: 'DENIED_HOOK',
      reason: verdict.deny,
    });
    throw hookRefusal(`this call of ${call.tool}`, verdict.deny, { tool: call.tool });
  }

  /** One audit line for a call that is not a diff: allowed (and by whom) or refused. */
  recordCall(
    tool: string,
    paths: string[],
    outcome: { decision: string; decidedBy: string; code?: string; reason?: string },
  ): Promise<void> {
    return this.audit.recordCall(tool, paths, outcome);
  }

  /** The after-call hooks for a call that is not a diff, once it was carried out: what they said. */
  async afterCall(call: CallWithoutDiff): Promise<string | undefined> {
    const afterCall = this.options.hooks?.afterCall;
    if (!afterCall) return undefined;
    try {
      const said = await afterCall(call);
      return typeof said === 'string' && said.trim() ? said.trim() : undefined;
    } catch (error) {
      // The call is carried out; a failing observer must not turn that into a failure.
      return `after-change hook failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /**
   * Whether a change by `tool` to this file goes through without asking anyone (a before-change hook may
   * still refuse it): policy allows it, a session grant covers it, or the approver says yes to everything.
   * The same judgement `screen` and `decide` make, made before the change exists.
   */
  private passesUnasked(tool: string, resolved: ResolvedPath): boolean {
    const policy = this.policy.evaluate(tool, resolved.ruleRelative ?? resolved.relative).action;
    if (policy !== 'ask') return policy === 'allow';
    return (
      this.session.changeGrant(resolved.absolute) !== null || autoApproverName(this.approver) !== undefined
    );
  }

  /** The session grant that covers every file of the proposal ('all' over 'file'), or 'ask'. */
  private grantCovering(proposal: Proposal): (Approval & { grant: 'file' | 'all' }) | 'ask' {
    const grants = proposal.files.map((file) => this.session.changeGrant(file.change.path));
    if (grants.some((grant) => grant === null)) return 'ask';
    return { decision: 'session', decidedBy: 'session', grant: grants.includes('file') ? 'file' : 'all' };
  }

  /**
   * Hooks, policy, preview and approval, in that order. Throws DENIED_* when the change may not happen.
   * When the person approved their own version, the approval's `edited.proposal` is what to commit; when
   * they accepted part of it, `hunks.proposal`. `wholeOnly`: a caller that cannot write part of the change
   * (the proxy forwards the whole call) says why, and a choice of some hunks is refused with it.
   */
  async decide(
    proposal: Proposal,
    signal?: AbortSignal,
    options: { wholeOnly?: string } = {},
  ): Promise<Approval> {
    const screened = await this.screen(proposal, signal);
    if (screened !== 'ask') return screened;
    const request = approvalRequestFor(proposal, options);
    // A change rule or a check that insists on a person is not answered by an automatic yes.
    const askedBy = (proposal.findings ?? []).filter((finding) => finding.severity === 'ask');
    let approver = this.approver;
    // Set when an automatic yes handed a rule's question on: a refusal for want of a person then says so.
    let handedOnBy: string | undefined;
    if (askedBy.length > 0 && (approver === ALWAYS || autoApproverName(approver) !== undefined)) {
      handedOnBy = approver === ALWAYS ? "approve: 'allow'" : autoApproverName(approver)!;
      const person = personBehind(approver);
      if (!person) {
        const error = ruleAskedNoOne(request, askedBy, handedOnBy);
        await this.audit.recordRefusal(proposal, error);
        throw error;
      }
      approver = person;
    }
    // Only a person (an Approver function) is shown the diff; 'allow' and 'deny' look at nothing.
    if (typeof approver === 'function' && approver !== ALWAYS) await this.refuseUnseen(proposal);
    let decision: Decision;
    let answeredFrom: AnsweredFrom | undefined;
    try {
      decision = await askApprover(approver, request, signal, (from) => {
        answeredFrom = from;
      });
    } catch (caught) {
      let error = caught;
      // The person behind --yes could not be reached (chat -p has no terminal): the rule asked, no one could.
      if (handedOnBy && isEditgateError(error, 'DENIED_NO_APPROVER'))
        error = ruleAskedNoOne(request, askedBy, handedOnBy, error.details.reason);
      // No one could be asked (DENIED_NO_APPROVER), or the front end could not show the change whole
      // (TOO_LARGE): refused before anyone decided. A cancelled call decided nothing.
      if (isEditgateError(error) && error.code !== 'CANCELLED')
        await this.audit.recordRefusal(proposal, error);
      throw error;
    }
    const edits = typeof decision === 'object' && 'edited' in decision ? decision.edited : undefined;
    if (edits) {
      const refused = editRefusal(proposal, edits);
      if (refused !== null) decision = { deny: refused };
    }
    // Part of the change (hunk-decision.ts): checked against what was asked; all of it is a plain approval,
    // none of it a denial with the person's reasons.
    let hunks: FileHunkPlan[] | undefined;
    if (typeof decision === 'object' && 'hunks' in decision) {
      const checked = checkHunkChoices(request, decision.hunks);
      if ('problem' in checked) decision = { deny: checked.problem };
      else {
        const takes = planTakes(checked.files);
        // The person's note goes with whatever the choice comes to.
        const note = decision.reason?.trim();
        if (takes === 'all') decision = note ? { allow: decision.allow, reason: note } : decision.allow;
        else if (takes === 'none')
          decision = rejectedEverything(reportRejected(proposal, checked.files), note);
        else hunks = checked.files;
      }
    }
    const grant = grantOf(decision);
    for (const [index, file] of proposal.files.entries()) {
      // A grant for this file covers the files something was taken from.
      const taken = !hunks || hunks[index]!.accepted.length > 0;
      if (grant === 'file' && taken) this.session.grantFile(file.change.path, file.path);
    }
    if (grant === 'all') this.session.grantAll();
    const reason = denialReason(decision);
    const auto = approver === 'deny' ? "approve: 'deny'" : autoApproverName(approver);
    const insisted = askedBy.length > 0 ? { askedBy: askedBy.map((finding) => finding.source) } : {};
    if (reason !== null) {
      await this.audit.record(proposal, {
        decision: 'deny',
        ...(auto ? { decidedBy: 'auto', auto } : { decidedBy: 'user' }),
        ...insisted,
        ...(answeredFrom ? { answeredFrom } : {}),
        code: 'DENIED_USER',
        reason: reason || undefined,
      });
      throw new EditgateError(
        'DENIED_USER',
        auto
          ? // approve: 'deny' refused it: no person saw it, so the model must not read it as someone's no.
            `Refused without asking anyone: ${reason || `${proposal.files[0]!.path} was not changed`}. Do not retry it; tell the user if the change is needed.${findingsNote(proposal.findings)}`
          : reason
            ? `The user denied this edit: ${reason}${findingsNote(proposal.findings)}`
            : `The user denied this change to ${proposal.files[0]!.path}. Do not retry it as is; ask the user what they want instead.${findingsNote(proposal.findings)}`,
        { path: proposal.files[0]!.path, reason: reason || undefined },
      );
    }
    const approval: Approval = auto
      ? { decision: grant!, decidedBy: 'auto', auto, ...insisted }
      : { decision: grant!, decidedBy: 'user', ...insisted };
    const note = approvalReason(decision);
    if (note) approval.reason = note;
    if (answeredFrom && !auto) approval.answeredFrom = answeredFrom;
    if (hunks) {
      throwIfCancelled(signal);
      approval.hunks = await takeHunks(this.workspace, proposal, hunks, signal);
      carryFindings(proposal, approval.hunks.proposal);
      // The diff of what will be written: only the accepted hunks, diffed again.
      await this.options.onPreview?.(approval.hunks.proposal, {
        ask: false,
        approvedBy: 'user',
        hunks: true,
      });
      return approval;
    }
    if (!edits) return approval;
    throwIfCancelled(signal);
    const revised = await reviseProposal(this.workspace, proposal, edits, signal);
    // Their text equal to the proposed one is a plain approval (their FileChange holds text: nothing to
    // remove).
    if (revised.unifiedDiff === '') return approval;
    approval.edited = revised;
    carryFindings(proposal, revised.proposal);
    // The diff of what will be written, shown again: it is no longer the one the question showed.
    await this.options.onPreview?.(revised.proposal, { ask: false, approvedBy: 'user', edited: true });
    return approval;
  }

  /** Write an approved proposal if every file still is exactly what it was computed from. */
  commit(proposal: Proposal, approval?: Approval, signal?: AbortSignal): Promise<ChangeOutcome> {
    return commitProposal(proposal, approval, {
      workspace: this.workspace,
      audit: this.audit,
      hooks: this.options.hooks,
      sessionLog: this.options.sessionLog,
      verify: (file) => this.workspace.guard.recheck(file.change.resolved),
      signal,
    });
  }

  /**
   * A proposal someone else will write (the proxy forwards it to the server that writes): right before
   * that write, STALE unless the file still has the bytes its diff was made from, and the guard's recheck
   * that the path still leads where it did.
   */
  async recheck(proposal: Proposal): Promise<void> {
    const { resolved, base } = proposal.files[0]!.change;
    const now = await readNow(resolved);
    if ((now?.fingerprint.hash ?? null) !== (base.fingerprint?.hash ?? null)) {
      throw new EditgateError(
        'STALE',
        `${proposal.files[0]!.path} changed after its diff was shown (something else wrote it), so the call was not forwarded and nothing was written. Read the file again, then make the call again.`,
        { path: proposal.files[0]!.path, reason: now === null ? 'deleted' : 'changed' },
      );
    }
    await this.workspace.guard.recheck(resolved);
  }

  /**
   * A write someone else made, settled as editgate's own are (settle.ts): the file compared with what was
   * approved, its old bytes kept for undo, the audit line, the after-change hooks.
   */
  settle(write: WrittenElsewhere): Promise<Settled> {
    return settleWrittenElsewhere(write, {
      workspace: this.workspace,
      audit: this.audit,
      sessionLog: this.options.sessionLog,
      hooks: this.options.hooks,
    });
  }

  /**
   * propose → decide → commit; a no-op is reported without asking or writing. With the person's own
   * version, theirs is committed; their version equal to the file as it is writes nothing.
   */
  async change(request: ChangeRequest): Promise<ChangeOutcome> {
    const proposal = await this.propose(request, { writeAhead: true });
    if (proposal.files[0]!.kind === 'noop') return { proposal };
    let approved = proposal;
    try {
      const approval = await this.decide(proposal, request.signal);
      const revised = approval.edited ?? approval.hunks;
      if (revised) {
        approved = revised.proposal;
        // What the person replaced (files they did not edit keep their change, prepared file and all).
        for (const file of proposal.files) {
          if (!approved.files.some((kept) => kept.change === file.change))
            await this.workspace.discard(file.change);
        }
      }
      if (approved.files[0]!.kind === 'noop') return { proposal: approved, approval };
      throwIfCancelled(request.signal);
      return await this.commit(approved, approval, request.signal);
    } catch (error) {
      await this.discard(approved);
      throw error;
    }
  }

  /**
   * Preview mode: compute and screen the change but write nothing; it waits under a change id for
   * `applyStaged`, which the person approves in their client.
   */
  async stage(request: ChangeRequest): Promise<ChangeOutcome> {
    const proposal = await this.propose(request);
    if (proposal.files[0]!.kind === 'noop') return { proposal };
    try {
      await this.screen(proposal, request.signal);
      // A staged change is approved in the client from what it was shown: it must be shown whole.
      await this.refuseUnseen(proposal);
      throwIfCancelled(request.signal);
    } catch (error) {
      await this.discard(proposal);
      throw error;
    }
    return { proposal, staged: this.staged.stage(proposal) };
  }

  /**
   * Apply a staged change once, if it has not expired and the file is still what its diff was made from.
   * `named`: the file and change hash the apply call gives; a change that is not that one is refused.
   */
  async applyStaged(changeId: string, signal?: AbortSignal, named?: NamedChange): Promise<ChangeOutcome> {
    const proposal = this.staged.take(changeId, named);
    try {
      return await this.commit(proposal, { decision: 'once', decidedBy: 'user' }, signal);
    } catch (error) {
      await this.discard(proposal);
      throw error;
    }
  }

  /** A change whose diff shows only part of it is not put to a person (shown-whole.ts): refused, audited. */
  private async refuseUnseen(proposal: Proposal): Promise<void> {
    const partial = partialDiffIn(proposal);
    if (!partial) return;
    const error = partialDiffError(partial);
    await this.audit.recordRefusal(proposal, error);
    throw error;
  }

  /** A proposal that will not be committed (denied, failed, cancelled): remove what it left on disk. */
  async discard(proposal: Proposal): Promise<void> {
    for (const file of proposal.files) await this.workspace.discard(file.change);
  }
}

/**
 * Every hunk rejected: a denial. With reasons, they reach the model with where each hunk was proposed
 * (and the person's note after them); without any, a plain "no".
 */
function rejectedEverything(files: FileHunks[], note?: string): Decision {
  const reasons = files.some((file) => file.rejected.some((hunk) => hunk.reason));
  if (!reasons && !note) return 'deny';
  const lines = reasons
    ? [
        'they rejected every hunk of it, so nothing was written. Their reasons, hunk by hunk:',
        ...rejectedHunkLines(files),
      ]
    : ['they rejected every hunk of it, so nothing was written.'];
  if (note) lines.push(`Their note: ${note}`);
  return { deny: lines.join('\n') };
}

/** A policy rule's refusal, in the same words for a change (`screen`) and a call (`screenCall`). */
function policyRefusal(tool: string, path: string, rule: PolicyRule | undefined): EditgateError {
  return new EditgateError(
    'DENIED_POLICY',
    `Policy does not allow ${tool}${path ? ` on ${path}` : ''}${rule?.path ? ` (rule: ${rule.path} → deny)` : ''}. Do not retry this change; tell the user if it is needed.`,
    { tool, path: path || undefined, rule },
  );
}

/**
 * A proposal made from another (a person's version, some of its hunks) is reported with what was found in
 * the one they were asked about, its secrets masked the same way.
 */
function carryFindings(from: Proposal, to: Proposal): void {
  if (from.findings) to.findings = from.findings;
  keepSecrets(to, secretsOf(from));
}

/**
 * DENIED_NO_APPROVER for a change a rule or check asks a person about, when an automatic yes (--yes,
 * approve: 'allow') was all there was, or the person behind it could not be reached (`unreached`: why).
 */
function ruleAskedNoOne(
  request: ApprovalRequest,
  askedBy: readonly Finding[],
  automatic: string,
  unreached?: unknown,
): EditgateError {
  const rules = `${sourcesOf(askedBy)} ${askedBy.length === 1 ? 'asks' : 'ask'} a person about this change (${askedBy.map(findingLine).join('; ')})`;
  const nobody =
    typeof unreached === 'string'
      ? `, ${automatic} answers for no one, and no person could be asked (${unreached})`
      : `, and ${automatic} answers for no one`;
  return noApproverError(
    request,
    `${rules}${nobody}`,
    'To let it through, the user can make the change where they can answer the question (without --yes, at a terminal), or change the rule in editgate.config.json.',
  );
}

/** The rules and checks that found something, named for a question or a refusal: "rule:lockfile, secret:…". */
function sourcesOf(findings: readonly Finding[]): string {
  return [...new Set(findings.map((finding) => finding.source))].join(', ');
}

/**
 * The refusal of a change a change rule or a check denies: which, and what each found (where, never a
 * secret's value: findings hold none).
 */
function findingsRefusal(proposal: Proposal, refusing: readonly Finding[]): EditgateError {
  // What the refusing rules are about (the syntax error, the diagnostic), so the model can mend that.
  const found = (proposal.findings ?? []).filter((finding) => finding.kind !== 'rule');
  return new EditgateError(
    'DENIED_POLICY',
    {
      happened: `Policy does not allow this change to ${proposal.files[0]!.path} (${sourcesOf(refusing)}): ${refusing.map(findingLine).join('; ')}. Nothing was changed.${findingsNote(found)}`,
      advice:
        'Do not retry it as is; change what the rule refuses, or tell the user if the change is needed.',
    },
    {
      tool: proposal.tool,
      path: proposal.files[0]!.path,
      rule: sourcesOf(refusing),
      findings: [...found, ...refusing],
    },
  );
}

/** A before-change hook's refusal of a change or a call, in one wording. */
function hookRefusal(what: string, reason: string, details: Record<string, unknown>): EditgateError {
  return new EditgateError('DENIED_HOOK', `A before-change hook refused ${what}: ${reason}`, {
    ...details,
    reason,
  });
}
