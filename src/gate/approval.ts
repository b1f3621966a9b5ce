import type { Diff } from '../core/diff.js';
import { cancelledError, isEditgateError } from '../core/errors.js';
import type { Finding } from '../core/findings.js';
import type { Fingerprint } from '../workspace/fingerprint.js';
import type { Proposal, ProposedFile } from './proposal.js';
import { maskSecretsIn, maskSecretsInDiff, maskSecretsInValue, secretsOf } from './secret-check.js';

/**
 * What a person (or program) is asked, as every face inside editgate reads it: the files, each whole. A
 * change to one file has one entry, a change set (one call that changes several files, issue #16) one per
 * file, in a stable order. A read question (policy can require permission to read a file before a change to
 * it is even computed) has one entry of kind 'read', with an empty diff, and the `question` to show instead.
 */
export interface ApprovalQuestion {
  tool: string;
  /** Never empty. */
  files: ApprovalFile[];
  /** The question to ask, e.g. "Read src/x.ts to preview the change?" (set for a read question). */
  question?: string;
  /** The tool call's input, for showing the call on one line. */
  input?: Record<string, unknown>;
  /**
   * What the checks and the change rules found in the change, every file's (core/findings.ts; each file's
   * own are also in its ApprovalFile.findings), shown with the question. A secret is in it masked, never
   * its value. Absent when nothing was found.
   */
  findings?: Finding[];
}

/**
 * The first file's fields beside `files`, as an approver read them when `files` was only there for a
 * change set. They equal `files[0]`'s, and stay for approvers written outside editgate; nothing inside
 * editgate reads them (its faces take an ApprovalQuestion).
 */
export interface FirstFileAliases {
  /** @deprecated Read `files[0].path` (every file: `files`). Path relative to the workspace root, '/'-separated. */
  path: string;
  /** @deprecated Read `files[0].root`. With several roots: the short name of the root `path` is in. */
  root?: string;
  /** @deprecated Read `files[0].kind` ('read' for a read question). */
  kind: ApprovalFile['kind'];
  /** @deprecated Read `files[0].diff`. */
  diff: Diff;
  /** @deprecated Read `files[0].unifiedDiff`. */
  unifiedDiff: string;
  /** @deprecated Read `files[0].stats`. */
  stats: { added: number; removed: number };
  /** @deprecated Read `files[0].texts`. */
  texts?: { before: string; after: string };
  /** @deprecated Read `files[0].note` (each file has its own). */
  note?: string;
  /** @deprecated Read `files[0].base`. */
  base?: ApprovalBase;
  /** @deprecated Read `files[0].wholeOnly`. */
  wholeOnly?: string;
}

/**
 * What an approver is asked: an ApprovalQuestion, with the first file's fields also beside `files`
 * (deprecated; see FirstFileAliases).
 */
export interface ApprovalRequest extends ApprovalQuestion, FirstFileAliases {}

/** The request an approver gets for `question`: its first file's fields copied beside `files`. */
export function withFirstFileAliases(question: ApprovalQuestion): ApprovalRequest {
  const first = question.files[0];
  if (!first) throw new Error('an approval question names at least one file');
  const request: ApprovalRequest = {
    ...question,
    path: first.path,
    kind: first.kind,
    diff: first.diff,
    unifiedDiff: first.unifiedDiff,
    stats: first.stats,
  };
  if (first.root !== undefined) request.root = first.root;
  if (first.texts) request.texts = first.texts;
  if (first.note) request.note = first.note;
  if (first.base) request.base = first.base;
  if (first.wholeOnly) request.wholeOnly = first.wholeOnly;
  return request;
}

// A question about reading a file rather than a change to it: core's rule, so the terminal (which may import
// only gate's types) reads it from the same place.
export { isReadQuestion } from '../core/approval-question.js';

/**
 * Where a change's file is and which version of it the diff was made from, so a front end that keeps the
 * question open (the web review page) can tell, while the person decides, that the file changed and the
 * change can no longer be written. The gate checks again under the lock before writing, whatever a front
 * end concludes.
 */
