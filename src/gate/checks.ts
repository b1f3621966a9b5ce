/**
 * The one place where checks look at a proposed change before anyone is asked (issue #32): each check is
 * given the proposal and returns what it found (core/findings.ts). The gate runs them all in `screen`, then
 * policy's change rules judge the proposal and the findings together (policy.ts), so a finding of severity
 * 'ask' asks a person even past a grant, `--yes` or an allow rule, and one of severity 'deny' refuses.
 * A new kind of check (the syntax delta, a language server's diagnostics) is one more entry in
 * BUILT_IN_CHECKS; a library caller adds its own with the gate's `checks` option.
 */
import { isEditgateError, throwIfCancelled } from '../core/errors.js';
import type { Finding } from '../core/findings.js';
import { prepareSecretCheck } from './secret-check.js';

import type { Proposal } from './proposal.js';
import { secretFindings } from './secret-check.js';
import { prepareSyntaxCheck, syntaxErrorFindings } from './syntax-check.js';

export interface CheckContext {
  /** The call's signal: a check that takes time (a language server) stops when it fires. */
  signal?: AbortSignal;
}

/** A check on a proposed change: what it found, every file of the proposal at once. */
export type ChangeCheck = (proposal: Proposal, context: CheckContext) => Finding[] | Promise<Finding[]>;

/** The checks every gate runs, in order, before the ones a caller adds. */
export const BUILT_IN_CHECKS: readonly ChangeCheck[] = [secretFindings, syntaxErrorFindings];

/**
 * Start loading what the built-in checks need for a change to `path` (secretlint's rules, the file's grammar):
 * a few hundred milliseconds cold, paid once per process. Called when a file is read, since an edit follows
 * a read, so the load happens while the model thinks rather than inside the first edit's call (#28: it was
 * most of the first edit_file's time inside every MCP client); and again when a change is proposed, so it
 * overlaps computing the change. Failures are left to the checks themselves to report.
 */
export function prepareChecksFor(path: string): void {
  prepareSecretCheck();
  prepareSyntaxCheck(path);
}

/**
 * Every check's findings, in the order of the checks. The checks run at once (a slow one does not wait for
 * the others). A check that fails has found nothing it can stand behind: that is itself shown ('info'), so
 * a person sees that a check did not run, and the change is judged without it.
 */
export async function runChecks(
  checks: readonly ChangeCheck[],
  proposal: Proposal,
  context: CheckContext,
): Promise<Finding[]> {
  const found = await Promise.all(
    checks.map(async (check, index): Promise<Finding[]> => {
      try {
        return await check(proposal, context);
      } catch (error) {
        // A cancelled call decides nothing: the cancellation is the answer, not a failed check.
        if (isEditgateError(error, 'CANCELLED')) throw error;
        const name = check.name || `check ${index + 1}`;
        return [
          {
            kind: 'rule',
            path: proposal.path,
            message: `${name} failed, so it found nothing: ${error instanceof Error ? error.message : String(error)}`,
            severity: 'info',
            source: `check:${name}`,
          },
        ];
      }
    }),
  );
  throwIfCancelled(context.signal);
  return found.flat();
}

/** The strongest thing findings ask of the gate: 'deny' over 'ask' over 'info' ('info' when none). */
export function strongestSeverity(findings: readonly Finding[]): Finding['severity'] {
  if (findings.some((finding) => finding.severity === 'deny')) return 'deny';
  if (findings.some((finding) => finding.severity === 'ask')) return 'ask';
  return 'info';
}
