import { approvesBlind, clientLabel, type KnownClient } from './known-clients.js';

/** What --approve accepts. */
export const APPROVE_CHOICES = ['auto-detect', 'elicit', 'preview', 'policy', 'deny', 'web'] as const;
export type ApproveChoice = (typeof APPROVE_CHOICES)[number];

/** How one client session's changes are approved. */
export interface ApprovalMode {
  /** web: a person approves on the web review page (the approver is given in McpServeOptions.webApprover). */
  mode: 'elicit' | 'preview' | 'policy' | 'deny' | 'web';
  /** elicit was asked for but the client cannot show a form: every change is refused. */
  unavailable: boolean;
  /** One line for the log and the instructions: what was chosen and why. */
  why: string;
}

/**
 * Whether the client can show an elicitation form. An empty `elicitation: {}` is the older spelling of
 * form support; a client declaring only `url` cannot show our form.
 */
export function supportsFormElicitation(capabilities: unknown): boolean {
  if (!capabilities || typeof capabilities !== 'object') return false;
  const elicitation = (capabilities as { elicitation?: unknown }).elicitation;
  if (!elicitation || typeof elicitation !== 'object' || Array.isArray(elicitation)) return false;
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}

export function chooseApprovalMode(
  choice: ApproveChoice,
  clientCapabilities: unknown,
  client?: KnownClient,
): ApprovalMode {
  const canElicit = supportsFormElicitation(clientCapabilities);
  switch (choice) {
    case 'auto-detect':
      if (canElicit)
        return { mode: 'elicit', unavailable: false, why: 'auto-detected: the client supports elicitation' };
      // Preview there would have apply_change approved blind: the policy alone decides, and no one is
      // asked (the person is told to restart with --approve web, known-clients.ts).
      if (approvesBlind(client))
        return {
          mode: 'policy',
          unavailable: false,
          why: `auto-detected: ${clientLabel(client!)} has no elicitation and does not show MCP results to the person, so preview would approve changes unseen`,
        };
      return {
        mode: 'preview',
        unavailable: false,
        why: 'auto-detected: the client does not support elicitation',
      };
    case 'elicit':
      // Falling back to preview here could write unreviewed changes in a client set to auto-approve tool
      // calls (the person chose elicit for a reason), so the change tools refuse instead.
      return canElicit
        ? { mode: 'elicit', unavailable: false, why: 'chosen with --approve elicit' }
        : {
            mode: 'elicit',
            unavailable: true,
            why: 'chosen with --approve elicit, but the client does not support elicitation, so every change is refused',
          };
    default:
      return { mode: choice, unavailable: false, why: `chosen with --approve ${choice}` };
  }
}