export interface ApprovalBase {
  /** Canonical absolute path (with several roots, inside its own root). */
  absolutePath: string;
  /** The version the change was computed from (a content hash, or a huge file's stat token); null when
   * the file did not exist. */
  fingerprint: Fingerprint | null;
}

/**
 * One file of a change as a person judges it: the one shape every face shows (a proposal's file is this,
 * with the workspace's change behind it: gate/proposal.ts ProposedFile).
 */
export interface ApprovalFile {
  path: string;
  /** With several roots: the short name of the root `path` is in. */
  root?: string;
  /** 'read': permission to read the file, in a read question (its diff is empty). */
  kind: 'create' | 'modify' | 'delete' | 'read';
  diff: Diff;
  unifiedDiff: string;
  stats: { added: number; removed: number };
  /** Old and new text when held in memory (absent for streamed huge files), so a view can expand
   * unchanged regions. */
  texts?: { before: string; after: string };
  /** What the person must know about this file's change (e.g. that it is large, or how its diff is
   * shown). Always shown with the diff. */
  note?: string;
  /** The file this change was computed from (absent for a read question). */
  base?: ApprovalBase;
  /**
   * Why this file's hunks cannot be accepted one by one (a deletion, a huge streamed file, an undo, a
   * change set that deletes a file, a file someone else writes): it is taken whole or not at all. Absent
   * when they can (gate/hunk-decision.ts).
   */
  wholeOnly?: string;
  /** What was found in this file's change (see ApprovalQuestion.findings). */
  findings?: Finding[];
}

/**
 * once: this change only; file: this file for the rest of the session; all: every change this session;
 * deny / { deny: reason }: refuse, the reason reaches the model.
 * { allow, edited }: allowed as `allow` says, but with the person's own version of the new text
 * (workspace-relative path -> the text to write instead of the proposed one); the gate writes theirs and
 * the model is told exactly what the person changed.
 * { allow, hunks }: allowed in part (gate/hunk-decision.ts): per file (its path as in the request), the
 * hunks of its diff to write (`accept`, 0-based indexes into that file's `diff.hunks`) and those not to,
 * each with an optional reason for the model (`reject`). A file left out of `hunks` is taken whole; a hunk
 * of a named file that is neither accepted nor rejected is rejected without a reason. Nothing of a file
 * accepted: it is left as it is; nothing accepted at all: a denial with the reasons. An optional `reason`
 * is the person's note on the whole answer ("yes to these, and ..."), told to the model as `{ allow, reason }`'s.
 */
export type Decision =
  | 'once'
  | 'file'
  | 'all'
  | 'deny'
  | { deny: string }
  | { allow: 'once' | 'file' | 'all'; edited: Record<string, string> }
  | { allow: 'once' | 'file' | 'all'; hunks: HunkChoices; reason?: string }
  /** Allowed as `allow` says, with the person's note for the model (e.g. an MCP elicitation's reason). */
  | { allow: 'once' | 'file' | 'all'; reason: string };

/** Per file (its path as in the request): which hunks of its diff to write and which not, and why not. */
export type HunkChoices = {
  [path: string]: { accept: number[]; reject?: { hunk: number; reason?: string }[] };
};

/** A decision that takes part of a change, hunk by hunk (see Decision). */
export type HunkDecision = Extract<Decision, { hunks: HunkChoices }>;

/** The person's own version of the new text, with the grant they gave (see Decision). */
export type EditedDecision = Extract<Decision, { edited: Record<string, string> }>;

/**
 * Who decides. The gate always passes `context`; `context.signal` (present when the call can be cancelled)
 * fires when the call is cancelled: an approver that can take its question back (close a prompt, withdraw
 * an elicitation) should; its answer no longer counts either way. An approver whose answers come over a
 * network (the review page) tells `context.answeredFrom` where each came from, before it answers: the
 * audit line records it.
 */
export type Approver = (request: ApprovalRequest, context?: ApproverContext) => Decision | Promise<Decision>;

export interface ApproverContext {
  signal?: AbortSignal;
  answeredFrom?: (from: AnsweredFrom) => void;
}

