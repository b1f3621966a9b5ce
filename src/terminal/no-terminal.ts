import type { ApprovalRequest, Approver } from '../gate/approval.js';

/**
 * The approver for when no person can be asked (no terminal on input or output): it never blocks and
 * never guesses, it refuses, and the message says how to approve next time. The reason reaches the model,
 * which can pass it on to its user.
 */
export function denyWithoutTerminal(): Approver {
  return (request) => ({ deny: noTerminalMessage(request) });
}

export function noTerminalMessage(request: Pick<ApprovalRequest, 'path' | 'kind'>): string {
  const what =
    request.kind === 'create'
      ? `Creating ${request.path}`
      : request.kind === 'delete'
        ? `Deleting ${request.path}`
        : request.kind === 'read'
          ? `Reading ${request.path}`
          : `The edit to ${request.path}`;
  const outcome = request.kind === 'read' ? 'the file was not read' : 'nothing was changed';
  return (
    `${what} needs approval, and there is no terminal to ask, so ${outcome}. ` +
    'To approve without asking, run editgate with --yes, or add a policy rule in editgate.config.json ' +
    'that allows this path.'
  );
}
