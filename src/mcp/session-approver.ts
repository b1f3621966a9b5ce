import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Approver } from '../gate/approval.js';
import { nobodyToAsk } from '../gate/no-approver.js';
import type { ApprovalMode } from './approval-mode.js';
import { elicitationApprover } from './elicit.js';
import {
  answersOneFieldForms,
  type KnownClient,
  noApproverAdvice,
  submitsEmptyTextField,
} from './known-clients.js';
import type { McpServeOptions } from './options.js';

/** Who answers a session's approval questions, and whether that is the client's elicitation prompt. */
export interface SessionApprover {
  approve: Approver;
  /**
   * The approver asks the client: it reads the call being served (currentCall) to send its question with
   * that call, so each call must run inside its context (call-runner.ts).
   */
  elicits: boolean;
}

/**
 * The approver for a session's approval mode: the web review page when it runs, the client's elicitation
 * prompt when it can show one, and otherwise no one, which refuses every question the policy leaves open.
 */
export function sessionApprover(
  approval: ApprovalMode,
  options: McpServeOptions,
  server: Server,
  known: KnownClient | undefined,
): SessionApprover {
  if (approval.mode === 'web' && options.webApprover !== undefined)
    return { approve: options.webApprover, elicits: false };
  if (approval.mode === 'elicit' && !approval.unavailable)
    return {
      approve: elicitationApprover(
        (params, request) => server.elicitInput(params, request),
        options.approvalTimeoutMs,
        // Codex: a form with only the decision, which Enter sends (its empty reason field could not be, and
        // every hunk box would cost an Enter).
        { withReason: submitsEmptyTextField(known), withHunkBoxes: !answersOneFieldForms(known) },
      ),
      elicits: true,
    };
  return { approve: noOneToAsk(approval, noApproverAdvice(known)), elicits: false };
}

/**
 * The approver of a mode where no person can be asked: every question is refused as DENIED_NO_APPROVER
 * (gate/no-approver.ts), saying why no one could be asked in this mode. No one said no.
 */
function noOneToAsk(approval: ApprovalMode, advice: string | undefined): Approver {
  return nobodyToAsk(() => {
    if (approval.unavailable)
      return "this client cannot show editgate's approval prompt (it does not support MCP elicitation), and editgate was started with --approve elicit";
    switch (approval.mode) {
      case 'policy':
        return approval.why.startsWith('auto-detected')
          ? `no policy rule allows it, and only the policy decides here (${approval.why})`
          : 'no policy rule allows it, and this server runs with --approve policy: only what an "allow" rule in editgate.config.json covers is done';
      case 'deny':
        return 'this editgate server is read-only (--approve deny)';
      case 'web':
        return 'it needs approval on the web review page, which is not running';
      default:
        return "the policy asks first, and this client cannot show editgate's approval prompt (preview mode)";
    }
  }, advice);
}
