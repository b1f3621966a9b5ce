/**
 * What crosses the review server's JSON API, one schema each way:
 * - what it accepts, checked on arrival: the person's decisions (from the page or a script) and the changes
 *   other editgate processes send to `editgate review`;
 * - what it sends (the `...Reply` schemas and SubmitEvent): the server builds each answer as its schema's
 *   type, the remote-review client checks what it reads against it, and the tests check every answer the
 *   page's script and scripts read.
 */
import { z } from 'zod';
import type { ApprovalQuestion, Decision } from '../gate/approval.js';

const count = z.number().int().min(0);

const diffSchema = z.object({
  hunks: z.array(
    z.object({
      oldStart: count,
      oldLines: count,
      newStart: count,
      newLines: count,
      lines: z.array(
        z.object({
          kind: z.enum(['context', 'add', 'remove']),
          oldLine: count.optional(),
          newLine: count.optional(),
          text: z.string(),
          eol: z.enum(['\n', '\r\n', '\r', '']),
        }),
      ),
    }),
  ),
  added: count,
  removed: count,
  identical: z.boolean(),
});

const stats = z.object({ added: count, removed: count });
const texts = z.object({ before: z.string(), after: z.string() });
const path = z.string().min(1).max(4096);
/** Where the file is and the version the diff was made from (stale detection on the page). */
const base = z.object({
  absolutePath: path,
  fingerprint: z
    .object({
      size: count,
      mtimeMs: z.number(),
      hash: z.string().max(200),
      stat: z.string().max(200).optional(),
    })
    .nullable(),
});

/** With several roots: the short name of the root a path is in. */
const root = z.string().min(1).max(4096).optional();

const fileSchema = z.object({
  path,
  root,
  kind: z.enum(['create', 'modify', 'delete', 'read']),
  diff: diffSchema,
  unifiedDiff: z.string(),
  stats,
  texts: texts.optional(),
  note: z.string().optional(),
  base: base.optional(),
  wholeOnly: z.string().max(10_000).optional(),
});

/**
 * The question as every face reads it (gate/approval.ts ApprovalQuestion): its files. The first file's
 * deprecated fields beside them, which a sender may include, are not read (an object drops them).
 */
export const approvalRequestSchema = z.object({
  tool: z.string().min(1).max(200),
  question: z.string().max(10_000).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  files: z.array(fileSchema).min(1, 'a change names at least one file'),
});

const edited = z.record(z.string(), z.string());

const grant = z.enum(['once', 'file', 'all']);

/**
 * Per file (its path as in the change): the hunks of its diff to write and those not to, 0-based, each left
 * out with an optional reason (gate/approval.ts HunkChoices; gate/hunk-decision.ts checks it against the
 * change).
 */
const hunkChoices = z.record(
  z.string(),
  z.strictObject({
    accept: z.array(count),
    reject: z.array(z.strictObject({ hunk: count, reason: z.string().max(10_000).optional() })).optional(),
  }),
);

/** The library's Decision (gate/approval.ts), every form of it. */
export const decisionSchema: z.ZodType<Decision> = z.union([
  z.enum(['once', 'file', 'all', 'deny']),
  z.strictObject({ deny: z.string() }),
  z.strictObject({ allow: grant, edited }),
  // Hunk by hunk (gate/hunk-decision.ts checks the choice against the change): e.g. answered in the asker's
  // terminal and reported to the page by a withdrawal.
  z.strictObject({ allow: grant, hunks: hunkChoices, reason: z.string().min(1).max(10_000).optional() }),
  z.strictObject({ allow: grant, reason: z.string().min(1) }),
]);

/** A required field's words when it is not sent: what to send (other problems keep zod's words). */
function missing(what: string) {
  return (issue: { input: unknown }) => (issue.input === undefined ? `missing: ${what}` : undefined);
}

/**
 * POST /api/changes/ID/decision. `reason` goes with a denial (why, or what to do instead) or with an
 * approval (a note for the model: `{ allow, reason }`); the person's own version (`edited`) carries no note;
 * `hunks` (part of the proposed diff, with reasons per hunk left out) goes with an approval, and may carry
 * the note too (`{ allow, hunks, reason }`). A session review (gate/session-review.ts) takes the same
 * answer: a hunk left out is reverted.
 */
export const answerSchema = z.strictObject({
  hash: z
    .string({
      error: missing('the hash of the diff you saw (the change\'s "hash", from GET /api/changes/ID)'),
    })
    .regex(/^[0-9a-f]{64}$/, 'the hash of the diff you saw (64 hex digits, from the change)'),
  decision: z.enum(['once', 'file', 'all', 'deny'], { error: missing('"once", "file", "all" or "deny"') }),
  reason: z.string().max(10_000).optional(),
  edited: edited.optional(),
  hunks: hunkChoices.optional(),
});

/** POST /api/changes/ID/edit-preview */
export const editPreviewSchema = z.strictObject({ edited });

/** A random challenge the review server signs to prove it holds the discovery file's key. */
const challenge = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'a challenge of 256 random bits, base64url');

/** POST /api/submissions/hello (another editgate process, before it sends anything else). */
export const helloSchema = z.strictObject({ challenge });

/** POST /api/submissions/link: a new sign-in link, good once (for `ttlMs` when given). */
export const linkSchema = z.strictObject({ ttlMs: z.number().int().min(1000).max(86_400_000).optional() });

