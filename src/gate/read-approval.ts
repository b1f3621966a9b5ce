import { EditgateError, isEditgateError } from '../core/errors.js';
import { pathInRoot } from '../core/root-named.js';
import type { ResolvedPath } from '../workspace/guard.js';
import {
  type Approver,
  askApprover,
  autoApproverName,
  type Decision,
  denialReason,
  grantOf,
  withFirstFileAliases,
} from './approval.js';
import type { AuditLog } from './audit.js';
import type { SessionGrants } from './grants.js';
import type { PolicyEngine } from './policy.js';

/**
 * Permission to read a file, asked before it is read at all: by a read tool, or to compute a change to it
 * (a diff shows the file). Policy decides first ('read' rules: those for every tool and for the tools that
 * only read); when it asks, the person is asked "Read src/x.ts?" and may grant this file or all reads for
 * the session. Whoever may change a file may read it.
 */
export class ReadApproval {
  constructor(
    private readonly policy: PolicyEngine,
    private readonly grants: SessionGrants,
    private readonly approver: Approver | 'deny',
    private readonly audit: AuditLog,
  ) {}

  /**
   * Throws DENIED_POLICY or DENIED_USER when `resolved` may not be read. `forChange`: the read is there to
   * compute a change (the question says so).
   */
  async ensure(
    tool: string,
    resolved: ResolvedPath,
    options: { forChange: boolean; signal?: AbortSignal },
  ): Promise<void> {
    const path = resolved.relative;
    // Rules are written against the configured roots (resolved.ruleRelative when these are narrowed).
    const verdict = this.policy.evaluateRead(resolved.ruleRelative ?? path);
    if (verdict.action === 'allow' || this.grants.coversRead(resolved.absolute)) return;
    if (verdict.action === 'deny') {
      const rule = verdict.rule?.path ? ` (rule: ${verdict.rule.path} → deny)` : '';
      // A change is refused for what it needs: the file must be read to show its diff.
      const refusal = new EditgateError(
        'DENIED_POLICY',
        options.forChange
          ? `Policy does not allow ${tool} on ${path}: reading it is denied${rule}, and a change is only made to a file that can be read and shown. Do not retry; tell the user if the change is needed.`
          : `Policy does not allow reading ${path}${rule}. Do not retry; tell the user if you need it.`,
        { path, rule: verdict.rule },
      );
      await this.audit.recordRead(tool, path, {
        decidedBy: 'policy',
        ...(verdict.rule ? { rule: verdict.rule } : {}),
        code: refusal.code,
        reason: refusal.message,
      });
      throw refusal;
    }
    const shown = pathInRoot(path, resolved.rootName);
    const decision = await this.ask(
      tool,
      path,
      withFirstFileAliases({
        tool,
        question: options.forChange ? `Read ${shown} to preview the change?` : `Read ${shown}?`,
        files: [
          {
            path,
            ...(resolved.rootName !== undefined && { root: resolved.rootName }),
            kind: 'read',
            diff: { hunks: [], added: 0, removed: 0, identical: true },
            unifiedDiff: '',
            stats: { added: 0, removed: 0 },
          },
        ],
      }),
      options.signal,
    );
    // A read has no text to edit: an edited answer counts for its grant alone.
    const grant = grantOf(decision);
    if (grant === 'file') this.grants.grantReadFile(resolved.absolute, path);
    if (grant === 'all') this.grants.grantAllReads();
    const reason = denialReason(decision);
    if (reason !== null) {
      const auto = this.approver === 'deny' ? "approve: 'deny'" : autoApproverName(this.approver);
      await this.audit.recordRead(tool, path, {
        ...(auto ? { decidedBy: 'auto', auto } : { decidedBy: 'user' }),
        code: 'DENIED_USER',
        ...(reason ? { reason } : {}),
      });
      throw new EditgateError(
        'DENIED_USER',
        auto
          ? // approve: 'deny' refused it: no person saw it, so the model must not read it as someone's no.
            `Refused without asking anyone: ${reason || `${path} was not read`}. Do not retry it; tell the user if the file is needed.`
          : reason
            ? `The user denied reading ${path}: ${reason}`
            : `The user denied reading ${path}.`,
        { path, reason: reason || undefined },
      );
    }
  }

  /** askApprover, with a refusal before anyone decided (no one to ask) written to the audit log. */
  private async ask(
    tool: string,
    path: string,
    request: Parameters<typeof askApprover>[1],
    signal?: AbortSignal,
  ): Promise<Decision> {
    try {
      return await askApprover(this.approver, request, signal);
    } catch (error) {
      if (isEditgateError(error) && error.code !== 'CANCELLED')
        await this.audit.recordRead(tool, path, {
          decidedBy: 'editgate',
          code: error.code,
          reason: error.message,
        });
      throw error;
    }
  }
}
