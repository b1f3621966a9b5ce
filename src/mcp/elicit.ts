import type { ElicitRequestFormParams, ElicitResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { findingsLines } from '../core/finding-words.js';
import { markInvisible } from '../core/invisible.js';
import { pathInRoot } from '../core/root-named.js';
import {
  type ApprovalFile,
  type ApprovalQuestion,
  type Approver,
  type Decision,
  isReadQuestion,
} from '../gate/approval.js';
import { refuseUnreadAnswer } from '../gate/no-approver.js';
import { diffTooLongToShowError } from '../gate/shown-whole.js';
import {
  HUNK_REASON_DESCRIPTION,
  type HunkField,
  hunkBoxes,
  hunkFields,
  withHunkChoices,
} from '../tools/hunk-boxes.js';
import { currentCall } from './call-context.js';

/**
 * The longest diff the form carries. A longer one is not cut: a person is never asked to approve what they
 * cannot see, so such a change is refused without asking, saying how to split it (gate/shown-whole.ts).
 */
export const MAX_PROMPT_DIFF_LINES = 200;
export const MAX_PROMPT_DIFF_CHARS = 16_000;

/**
 * The choices are plain enum values that read well as they are: every client that supports form
 * elicitation can show a plain string enum, while titled options (oneOf) and enumNames are not universal.
 */
const CHANGE_CHOICES = {
  once: 'Allow once',
  file: 'Allow this file for the session',
  all: 'Allow all edits this session',
  deny: 'Deny',
} as const;

const READ_CHOICES = {
  once: 'Allow once',
  file: 'Allow reading this file for the session',
  all: 'Allow reading any file this session',
  deny: 'Deny',
} as const;

type Choices = typeof CHANGE_CHOICES | typeof READ_CHOICES;

/**
 * The form: the decision, a reason field unless the client could not send it left empty (`withReason`), and
 * a box per hunk.
 */
function formSchema(
  choices: Choices,
  withReason: boolean,
  request?: ApprovalQuestion,
  hunks: readonly HunkField[] = [],
): ElicitRequestFormParams['requestedSchema'] {
  const boxes = hunks.length > 0 ? hunkBoxes(request!, hunks) : {};
  return {
    type: 'object',
    properties: {
      decision: {
        type: 'string',
        title: 'Decision',
        enum: [choices.once, choices.file, choices.all, choices.deny],
        // Accept alone allows once, as a client's own edit prompt does (Claude Code took 5 keys without
        // it). A client that sends an accept without the field is still refused (decisionFromAnswer).
        default: choices.once,
      },
      ...(withReason
        ? {
            reason: {
              type: 'string' as const,
              title: 'Reason (optional)',
              description:
                hunks.length > 0
                  ? HUNK_REASON_DESCRIPTION
                  : 'Told to the assistant, e.g. why you denied the change or what to do instead',
              maxLength: 2000,
            },
          }
        : {}),
      ...boxes,
    },
    // The reason stays optional: a person who only allows types nothing.
    required: ['decision'],
  };
}

/** The diffs the form shows, every file's (a change set has several), whole. */
function diffsOf(request: ApprovalQuestion): string[] {
  return request.files.map((file) => file.unifiedDiff.trimEnd()).filter((diff) => diff !== '');
}

/** How long the diffs are, when more than the form carries; null when they fit. */
export function tooLongForPrompt(request: ApprovalQuestion): { lines: number; chars: number } | null {
  const text = diffsOf(request).join('\n');
  const lines = text === '' ? 0 : text.split('\n').length;
  return lines > MAX_PROMPT_DIFF_LINES || text.length > MAX_PROMPT_DIFF_CHARS
    ? { lines, chars: text.length }
    : null;
}

const VERB = { create: 'create', modify: 'modify', delete: 'delete', read: 'read' } as const;

/**
 * The prompt text: what, where, how big, what the person must know (notes), and every diff, whole. Every
 * control and invisible character in it is spelled out (core/invisible.ts): the client shows it as it is.
 */
export function promptMessage(request: ApprovalQuestion): string {
  const [first, ...others] = request.files;
  const path = pathInRoot(first!.path, first!.root);
  if (first!.kind === 'read') {
    return markInvisible(`${request.question ?? `Read ${path}?`}\n\n${request.tool} needs to read ${path}.`);
  }
  const parts: string[] = [];
  // Which rule or check asked, and what each found (secrets masked), before the diff they are about.
  const found = findingsLines(request.findings);
  if (others.length === 0) {
    parts.push(
      `${request.tool} wants to ${VERB[first!.kind]} ${path} (+${first!.stats.added} -${first!.stats.removed})`,
    );
    if (found.length > 0) parts.push(found.join('\n'));
    if (first!.note) parts.push(first!.note);
    if (first!.unifiedDiff) parts.push(first!.unifiedDiff.trimEnd());
  } else {
    const added = request.files.reduce((sum, file) => sum + file.stats.added, 0);
    const removed = request.files.reduce((sum, file) => sum + file.stats.removed, 0);
    parts.push(`${request.tool} wants to change ${request.files.length} files (+${added} -${removed})`);
    if (found.length > 0) parts.push(found.join('\n'));
    for (const file of request.files) {
      const what = `${pathInRoot(file.path, file.root)} (${file.kind}, +${file.stats.added} -${file.stats.removed})`;
      parts.push(file.note ? `${what}: ${file.note}` : what);
      if (file.unifiedDiff) parts.push(file.unifiedDiff.trimEnd());
    }
  }
  return markInvisible(parts.join('\n\n'), { keepCrlf: true });
}

/**
 * The person's answer as a gate Decision. Decline and cancel are denials; the reason reaches the model. An
 * allow with hunk boxes unticked allows those ticked (`{ allow, hunks }`), the reason given as the reason
 * for each hunk left out; a box the client did not send counts as ticked (its default).
 */
export function decisionFromAnswer(
  answer: ElicitResult,
  kind: ApprovalFile['kind'],
  hunks: readonly HunkField[] = [],
): Decision {
  return withHunkChoices(wholeDecision(answer, kind), answer.content ?? {}, hunks);
}

function wholeDecision(answer: ElicitResult, kind: ApprovalFile['kind']): Decision {
  const content = answer.content ?? {};
  const reason = typeof content.reason === 'string' ? content.reason.trim() : '';
  if (answer.action === 'cancel') {
    return { deny: reason || 'the user dismissed the approval prompt without answering' };
  }
  if (answer.action === 'decline') return reason ? { deny: reason } : 'deny';
  const choices = kind === 'read' ? READ_CHOICES : CHANGE_CHOICES;
  switch (content.decision) {
    case choices.once:
      return reason ? { allow: 'once', reason } : 'once';
    case choices.file:
      return reason ? { allow: 'file', reason } : 'file';
    case choices.all:
      return reason ? { allow: 'all', reason } : 'all';
    case choices.deny:
      return reason ? { deny: reason } : 'deny';
    default:
      return { deny: reason || 'the user accepted the prompt without choosing to allow the change' };
  }
}

/**
 * What lets a change through when the client declined the question itself (`claude -p`, `codex exec`): not
 * preview mode, since such a client runs apply_change without showing anyone the diff when it is allowed.
 */
export const ONE_SHOT_ADVICE =
  'To let it through, the user can run the client interactively, where it shows the question; approve in the browser with --approve web; or add a policy rule that allows it to editgate.config.json (and trust the file with `editgate trust`).';

export type Elicit = (
  params: ElicitRequestFormParams,
  options: { relatedRequestId?: RequestId; signal?: AbortSignal; timeout: number },
) => Promise<ElicitResult>;

/**
 * An Approver that asks the person through the client's elicitation form. The request goes out as part of
 * the tool call being served (so Streamable HTTP sends it on that call's stream, and cancelling the call
 * cancels the question). No answer in time is a denial that says so.
 */
export function elicitationApprover(
  elicit: Elicit,
  timeoutMs: number,
  { withReason = true, withHunkBoxes = true }: { withReason?: boolean; withHunkBoxes?: boolean } = {},
): Approver {
  return async (request: ApprovalQuestion) => {
    const read = isReadQuestion(request);
    const paths = request.files.map((file) => file.path).join(', ');
    const tooLong = read ? null : tooLongForPrompt(request);
    if (tooLong) {
      throw diffTooLongToShowError(paths, tooLong, {
        lines: MAX_PROMPT_DIFF_LINES,
        chars: MAX_PROMPT_DIFF_CHARS,
        instead: 'ask the user to review long diffs in the browser (editgate mcp --approve web)',
      });
    }
    const call = currentCall();
    if (call) call.status = `waiting for the user to approve ${paths}`;
    const sent = performance.now();
    const hunks = withHunkBoxes ? hunkFields(request) : [];
    let answer: ElicitResult;
    try {
      answer = await elicit(
        {
          mode: 'form',
          message: promptMessage(request),
          requestedSchema: formSchema(read ? READ_CHOICES : CHANGE_CHOICES, withReason, request, hunks),
        },
        { relatedRequestId: call?.requestId, signal: call?.signal, timeout: timeoutMs },
      );
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (/timed? ?out/i.test(text)) {
        return {
          deny: `no answer to the approval prompt within ${Math.round(timeoutMs / 1000)} seconds, so nothing was written`,
        };
      }
      return { deny: `the approval prompt failed (${text}), so nothing was written` };
    } finally {
      if (call) call.status = `running ${request.tool} on ${paths}`;
    }
    // A decline or cancel no person could have made: no one was asked (DENIED_NO_APPROVER), not "the user
    // denied".
    refuseUnreadAnswer(request, answer.action, performance.now() - sent, ONE_SHOT_ADVICE);
    return decisionFromAnswer(answer, request.files[0]!.kind, hunks);
  };
}