/** Where a person's answer came from, when it came over a network (the review page): for the audit line. */
export interface AnsweredFrom {
  /** The address the answer was sent from (the browser's, as the server saw it). */
  address: string;
  /** The browser's User-Agent, as it said (cut to 200 characters). */
  userAgent?: string;
  /** How it was answered: 'review page' (signed in with the page's link) or 'change link' (one change's). */
  via: 'review page' | 'change link';
}

const AUTO_NAME = Symbol('editgate.autoApprover');
const PERSON_BEHIND = Symbol('editgate.personBehind');

/**
 * An approver that says yes to every change without asking anyone (the CLI's and chat's --yes, the gate's
 * `approve: 'allow'`). `name` is how the record names it: approvals it gives say `decidedBy: 'auto'` and
 * `auto: name`, so an audit line or a result tells "nobody was asked" from a person's yes. `person`: who
 * is asked when a change rule or a check insists on a person (policy.ts, checks.ts), which no automatic yes
 * answers; without one, such a change is refused for want of someone to ask.
 */
export function autoApprover(name: string, options: { person?: Approver } = {}): Approver {
  return Object.assign((() => 'once') as Approver, {
    [AUTO_NAME]: name,
    ...(options.person ? { [PERSON_BEHIND]: options.person } : {}),
  });
}

/** The person an automatic approver hands a question to that it may not answer itself (see autoApprover). */
export function personBehind(approver: Approver | 'deny'): Approver | undefined {
  if (typeof approver !== 'function') return undefined;
  const person = (approver as { [PERSON_BEHIND]?: unknown })[PERSON_BEHIND];
  return typeof person === 'function' ? (person as Approver) : undefined;
}

/** The name `autoApprover` gave (undefined for any other approver: a person, a page, a program). */
export function autoApproverName(approver: Approver | 'deny'): string | undefined {
  if (typeof approver !== 'function') return undefined;
  const name = (approver as { [AUTO_NAME]?: unknown })[AUTO_NAME];
  return typeof name === 'string' ? name : undefined;
}

/**
 * The part of a proposal a person judges: what the approver is asked, and what a preview shows.
 * `wholeOnly`: why no file of it can be taken in part, whatever it is (someone else writes it whole).
 */
export function approvalRequestFor(
  proposal: Proposal,
  options: { wholeOnly?: string } = {},
): ApprovalRequest {
  // A secret found in the change is masked in all a person is shown (secret-check.ts).
  const secrets = secretsOf(proposal);
  const question: ApprovalQuestion = {
    tool: proposal.tool,
    files: proposal.files.map((file) => approvalFileOf(file, proposal.findings, options.wholeOnly, secrets)),
    input: maskSecretsInValue(proposal.input, secrets),
  };
  if (proposal.findings && proposal.findings.length > 0) question.findings = proposal.findings;
  return withFirstFileAliases(question);
}

/**
 * A proposed file as the person judges it: without the change behind it and what only the model is told,
 * with what was found in it, and any secret in it masked.
 */
function approvalFileOf(
  file: ProposedFile,
  findings: readonly Finding[] | undefined,
  wholeOnly: string | undefined,
  secrets: readonly string[],
): ApprovalFile {
  const { change: _change, replacements: _replacements, tiers: _tiers, ...shown } = file;
  const out: ApprovalFile = {
    ...shown,
    kind: file.kind === 'noop' ? 'modify' : file.kind,
    diff: maskSecretsInDiff(file.diff, secrets),
    unifiedDiff: maskSecretsIn(file.unifiedDiff, secrets),
  };
  if (file.texts) out.texts = maskSecretsInValue(file.texts, secrets);
  if (wholeOnly) out.wholeOnly = wholeOnly;
  const found = findings?.filter((finding) => finding.path === file.path);
  if (found && found.length > 0) out.findings = found;
  return out;
}

/**
 * Asks `approver` and returns what it decided. An approver that throws or answers something undocumented
 * has not said yes (a denial that says why); a cancelled call stops waiting (CANCELLED).
 */
