import { type Decision, denialReason, grantOf } from '../../gate/approval.js';
import type { ToolCallInfo } from '../loop/turn.js';
import type { PreviewReason } from '../session/chat-session.js';
import type { AgentToolResult } from '../tools/agent-tool.js';

/**
 * What the chat knows about the tool call running now, and the words its transcript line ends with: who
 * allowed or refused it (the person on the card, a policy rule, a grant earlier this session, --yes) and
 * what came of it.
 */
export interface CallState {
  call: ToolCallInfo;
  /** The diff segment is in the transcript (change tools). */
  previewed: boolean;
  reason?: PreviewReason;
  decision?: Decision;
}

export function firstSentence(message: string): string {
  const line = message.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** A decision given on another front end, as the transcript says it. */
export function decisionWords(decision: Decision): string {
  const grant = grantOf(decision);
  if (grant === null) {
    const reason = denialReason(decision);
    return reason ? `✗ No: ${reason}` : '✗ No';
  }
  if (typeof decision === 'object' && 'reason' in decision) return `✓ Yes: ${decision.reason}`;
  if (typeof decision === 'object' && 'hunks' in decision) return '✓ Yes to the hunks you chose';
  if (typeof decision === 'object') return '✓ Yes, with your own version of the new text';
  return grant === 'once'
    ? '✓ Yes'
    : grant === 'file'
      ? '✓ Yes, and this file for the session'
      : '✓ Yes to every edit this session';
}

const DECIDED_BY: Record<string, string> = {
  once: 'you: once',
  file: 'you: this file',
  all: 'you: all edits this session',
};

export function changeOutcome(
  result: AgentToolResult,
  state: { reason?: PreviewReason; decision?: Decision },
): string {
  if (result.ok) {
    if (result.summary === 'no change') return 'no change';
    const by =
      state.reason === 'policy'
        ? 'policy rule'
        : state.reason === 'session'
          ? 'allowed earlier this session'
          : state.reason === 'yes'
            ? '--yes'
            : state.reason === 'edited'
              ? 'you: your own version'
              : state.reason === 'hunks'
                ? 'you: the hunks you chose'
                : typeof state.decision === 'string'
                  ? (DECIDED_BY[state.decision] ?? 'you')
                  : state.decision && 'reason' in state.decision
                    ? `${DECIDED_BY[state.decision.allow] ?? 'you'}, with your note`
                    : state.decision && 'hunks' in state.decision
                      ? 'you: the hunks you chose'
                      : 'you';
    return `applied (${by})`;
  }
  if (result.code === 'DENIED_USER') {
    const reason = state.decision === undefined ? undefined : denialReason(state.decision);
    return reason ? `denied (you): ${reason}` : 'denied (you)';
  }
  if (result.code === 'STALE')
    return 'not applied: the file changed on disk after its diff was made; the model was told to read it again';
  if (result.code === 'DENIED_NO_APPROVER')
    return 'not applied (no one to ask: --yes or a policy rule allows it)';
  return `not applied (${result.code}): ${firstSentence(result.happened ?? result.message)}`;
}

export function commandOutcome(result: AgentToolResult, state: { decision?: Decision }): string {
  if (result.code === 'DENIED_USER') {
    const reason = state.decision === undefined ? undefined : denialReason(state.decision);
    return reason ? `not run (you): ${reason}` : 'not run (you)';
  }
  if (result.code === 'DENIED_POLICY') return 'not run (policy rule)';
  if (result.code === 'DENIED_NO_APPROVER')
    return 'not run (no one to ask: --yes or a policy rule allows it)';
  return result.summary;
}