/**
 * POST /api/submit (from another editgate process, with the review server's bearer token); the decision
 * comes back signed over `challenge`.
 */
export const submitSchema = z.strictObject({
  request: approvalRequestSchema,
  source: z.string().min(1).max(200),
  challenge,
});

/** POST /api/submissions/ID/withdraw: the asker stopped waiting, maybe because it was answered elsewhere. */
export const withdrawSchema = z.strictObject({
  by: z.string().min(1).max(100).optional(),
  decision: decisionSchema.optional(),
});

// --- what the server sends ---------------------------------------------------------------------------

/** One line of the answer stream of /api/submit (newline-delimited JSON). */
const answeredFromSchema = z.strictObject({
  address: z.string().max(100),
  userAgent: z.string().max(200).optional(),
  via: z.enum(['review page', 'change link']),
});

export const submitEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('queued'), id: z.string().min(1) }),
  z.strictObject({ type: z.literal('ping') }),
  z.strictObject({
    type: z.literal('decision'),
    decision: decisionSchema,
    proof: z.string(),
    /** Where the answer came from (for the asker's audit line). */
    from: answeredFromSchema.optional(),
  }),
  z.strictObject({
    type: z.literal('closed'),
    message: z.string(),
    /** No one answered in the time allowed: the asker refuses it as DENIED_NO_APPROVER, saying this. */
    noApprover: z.string().optional(),
  }),
]);
export type SubmitEvent = z.infer<typeof submitEventSchema>;

/** Every refusal: what went wrong and what to do. */
export const errorReply = z.strictObject({ error: z.string().min(1) });

/** GET /?token=... with Accept: application/json: the session's nonce, given this once. */
export const signInReply = z.strictObject({ nonce: z.string().min(1) });

/** POST /api/submissions/hello */
export const helloReply = z.strictObject({ proof: z.string() });

/** POST /api/submissions/link */
export const linkReply = z.strictObject({ url: z.string().url() });

/** POST /api/submissions/ID/withdraw */
export const withdrawReply = z.strictObject({ withdrawn: z.literal(true) });

const changeId = z.string().regex(/^[\w-]+$/);
const fileKind = z.enum(['create', 'modify', 'delete']);

/** A change in the API's list. */
export const changeSummary = z.strictObject({
  id: changeId,
  status: z.enum(['pending', 'stale', 'answered', 'withdrawn']),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  tool: z.string(),
  kind: z.enum(['create', 'modify', 'delete', 'read']),
  path: z.string(),
  source: z.string(),
  files: z.array(z.strictObject({ path: z.string(), kind: fileKind, stats })),
  outcome: z.strictObject({ by: z.string(), decision: decisionSchema }).optional(),
  statusNote: z.string().optional(),
});

/** GET /api/changes */
export const changeListReply = z.strictObject({ changes: z.array(changeSummary) });

/** GET /api/changes/ID: the summary, the question and note, and each file's diff text. */
export const changeDetailReply = changeSummary.extend({
  question: z.string().optional(),
  note: z.string().optional(),
  /** What the checks found (core/findings.ts); secrets masked. */
  findings: z
    .array(
      z.strictObject({
        kind: z.enum(['rule', 'secret', 'syntax', 'diagnostic']),
        path: z.string(),
        line: z.number().int().optional(),
        message: z.string(),
        severity: z.enum(['info', 'ask', 'deny']),
        source: z.string(),
      }),
    )
    .optional(),
  files: z.array(
    z.strictObject({
      path: z.string(),
      kind: fileKind,
      stats,
      unifiedDiff: z.string(),
      editable: z.boolean(),
      /** How many hunks its diff has (a decision's `hunks` numbers them from 0). */
      hunks: count,
      /** Why its hunks cannot be chosen one by one (it is taken whole); absent when they can. */
      wholeOnly: z.string().optional(),
      note: z.string().optional(),
    }),
  ),
});

/** GET /api/changes/ID/files/N: the texts before and after (to edit the new one). */
export const fileTextsReply = z.strictObject({
  path: z.string(),
  kind: fileKind,
  before: z.string(),
  after: z.string(),
});

/** POST /api/changes/ID/decision */
export const decisionReply = z.strictObject({ status: z.literal('answered'), text: z.string() });

/** POST /api/changes/ID/edit-preview: the person's version as a diff (its hash is what they approve). */
export const editPreviewReply = z.strictObject({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  files: z.array(z.strictObject({ path: z.string(), kind: fileKind, stats, unifiedDiff: z.string() })),
  html: z.string(),
});

export type ErrorReply = z.infer<typeof errorReply>;
export type SignInReply = z.infer<typeof signInReply>;
export type HelloReply = z.infer<typeof helloReply>;
export type LinkReply = z.infer<typeof linkReply>;
export type WithdrawReply = z.infer<typeof withdrawReply>;
export type ChangeSummary = z.infer<typeof changeSummary>;
export type ChangeListReply = z.infer<typeof changeListReply>;
export type ChangeDetailReply = z.infer<typeof changeDetailReply>;
export type FileTextsReply = z.infer<typeof fileTextsReply>;
export type DecisionReply = z.infer<typeof decisionReply>;
export type EditPreviewReply = z.infer<typeof editPreviewReply>;

export function parseRequest(value: unknown): ApprovalQuestion {
  return approvalRequestSchema.parse(value) as ApprovalQuestion;
}

/** The first problem zod found, as one line. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  return `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
}
