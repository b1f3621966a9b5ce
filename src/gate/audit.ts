import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EditgateError } from '../core/errors.js';
import type { Finding } from '../core/findings.js';
import type { Fingerprint } from '../workspace/fingerprint.js';
import type { AnsweredFrom } from './approval.js';
import type { PolicyRule } from './policy.js';
import type { Proposal } from './proposal.js';

/** One line of the audit log (JSON Lines): who changed what, when, and on whose say-so. */
export interface AuditEntry {
  time: string;
  tool: string;
  path: string;
  kind: string;
  /** How the change was allowed or refused: 'once' | 'file' | 'all' | 'session' | 'policy' | 'deny' | ... */
  decision: string;
  /**
   * Who decided: 'user' (a person answered), 'auto' (a yes without asking: `auto` names it, e.g. --yes),
   * 'policy' (`rule` names the rule), 'session' (`grant`: a yes for this file or for all, given earlier),
   * 'hook' (a before-change hook refused), 'editgate' (refused before anyone could be asked: `code` says
   * why, e.g. DENIED_NO_APPROVER when there was no one to ask).
   */
  decidedBy: string;
  /** The policy rule that allowed or denied. */
  rule?: PolicyRule;
  /** The session grant that allowed: 'file' or 'all'. */
  grant?: 'file' | 'all';
  /** The auto-approver that allowed, e.g. '--yes'. */
  auto?: string;
  /**
   * The change rules and checks that insisted on a person (their findings' sources), when a grant, an
   * automatic yes or an allow rule would have let the change through without one.
   */
  askedBy?: string[];
  /** What the checks and change rules found in the change (secrets masked: never a value). */
  findings?: Finding[];
  /** A refusal's error code (DENIED_USER, DENIED_POLICY, DENIED_HOOK, DENIED_NO_APPROVER, ...). */
  code?: string;
  /** A person's answer that came over a network (the review page): the address, browser and way. */
  answeredFrom?: AnsweredFrom;
  stats?: { added: number; removed: number };
  hashBefore?: string | null;
  hashAfter?: string | null;
  reason?: string;
  /**
   * Who wrote the file when editgate did not (gate/settle.ts): the proxied server, a chat's shell command,
   * an agent's own edit tool. Absent: editgate wrote it.
   */
  writer?: string;
  /**
   * A write someone else made: false when the file was left other than the bytes that were approved
   * (`reason` says so); absent when nothing was approved (a shell command's change) or editgate wrote it.
   */
  asApproved?: boolean;
  /**
   * A change set (one decision, one commit, all or nothing for several files) is one line: path, kind,
   * stats and hashes above are its first file's, and `files` lists every file with its own.
   */
  files?: AuditedFile[];
}

/** One file of a change set's audit line. */
export interface AuditedFile {
  path: string;
  kind: string;
  stats?: { added: number; removed: number };
  hashBefore: string | null;
  hashAfter: string | null;
}

export async function appendAudit(logPath: string, entry: AuditEntry): Promise<void> {
  await mkdir(dirname(logPath), { recursive: true });
  // One write per line with O_APPEND: concurrent writers never interleave within a line.
  await appendFile(logPath, `${JSON.stringify(entry)}\n`, 'utf8');
}

/**
 * The audit log of a gate: one line for every change written or refused (a change set's files in that one
 * line, so the log never holds part of a set). Without a path, nothing is logged.
 */
export class AuditLog {
  constructor(private readonly logPath: string | undefined) {}

  async record(
    proposal: Proposal,
    outcome: Pick<
      AuditEntry,
      'decision' | 'decidedBy' | 'rule' | 'grant' | 'auto' | 'askedBy' | 'code' | 'reason' | 'answeredFrom'
    > & {
      written?: (Fingerprint | null)[];
    },
  ): Promise<void> {
    if (!this.logPath) return;
    const files: AuditedFile[] = proposal.files.map((file, i) => ({
      path: file.path,
      kind: file.kind,
      stats: file.stats,
      hashBefore: file.change.base.fingerprint?.hash ?? null,
      hashAfter: outcome.written?.[i]?.hash ?? null,
    }));
    const { written: _written, ...said } = outcome;
    const findings = proposal.findings ?? [];
    await this.recordFiles(proposal.tool, files, { ...said, ...(findings.length > 0 ? { findings } : {}) });
  }

  /**
   * The one line format of a change, whoever wrote it: editgate's own commit (`record`) and the writes
   * gate/settle.ts records for others (with `writer`) both end here.
   */
  async recordFiles(
    tool: string,
    files: AuditedFile[],
    outcome: Pick<
      AuditEntry,
      | 'decision'
      | 'decidedBy'
      | 'rule'
      | 'grant'
      | 'auto'
      | 'askedBy'
      | 'code'
      | 'reason'
      | 'writer'
      | 'asApproved'
      | 'findings'
      | 'answeredFrom'
    >,
  ): Promise<void> {
    if (!this.logPath) return;
    const first = files[0]!;
    await appendAudit(this.logPath, {
      time: new Date().toISOString(),
      tool,
      path: first.path,
      kind: first.kind,
      decision: outcome.decision,
      decidedBy: outcome.decidedBy,
      ...(outcome.rule ? { rule: outcome.rule } : {}),
      ...(outcome.grant ? { grant: outcome.grant } : {}),
      ...(outcome.auto ? { auto: outcome.auto } : {}),
      ...(outcome.askedBy && outcome.askedBy.length > 0 ? { askedBy: outcome.askedBy } : {}),
      ...(outcome.code ? { code: outcome.code } : {}),
      ...(outcome.answeredFrom ? { answeredFrom: outcome.answeredFrom } : {}),
      ...(outcome.writer ? { writer: outcome.writer } : {}),
      ...(outcome.asApproved === undefined ? {} : { asApproved: outcome.asApproved }),
      stats: first.stats,
      hashBefore: first.hashBefore,
      hashAfter: first.hashAfter,
      reason: outcome.reason,
      ...(files.length > 1 ? { files } : {}),
      ...(outcome.findings && outcome.findings.length > 0 ? { findings: outcome.findings } : {}),
    });
  }

  /**
   * One line for a call that is not a diff (the proxy's cards): allowed, and by whom, or refused. `paths`
   * are the ones it names, joined.
   */
  async recordCall(
    tool: string,
    paths: string[],
    outcome: Pick<AuditEntry, 'decision' | 'decidedBy' | 'rule' | 'grant' | 'code' | 'reason'>,
  ): Promise<void> {
    if (!this.logPath) return;
    await appendAudit(this.logPath, {
      time: new Date().toISOString(),
      tool,
      path: paths.join(', '),
      kind: 'call',
      ...outcome,
    });
  }

  /** The line for a change editgate refused before anyone decided (no one to ask, a diff not shown whole). */
  recordRefusal(proposal: Proposal, error: EditgateError): Promise<void> {
    return this.record(proposal, {
      decision: 'deny',
      decidedBy: 'editgate',
      code: error.code,
      reason: error.message,
    });
  }

  /**
   * One line for a refused read: read policy or the person refused reading a file (for a read tool, or to
   * compute a change to it), so no change was ever proposed.
   */
  async recordRead(
    tool: string,
    path: string,
    outcome: Pick<AuditEntry, 'decidedBy' | 'rule' | 'auto' | 'code' | 'reason'>,
  ): Promise<void> {
    if (!this.logPath) return;
    await appendAudit(this.logPath, {
      time: new Date().toISOString(),
      tool,
      path,
      kind: 'read',
      decision: 'deny',
      ...outcome,
    });
  }
}
