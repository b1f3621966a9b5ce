/**
 * The review server's wire schemas (src/web/wire.ts) applied by the tests to what really crosses it: the
 * body a request sends (as the page's script or a script writes it) and the JSON an answer carries. A
 * request or answer of the JSON API that its schema does not describe is a failure, whoever sent it.
 */
import type { z } from 'zod';
import {
  answerSchema,
  changeDetailReply,
  changeListReply,
  decisionReply,
  editPreviewReply,
  editPreviewSchema,
  errorReply,
  fileTextsReply,
  signInReply,
} from '../../src/web/wire.js';

/** The schema of a POST body the page's API accepts, by path; undefined for paths that take none. */
export function requestSchemaFor(path: string): z.ZodType | undefined {
  if (/^\/api\/changes\/[\w-]+\/decision$/.test(path)) return answerSchema;
  if (/^\/api\/changes\/[\w-]+\/edit-preview$/.test(path)) return editPreviewSchema;
  return undefined;
}

/** The schema of a JSON answer, by path and status; undefined for answers that are not the JSON API's. */
export function replySchemaFor(path: string, status: number): z.ZodType | undefined {
  if (status !== 200) return errorReply;
  if (path === '/') return signInReply;
  if (path === '/api/changes') return changeListReply;
  if (/^\/api\/changes\/[\w-]+$/.test(path)) return changeDetailReply;
  if (/^\/api\/changes\/[\w-]+\/files\/\d+$/.test(path)) return fileTextsReply;
  if (/^\/api\/changes\/[\w-]+\/decision$/.test(path)) return decisionReply;
  if (/^\/api\/changes\/[\w-]+\/edit-preview$/.test(path)) return editPreviewReply;
  return undefined;
}

/** What is wrong with a body against its schema, in a line; undefined when it fits (or has none). */
export function wireProblem(schema: z.ZodType | undefined, text: string, what: string): string | undefined {
  if (!schema) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `${what}: not JSON: ${text.slice(0, 200)}`;
  }
  const parsed = schema.safeParse(value);
  return parsed.success
    ? undefined
    : `${what}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`;
}
