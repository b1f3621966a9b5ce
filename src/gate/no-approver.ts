/**
 * "No one could be asked" as its own outcome (DENIED_NO_APPROVER), the same on every face: no approver, an
 * approver known not to reach a person (an MCP server in policy mode, a proxy with no way to ask), or an
 * elicitation answered faster than a person can read it. It is no one's no, so the model must never be told
 * that the user denied anything; the message says what would let such a change through.
 */
import { EditgateError } from '../core/errors.js';
import { pathInRoot } from '../core/root-named.js';
import type { ApprovalQuestion, Approver } from './approval.js';

/**
 * An elicitation declined or cancelled sooner than this after it was sent was answered by the client, not
 * by a person. Clients that cannot show a form (`claude -p`, `codex exec`) decline every elicitation in under
 * a millisecond; a person needs far longer just to see a prompt appear (a simple visual reaction takes about
 * 150-250 ms, and reading a diff longer still), so no person's answer comes in under 50 ms, while a local
 * client's round trip does with room to spare.
 */
export const FASTER_THAN_A_PERSON_MS = 50;

/** Whether an answer that came `elapsedMs` after the question was sent came from no person. */
export function answeredFasterThanAPerson(elapsedMs: number): boolean {
  return elapsedMs < FASTER_THAN_A_PERSON_MS;
}

/**
 * An elicitation's answer: DENIED_NO_APPROVER when it declined or cancelled the question sooner than a person
 * could have read it (the client answered, not a person); nothing otherwise.
 */
export function refuseUnreadAnswer(
  request: NoApproverSubject,
  action: 'accept' | 'decline' | 'cancel',
  elapsedMs: number,
  advice?: string,
): void {
  if (action === 'accept' || !answeredFasterThanAPerson(elapsedMs)) return;
  const when = elapsedMs < 1 ? 'in under a millisecond' : `after ${Math.round(elapsedMs)} ms`;
  throw noApproverError(
    request,
    `the client ${action === 'decline' ? 'declined' : 'cancelled'} the approval question ${when}, faster than a person can read it: it answers questions itself, as claude -p and codex exec do`,
    advice,
  );
}

/** What would let such a change through: said with every refusal for lack of someone to ask. */
export const NO_APPROVER_ADVICE =
  'To let it through, the user can add a policy rule that allows it to editgate.config.json (and trust the file with `editgate trust`), use preview mode (--approve preview: changes wait for the user to apply them), or approve in the browser with --approve web.';

/**
 * The refusal of `request` because no one could be asked; `why` says why no one could (a clause: "this
 * client cannot show editgate's approval prompt").
 */
export function noApproverError(
  request: NoApproverSubject,
  why: string,
  advice: string = NO_APPROVER_ADVICE,
): EditgateError {
  const first = request.files?.[0];
  const path = first === undefined ? undefined : pathInRoot(first.path, first.root);
  const read = first?.kind === 'read';
  const what = read ? `Reading ${path}` : `${request.tool}${path === undefined ? '' : ` on ${path}`}`;
  const outcome = read ? 'the file was not read' : 'nothing was changed';
  return new EditgateError(
    'DENIED_NO_APPROVER',
    `${what} needs approval, and no one could be asked (${why}), so ${outcome}. No one said no: do not tell the user they denied it. ${advice} Do not retry it as is; tell the user.`,
    { tool: request.tool, ...(first === undefined ? {} : { path: first.path }), reason: why },
  );
}

/** What was to be asked about: a change or a read (an ApprovalQuestion), or a call that names no file. */
export type NoApproverSubject = Pick<ApprovalQuestion, 'tool'> & Partial<Pick<ApprovalQuestion, 'files'>>;

/**
 * An approver known not to reach a person: asked, it refuses with DENIED_NO_APPROVER, saying `why(request)`
 * and `advice` (default NO_APPROVER_ADVICE).
 */
export function nobodyToAsk(why: (request: ApprovalQuestion) => string, advice?: string): Approver {
  return (request) => {
    throw noApproverError(request, why(request), advice);
  };
}
