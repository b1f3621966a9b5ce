import { isReadQuestion } from '../core/approval-question.js';
import { EditgateError } from '../core/errors.js';
import { markInvisible } from '../core/invisible.js';
import { pathInRoot } from '../core/root-named.js';
import type { ApprovalQuestion, Approver } from '../gate/approval.js';

/**
 * The approver for when no person can be asked (no terminal on input or output): it never blocks and
 * never guesses, it refuses with DENIED_NO_APPROVER (no one said no: no one was asked), and the message
 * says how to approve next time. The reason reaches the model, which can pass it on to its user. With
 * `refused`, the diff of what was refused is written there first (standard error, so a CI log shows it),
 * its invisible characters spelled out.
 */
export function denyWithoutTerminal(
  configFile = 'editgate.config.json',
  refused?: { write(text: string): unknown },
  command = 'editgate',
): Approver {
  return (request: ApprovalQuestion) => {
    if (refused && !isReadQuestion(request)) {
      const diff = markInvisible(request.files.map((file) => file.unifiedDiff).join(''), { keepCrlf: true });
      refused.write(
        `editgate: refused (no terminal to ask), this change:\n${diff}${diff.endsWith('\n') ? '' : '\n'}`,
      );
    }
    throw new EditgateError('DENIED_NO_APPROVER', noTerminalMessage(request, configFile, command), {
      path: request.files[0]!.path,
      reason: 'no-terminal',
    });
  };
}

/**
 * `configFile`: the config file a policy rule would go in, as the person named it (--config) or the default.
 * `command`: what to run again with --yes ('editgate', 'editgate chat -p').
 */
export function noTerminalMessage(
  request: Pick<ApprovalQuestion, 'files'>,
  configFile = 'editgate.config.json',
  command = 'editgate',
): string {
  const [first, ...others] = request.files;
  const path = pathInRoot(first!.path, first!.root);
  const what =
    others.length > 0
      ? `The change to ${request.files.length} files (${request.files.map((file) => pathInRoot(file.path, file.root)).join(', ')})`
      : first!.kind === 'create'
        ? `Creating ${path}`
        : first!.kind === 'delete'
          ? `Deleting ${path}`
          : first!.kind === 'read'
            ? `Reading ${path}`
            : `The edit to ${path}`;
  const outcome = first!.kind === 'read' ? 'the file was not read' : 'nothing was changed';
  return (
    `${what} needs approval, and there is no terminal to ask, so ${outcome}. ` +
    `To approve without asking, run ${command} with --yes, or add a policy rule in ${configFile} ` +
    'that allows this path.'
  );
}
