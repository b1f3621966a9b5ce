/**
 * Who the proxy asks, and how. With --approve auto: the client, through MCP elicitation (a form with the
 * diff, or the card); else, for writes, the web review page when one is running for the root (the CLI finds
 * it); else a refusal that says why and what would let it through: never an allow, and never the terminal.
 * A client starts the proxy with piped stdio, so /dev/tty is the client's own screen: a question written
 * there is painted over and its keys go to either reader (#28). The terminal is asked only with
 * --approve terminal. With --approve web, writes are asked on the web review page (the CLI opens it) and
 * cards, which the page cannot show (they are not diffs), through the client's elicitation, else refused
 * with advice: web does not give the terminal back either.
 */

import type { ElicitRequestFormParams, ElicitResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isEditgateError } from '../core/errors.js';
import { findingsLines } from '../core/finding-words.js';
import { pathInRoot } from '../core/root-named.js';
import {
  type ApprovalQuestion,
  type Approver,
  type Decision,
  isReadQuestion,
  withFirstFileAliases,
} from '../gate/approval.js';
import { type NoApproverSubject, noApproverError, refuseUnreadAnswer } from '../gate/no-approver.js';
import { diffTooLongToShowError } from '../gate/shown-whole.js';
import { HUNK_REASON_DESCRIPTION, hunkBoxes, hunkFields, withHunkChoices } from '../tools/hunk-boxes.js';
import { currentCall } from './call-context.js';
import { type CardDecision, type CardRequest, cardText } from './card.js';
import { visibleText } from './visible-text.js';

/**
 * --approve: auto (elicitation, else a running review page, else refuse), or one channel only, web (writes
 * on the review page), or policy rules alone.
 */
export const APPROVE_MODES = ['auto', 'elicit', 'terminal', 'web', 'policy'] as const;
export type ApproveMode = (typeof APPROVE_MODES)[number];

/** The person at the terminal editgate proxy was started from (built by the CLI from src/terminal). */
export interface TerminalChannel {
  change: Approver;
  card(request: CardRequest): Promise<CardDecision>;
  /** Something the person must know that needs no answer (a write that differs from its diff). */
  notify(message: string): void;
}

export type Elicit = (
  params: ElicitRequestFormParams,
  options: { relatedRequestId?: RequestId; signal?: AbortSignal; timeout: number },
) => Promise<ElicitResult>;

export interface ChannelOptions {
  mode: ApproveMode;
  /** Whether the client can show a form (its capabilities, known once it has initialized). */
  clientCanElicit: () => boolean;
  elicit: Elicit;
  terminal?: TerminalChannel;
  /**
   * The review page's approver, looked up at each question (the CLI finds or opens it: the proxy does not
   * import the web layer): with --approve web, the page it opened; with auto, an `editgate review` running
   * for the root at that moment, if any (so one started after the proxy is used).
   */
  web?: () => Promise<Approver | undefined>;
  /** The upstream server as the person knows it. */
  server: string;
  timeoutMs: number;
}

export type ChannelName = 'elicit' | 'terminal' | 'web' | 'none';

export interface Approvals {
  /** Where questions about writes (or, with 'card', about other calls) go, and why, for the log. */
  channel(subject?: 'write' | 'card'): { name: ChannelName; why: string };
  /** The gate's Approver: a diff, or a read the policy asks about. DENIED_NO_APPROVER when no one can be. */
  change: Approver;
  /** DENIED_NO_APPROVER when no one can be asked. */
  card(request: CardRequest): Promise<CardDecision>;
}

/**
 * The longest diff the form carries, as for editgate's own MCP server. A longer one is not cut: a person is
 * never asked to approve what they cannot see (gate/shown-whole.ts), so it is refused without asking.
 */
const MAX_DIFF_LINES = 200;
const MAX_DIFF_CHARS = 16_000;

const CHANGE_CHOICES = [
  'Allow once',
  'Allow this file for the session',
  'Allow all edits this session',
  'Deny',
];
const READ_CHOICES = [
  'Allow once',
  'Allow reading this file for the session',
  'Allow reading any file this session',
  'Deny',
];

/** The form: the decision, a reason, and for a change whose hunks can be chosen, a box per hunk. */
function form(
  message: string,
  choices: string[],
  boxes: ReturnType<typeof hunkBoxes> = {},
): ElicitRequestFormParams {
  const several = Object.keys(boxes).length > 0;
  return {
    mode: 'form',
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: { type: 'string', title: 'Decision', enum: choices },
        reason: {
          type: 'string',
          title: 'Reason (optional)',
          description: several
            ? HUNK_REASON_DESCRIPTION
            : 'Told to the assistant, e.g. why you denied this or what to do instead',
          maxLength: 2000,
        },
        ...boxes,
      },
      required: ['decision'],
    },
  };
}

const VERB = { create: 'create', modify: 'change', delete: 'delete', read: 'read' } as const;

/**
 * The diff as the form shows it: every character visible, never cut (`refuseIfTooLongForForm` refuses
 * first). A proxied call writes one file.
 */
