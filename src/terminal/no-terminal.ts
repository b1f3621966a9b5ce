import type { ApprovalRequest, Approver } from '../gate/approval.js';

/**
 * The approver for when no person can be asked (no terminal on input or output): it never blocks and
 * never guesses, it refuses, and the message says how to approve next time. The reason reaches the model,
 * which can pass it on to its user.
 */
export function denyWithoutTerminal(configFile = 'editgate.config.json'): Approver {
  return (request) => ({ deny: noTerminalMessage(request, configFile) });
}

/** `configFile`: the config file a policy rule would go in, as the person named it (--config) or the default. */
export function noTerminalMessage(
  request: Pick<ApprovalRequest, 'path' | 'kind'>,
  configFile = 'editgate.config.json',
): string {
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
    `To approve without asking, run editgate with --yes, or add a policy rule in ${configFile} ` +
    'that allows this path.'
  );
}
