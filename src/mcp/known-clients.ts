import type { ApprovalMode } from './approval-mode.js';

/**
 * The MCP clients whose behaviour editgate was measured in (issue #28), told apart by the `clientInfo.name`
 * they give in initialize. A name is the client's own word, not proof; it only chooses advice and the
 * safer of two modes, never grants anything.
 */
export type KnownClient = 'claude-code' | 'codex' | 'gemini-cli' | 'opencode';

const LABELS: Record<KnownClient, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  opencode: 'OpenCode',
};

/** Gemini CLI names itself `gemini-cli-mcp-client` (some versions add the server's name after it). */
export function knownClient(name: string | undefined): KnownClient | undefined {
  const lower = (name ?? '').toLowerCase();
  if (lower === 'claude-code') return 'claude-code';
  if (lower === 'codex-mcp-client') return 'codex';
  if (lower.startsWith('gemini-cli-mcp-client')) return 'gemini-cli';
  if (lower === 'opencode') return 'opencode';
  return undefined;
}

export function clientLabel(client: KnownClient): string {
  return LABELS[client];
}

/**
 * Clients that never show the person an MCP tool's result or arguments: preview mode's apply_change would
 * be approved (or, as OpenCode allows MCP tools by default, run) without anyone seeing the diff.
 */
export function approvesBlind(client: KnownClient | undefined): boolean {
  return client === 'opencode';
}

/**
 * Whether the client's form can be sent with an optional text field left empty. Codex 0.171's form cannot:
 * Enter in an empty text field does nothing, and Enter on a choice moves on to the next field rather than
 * sending, so a form with a reason field could only be sent with a reason typed (seen in a pty, and in its
 * source: tui/src/bottom_pane/mcp_server_elicitation.rs). Its form is sent by Enter on its last choice.
 */
export function submitsEmptyTextField(client: KnownClient | undefined): boolean {
  return client !== 'codex';
}

/**
 * Whether the client's form can carry a yes/no box per hunk (#30) and still be answered with one key. Codex
 * 0.171's cannot: Enter on a field that is not the last moves on to the next one (see submitsEmptyTextField),
 * so every box would cost the person an Enter before the form is sent. It gets the decision alone, and a
 * change is taken whole there; the review page (`--approve web`) takes part of one.
 */
export function answersOneFieldForms(client: KnownClient | undefined): boolean {
  return client === 'codex';
}

/**
 * What the person is told at start-up and with the first result when their client cannot show editgate's
 * approval prompt with the diff; undefined when it can, or when the mode asks no one in the client.
 */
export function clientAdvice(
  client: KnownClient | undefined,
  approval: Pick<ApprovalMode, 'mode' | 'unavailable'>,
): string | undefined {
  const { mode } = approval;
  if (mode === 'web' || mode === 'deny' || (mode === 'elicit' && !approval.unavailable)) return undefined;
  if (client === 'gemini-cli') {
    return `Gemini CLI cannot show editgate's approval prompt (it has no MCP elicitation): ${
      mode === 'preview'
        ? 'each change comes back as a proposal whose diff Gemini CLI shows as Markdown, and Gemini CLI asks before every call, reads included'
        : 'only what an "allow" rule in editgate.config.json covers is changed, and everything else is refused'
    }. To review each change as a diff before it is written, restart editgate with --approve web (a review page in the browser).`;
  }
  if (client === 'opencode') {
    return `OpenCode cannot show editgate's approval prompt (it has no MCP elicitation) and does not show MCP results to you, so no change can be approved there with its diff in view: ${
      mode === 'preview'
        ? 'apply_change would write changes nobody has seen'
        : 'only what an "allow" rule in editgate.config.json covers is changed, and everything else is refused'
    }. To review each change as a diff before it is written, restart editgate with --approve web (a review page in the browser).`;
  }
  return undefined;
}

/**
 * What lets a refused change through in a client that approves blind: not preview mode, whose apply_change
 * such a client would run unseen. Undefined elsewhere (the gate's own advice stands).
 */
export function noApproverAdvice(client: KnownClient | undefined): string | undefined {
  if (!approvesBlind(client)) return undefined;
  return `To let it through, the user can restart editgate with --approve web and approve in the browser, or add a policy rule that allows it to editgate.config.json (and trust the file with \`editgate trust\`). Preview mode would not help: ${clientLabel(client!)} does not show the diff.`;
}
