/**
 * What crosses the review server's JSON API, checked on arrival: the person's decisions (from the page or
 * a script) and the changes other editgate processes send to `editgate review`.
 */
import { z } from 'zod';
import type { ApprovalRequest, Decision } from '../gate/approval.js';

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
  kind: z.enum(['create', 'modify', 'delete']),
  diff: diffSchema,
  unifiedDiff: z.string(),
  stats,
  texts: texts.optional(),
  note: z.string().optional(),
  base: base.optional(),
});

export const approvalRequestSchema = z.object({
  tool: z.string().min(1).max(200),
  path,
  root,
  kind: z.enum(['create', 'modify', 'delete', 'read']),
  question: z.string().max(10_000).optional(),
  diff: diffSchema,
  unifiedDiff: z.string(),
  stats,
  input: z.record(z.string(), z.unknown()).optional(),
  files: z.array(fileSchema).optional(),
  texts: texts.optional(),
  note: z.string().optional(),
  base: base.optional(),
});

const edited = z.record(z.string(), z.string());

export const decisionSchema: z.ZodType<Decision> = z.union([
  z.enum(['once', 'file', 'all', 'deny']),
  z.strictObject({ deny: z.string() }),
  z.strictObject({ allow: z.enum(['once', 'file', 'all']), edited }),
]);

/** POST /api/changes/ID/decision */
export const answerSchema = z.strictObject({
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'the hash of the diff you saw (64 hex digits, from the change)'),
  decision: z.enum(['once', 'file', 'all', 'deny']),
  reason: z.string().max(10_000).optional(),
  edited: edited.optional(),
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

/** One line of the answer stream of /api/submit (newline-delimited JSON). */
export type SubmitEvent =
  | { type: 'queued'; id: string }
  | { type: 'ping' }
  | { type: 'decision'; decision: Decision; proof: string }
  | { type: 'closed'; message: string };

export function parseRequest(value: unknown): ApprovalRequest {
  return approvalRequestSchema.parse(value) as ApprovalRequest;
}

/** The first problem zod found, as one line. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  return `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
}