function shownDiff(request: ApprovalQuestion): string {
  return visibleText(request.files[0]!.unifiedDiff.trimEnd());
}

/**
 * A change whose diff is longer than the form carries: TOO_LARGE, saying how to split it or where a long diff
 * can be seen whole. The gate keeps this refusal as it is (not a person's denial) and writes nothing.
 */
function refuseIfTooLongForForm(request: ApprovalQuestion): void {
  if (isReadQuestion(request)) return;
  const text = shownDiff(request);
  const diff = { lines: text === '' ? 0 : text.split('\n').length, chars: text.length };
  if (diff.lines <= MAX_DIFF_LINES && diff.chars <= MAX_DIFF_CHARS) return;
  throw diffTooLongToShowError(request.files[0]!.path, diff, {
    lines: MAX_DIFF_LINES,
    chars: MAX_DIFF_CHARS,
    instead:
      'ask the user to review long diffs at the terminal (editgate proxy --approve terminal) or in the browser (--approve web)',
  });
}

/** The question with the diff: what, where, how big, how editgate knows, then the whole diff. */
export function changeMessage(server: string, request: ApprovalQuestion): string {
  const call = currentCall();
  const where = `${visibleText(server, { oneLine: true })} › ${visibleText(request.tool, { oneLine: true })}`;
  const file = request.files[0]!;
  const path = visibleText(pathInRoot(file.path, file.root), { oneLine: true });
  if (file.kind === 'read') {
    const question = `${where}: ${visibleText(request.question ?? `read ${file.path}?`)}`;
    return call?.reads ? question : `${question}\nThe proxy reads ${path} to show the diff of the change.`;
  }
  const lines = [
    `${where} wants to ${VERB[file.kind]} ${path} (+${file.stats.added} -${file.stats.removed})`,
  ];
  if (call?.basis) lines.push(`What it writes is known from ${visibleText(call.basis)}.`);
  for (const note of call?.notes ?? []) lines.push(visibleText(note));
  for (const line of findingsLines(request.findings)) lines.push(visibleText(line));
  if (file.unifiedDiff) {
    lines.push('', shownDiff(request));
  } else {
    lines.push('', 'The text stays the same (see above for what changes).');
  }
  return lines.join('\n');
}

function reasonOf(answer: ElicitResult): string {
  const reason = answer.content?.reason;
  return typeof reason === 'string' ? reason.trim() : '';
}

/** Decline, cancel, Deny or anything unexpected is a no; the reason, if given, goes to the model. */
function refusal(answer: ElicitResult): { deny: string } | 'deny' {
  const reason = reasonOf(answer);
  if (answer.action === 'cancel')
    return { deny: reason || 'the user dismissed the question without answering' };
  return reason ? { deny: reason } : 'deny';
}

function changeDecision(answer: ElicitResult, choices: string[]): Decision {
  if (answer.action !== 'accept') return refusal(answer);
  const index = choices.indexOf(String(answer.content?.decision));
  if (index === 0) return 'once';
  if (index === 1) return 'file';
  if (index === 2) return 'all';
  return refusal(answer);
}

function cardChoices(request: CardRequest): string[] {
  return request.sessionGrant
    ? ['Allow once', `Allow ${request.tool} for the session`, 'Deny']
    : ['Allow once', 'Deny'];
}

function cardDecision(answer: ElicitResult, choices: string[]): CardDecision {
  if (answer.action !== 'accept') return refusal(answer);
  const chosen = String(answer.content?.decision);
  if (chosen === choices[0]) return 'once';
  if (choices.length === 3 && chosen === choices[1]) return 'tool';
  return refusal(answer);
}

function failedQuestion(error: unknown, timeoutMs: number): { deny: string } {
  const text = error instanceof Error ? error.message : String(error);
  if (/timed? ?out/i.test(text)) {
    return {
      deny: `no answer to the question within ${Math.round(timeoutMs / 1000)} seconds, so nothing was done`,
    };
  }
  return { deny: `the question could not be shown (${text}), so nothing was done` };
}

/** Why --approve auto has no one to ask: the client cannot, and the terminal is the client's. */
const AUTO_NO_ONE =
  'the client does not support elicitation, no review page is running for the root, and the terminal belongs to the client, so the proxy does not ask there';

/** Why --approve web has no one to ask about a call that is not a file write. */
const WEB_NO_ONE_FOR_CARDS =
  'the web review page shows only file writes, the client does not support elicitation, and the terminal belongs to the client, so the proxy does not ask there';

/** What would let a call through when the proxy has no one to ask (it has no preview mode). */
const PROXY_ADVICE =
  'To let it through, the user can approve writes in the browser (run the proxy with --approve web, or start `editgate review` for the root, which the proxy looks for at each question), ask at the terminal with --approve terminal (only when the client leaves the terminal free: not inside a full-screen client), use a client that supports MCP elicitation, or add a policy rule that allows it to editgate.config.json (and trust the file with `editgate trust`).';