export async function askApprover(
  approver: Approver | 'deny',
  request: ApprovalRequest,
  signal?: AbortSignal,
  answeredFrom?: (from: AnsweredFrom) => void,
): Promise<Decision> {
  if (approver === 'deny') {
    return {
      deny: `changes that need approval are refused in this session (approve: 'deny'); ${request.files.map((file) => file.path).join(', ')} ${request.files.length > 1 ? 'were' : 'was'} not changed`,
    };
  }
  if (signal?.aborted) throw cancelledError();
  let answer: Promise<Decision>;
  try {
    answer = Promise.resolve(approver(request, { signal, ...(answeredFrom ? { answeredFrom } : {}) }));
  } catch (error) {
    answer = Promise.reject(error);
  }
  const decided = answer.then(normalizeDecision, (error: unknown) => {
    // The call was cancelled while the approver was asking (it stopped because of the signal, or the
    // signal fired before its answer came): that is no one's denial.
    if (signal?.aborted) throw cancelledError();
    // A front end that cannot show the change whole does not ask (gate/shown-whole.ts): its refusal stands
    // as it is, not as a person's denial.
    if (isEditgateError(error, 'TOO_LARGE')) throw error;
    // Nobody could be asked (no terminal): that refusal says so and how to approve; it is no one's denial.
    if (isEditgateError(error, 'DENIED_NO_APPROVER')) throw error;
    // An approver that fails has not said yes.
    return { deny: `the approval prompt failed (${error instanceof Error ? error.message : String(error)})` };
  });
  if (!signal) return decided;
  if (signal.aborted) {
    // Aborted while the approver was being called: whatever it answers comes too late.
    decided.catch(() => undefined);
    throw cancelledError();
  }
  let onAbort: (() => void) | undefined;
  const cancelled = new Promise<never>((_, reject) => {
    onAbort = () => reject(cancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([decided, cancelled]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** Approvers are user code: accept the documented decisions and refuse anything else as a denial. */
function normalizeDecision(decision: unknown): Decision {
  if (decision === 'once' || decision === 'file' || decision === 'all' || decision === 'deny')
    return decision;
  if (decision && typeof decision === 'object' && typeof (decision as { deny?: unknown }).deny === 'string') {
    return { deny: (decision as { deny: string }).deny };
  }
  if (decision && typeof decision === 'object') {
    const { allow, edited, reason, hunks } = decision as {
      allow?: unknown;
      edited?: unknown;
      reason?: unknown;
      hunks?: unknown;
    };
    if ((allow === 'once' || allow === 'file' || allow === 'all') && edited === undefined) {
      if (typeof reason === 'string' && hunks === undefined) return { allow, reason };
      // Checked against the change by the gate (hunk-decision.ts), which says what is wrong with it; a copy
      // as plain data, since the approver's object may change after it answered.
      if (hunks !== undefined && (reason === undefined || typeof reason === 'string'))
        return {
          allow,
          hunks: plainCopy(hunks) as HunkChoices,
          ...(typeof reason === 'string' ? { reason } : {}),
        };
    }
    if (
      (allow === 'once' || allow === 'file' || allow === 'all') &&
      hunks === undefined &&
      edited &&
      typeof edited === 'object' &&
      !Array.isArray(edited) &&
      Object.values(edited).every((text) => typeof text === 'string')
    ) {
      // A copy: the approver's object may change after it answered.
      return { allow, edited: { ...(edited as Record<string, string>) } };
    }
  }
  return { deny: `the approver gave an unknown decision (${JSON.stringify(decision)})` };
}

/** A copy of JSON-like data (what a hunk choice is); anything else becomes what JSON makes of it. */
function plainCopy(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null');
  } catch {
    return null;
  }
}

/** The reason in a denial ('' when none was given). */
export function denialReason(decision: Decision): string | null {
  if (decision === 'deny') return '';
  if (typeof decision === 'object' && 'deny' in decision) return decision.deny.trim();
  return null;
}

/** The person's note with an approval ('' when none was given); null for a denial. */
export function approvalReason(decision: Decision): string | null {
  if (denialReason(decision) !== null) return null;
  return typeof decision === 'object' && 'reason' in decision ? (decision.reason?.trim() ?? '') : '';
}

/** The grant an approval gives (an edited answer gives the one it names); null for a denial. */
export function grantOf(decision: Decision): 'once' | 'file' | 'all' | null {
  if (decision === 'deny') return null;
  if (typeof decision === 'string') return decision;
  return 'allow' in decision ? decision.allow : null;
}