/** No one to ask: DENIED_NO_APPROVER, decided by the gate's rule (gate/no-approver.ts). */
function noOne(subject: NoApproverSubject, mode: ApproveMode, why: string): never {
  throw noApproverError(
    subject,
    mode === 'policy'
      ? 'no rule in editgate.config.json allows it, and this proxy runs with --approve policy'
      : why,
    PROXY_ADVICE,
  );
}

export function createApprovals(options: ChannelOptions): Approvals {
  const channel = (subject: 'write' | 'card' = 'write'): { name: ChannelName; why: string } => {
    const canElicit = options.clientCanElicit();
    if (options.mode === 'policy') return { name: 'none', why: 'chosen with --approve policy' };
    if (options.mode === 'web') {
      if (subject === 'write') {
        return options.web
          ? { name: 'web', why: 'chosen with --approve web' }
          : { name: 'none', why: 'the web review page is not open' };
      }
      // The page shows diffs; a card (a call that is not a recognised write) goes to the client's form. Not
      // to the terminal: a client started the proxy, so the terminal is the client's screen (#28).
      if (canElicit) return { name: 'elicit', why: 'calls other than writes are asked through the client' };
      return { name: 'none', why: WEB_NO_ONE_FOR_CARDS };
    }
    if (options.mode === 'terminal') {
      return options.terminal
        ? { name: 'terminal', why: 'chosen with --approve terminal' }
        : { name: 'none', why: 'there is no terminal to ask at' };
    }
    if (canElicit) return { name: 'elicit', why: 'the client supports elicitation' };
    if (options.mode === 'elicit') return { name: 'none', why: 'the client does not support elicitation' };
    // auto without elicitation: never the terminal, which belongs to the client that started the proxy.
    if (subject === 'write' && options.web) {
      return {
        name: 'web',
        why: 'the client has no elicitation; writes go to an editgate review page running for the root, looked for at each question',
      };
    }
    return { name: 'none', why: AUTO_NO_ONE };
  };

  /** A decline or cancel sooner than a person can read is the client's: no one was asked. */
  const ask = async (params: ElicitRequestFormParams, subject: NoApproverSubject): Promise<ElicitResult> => {
    const call = currentCall();
    const sent = performance.now();
    const answer = await options.elicit(params, {
      relatedRequestId: call?.requestId,
      signal: call?.signal,
      timeout: options.timeoutMs,
    });
    refuseUnreadAnswer(subject, answer.action, performance.now() - sent, PROXY_ADVICE);
    return answer;
  };

  return {
    channel,
    async change(request, context) {
      const { name, why } = channel();
      if (name === 'web') {
        const page = await options.web!();
        if (!page)
          noOne(
            request,
            options.mode,
            options.mode === 'web' ? 'the web review page is not open' : AUTO_NO_ONE,
          );
        return askOnPage(page, request, context?.signal ?? currentCall()?.signal);
      }
      if (name === 'terminal') return options.terminal!.change(request);
      if (name === 'none') noOne(request, options.mode, why);
      refuseIfTooLongForForm(request);
      const choices = isReadQuestion(request) ? READ_CHOICES : CHANGE_CHOICES;
      // A box per hunk when the hunks can be chosen (the server can be made to write part of the call).
      const hunks = hunkFields(request);
      try {
        const answer = await ask(
          form(changeMessage(options.server, request), choices, hunkBoxes(request, hunks)),
          request,
        );
        return withHunkChoices(changeDecision(answer, choices), answer.content ?? {}, hunks);
      } catch (error) {
        if (isEditgateError(error, 'DENIED_NO_APPROVER')) throw error;
        return failedQuestion(error, options.timeoutMs);
      }
    },
    async card(request) {
      const { name, why } = channel('card');
      if (name === 'terminal') return options.terminal!.card(request);
      if (name === 'none') noOne({ tool: request.tool }, options.mode, why);
      const choices = cardChoices(request);
      try {
        return cardDecision(await ask(form(cardText(request), choices), { tool: request.tool }), choices);
      } catch (error) {
        if (isEditgateError(error, 'DENIED_NO_APPROVER')) throw error;
        return failedQuestion(error, options.timeoutMs);
      }
    },
  };
}

/**
 * A write asked on the web review page. The upstream server writes what the model's call says, so a
 * person's own version of the new text cannot be what is written: the page is given the diff without the
 * texts, which offers no editing (unchanged regions then stay collapsed), and an edited answer that comes
 * anyway is a denial that says so.
 */
async function askOnPage(
  web: Approver,
  request: ApprovalQuestion,
  signal: AbortSignal | undefined,
): Promise<Decision> {
  const files = request.files.map(({ texts: _texts, ...shown }) => shown);
  const decision = await web(withFirstFileAliases({ ...request, files }), signal ? { signal } : {});
  if (typeof decision === 'object' && 'edited' in decision) {
    return {
      deny: 'the user answered with their own version of the new text, which a proxied server cannot write (it writes what the call says), so nothing was done. Ask the user what to write',
    };
  }
  return decision;
}
