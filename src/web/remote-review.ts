/**
 * Sending a change to a running `editgate review` page (another process) and waiting for the answer. The
 * server first proves it holds the key of the discovery file (a fresh challenge each time, before anything
 * else is sent: server-proof.ts); the answer streams back on the same request as JSON lines (queued, pings,
 * the decision, signed over that request's challenge), so no timeout cuts a long wait; if this process
 * stops waiting (answered in its terminal first), it says so and who answered before it hangs up, and the
 * page shows that.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AnsweredFrom, ApprovalQuestion, Approver, Decision } from '../gate/approval.js';
import { noApproverError } from '../gate/no-approver.js';
import type { ReviewDiscovery } from './discovery.js';
import { newSecret } from './request-guard.js';
import { NO_ANSWER_ADVICE } from './review-queue.js';
import { proofHolds } from './server-proof.js';
import { errorReply, helloReply, linkReply, submitEventSchema } from './wire.js';

export type ReviewTarget = Pick<ReviewDiscovery, 'port' | 'submitToken' | 'serverKey' | 'root'>;

/** The bearer token goes only with requests after the server proved itself. */
function post(
  target: ReviewTarget,
  path: string,
  body: unknown,
  options: { bearer: boolean } = { bearer: true },
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: target.port,
        path,
        method: 'POST',
        headers: {
          Host: `127.0.0.1:${target.port}`,
          ...(options.bearer ? { Authorization: `Bearer ${target.submitToken}` } : {}),
          'Content-Type': 'application/json',
          'Content-Length': payload.length,
        },
      },
      resolve,
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function readAll(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export type Proven = { proven: true } | { refused: string };

/**
 * Whether the server on the discovery file's port is the one that wrote it: it must answer a fresh
 * challenge with the HMAC of it (and of its port and root) under the file's key. Nothing but the challenge
 * is sent before it has.
 */
export async function proveReview(target: ReviewTarget): Promise<Proven> {
  const challenge = newSecret();
  const where = `the review page published on port ${target.port}`;
  try {
    const response = await post(target, '/api/submissions/hello', { challenge }, { bearer: false });
    const text = await readAll(response);
    if (response.statusCode !== 200)
      return { refused: `${where} did not prove it is yours (HTTP ${response.statusCode})` };
    const proof = helloReply.safeParse(parseJson(text)).data?.proof;
    if (!proofHolds(target.serverKey, proof, 'hello', challenge, String(target.port), target.root))
      return { refused: `${where} did not prove it is yours: another program may listen on that port` };
    return { proven: true };
  } catch (error) {
    return {
      refused: `${where} does not answer (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

async function mustProve(target: ReviewTarget): Promise<void> {
  const proven = await proveReview(target);
  if ('refused' in proven) throw new Error(`${proven.refused}; nothing was sent to it`);
}

/** A new sign-in link of the remote page (good once; for `ttlMs` when given), once it proved itself. */
export async function requestSignInLink(target: ReviewTarget, ttlMs?: number): Promise<string> {
  await mustProve(target);
  const response = await post(target, '/api/submissions/link', ttlMs === undefined ? {} : { ttlMs });
  const text = await readAll(response);
  const url = response.statusCode === 200 ? linkReply.safeParse(parseJson(text)).data?.url : undefined;
  if (url === undefined || !url.startsWith(`http://127.0.0.1:${target.port}/?token=`))
    throw new Error(`the review page gave no sign-in link (HTTP ${response.statusCode}: ${text})`);
  return url;
}

/** An approver that puts each question on the remote page. */
export function remoteApprover(target: ReviewTarget, source: string): Approver {
  return (request, context = {}) => submit(target, request, source, context.signal, context.answeredFrom);
}

async function submit(
  target: ReviewTarget,
  request: ApprovalQuestion,
  source: string,
  signal?: AbortSignal,
  answeredFrom?: (from: AnsweredFrom) => void,
): Promise<Decision> {
  signal?.throwIfAborted();
  await mustProve(target);
  signal?.throwIfAborted();
  const challenge = newSecret();
  const response = await post(target, '/api/submit', { request, source, challenge });
  if (response.statusCode !== 200) {
    const text = await readAll(response);
    // A refusal says why as { error }; anything else is shown as it came.
    const message = errorReply.safeParse(parseJson(text)).data?.error ?? text;
    throw new Error(`the review page refused the change (HTTP ${response.statusCode}: ${message})`);
  }
  return new Promise<Decision>((resolve, reject) => {
    let buffer = '';
    let id: string | undefined;
    let done = false;
    // Answered elsewhere before the page said which change this is: withdraw it as soon as it does.
    let withdrawOnQueued = false;
    const finish = (error: unknown, decision?: Decision) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      if (decision !== undefined) resolve(decision);
      else reject(error);
    };
    const withdraw = () => {
      const reason = signal!.reason as { by?: unknown; decision?: unknown } | undefined;
      const answered =
        reason && typeof reason.by === 'string' ? { by: reason.by, decision: reason.decision } : {};
      const hangUp = () => response.destroy();
      post(target, `/api/submissions/${id}/withdraw`, answered)
        .then((answer) => answer.resume(), hangUp)
        .finally(hangUp);
    };
    const onAbort = () => {
      if (id) withdraw();
      else withdrawOnQueued = true;
      finish(signal!.reason);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (line.trim() === '') continue;
        const raw = parseJson(line);
        const parsed = submitEventSchema.safeParse(raw);
        if (!parsed.success) {
          finish(new Error('the review page sent an answer editgate does not understand'));
          continue;
        }
        const event = parsed.data;
        if (event.type === 'queued') {
          id = event.id;
          if (withdrawOnQueued) withdraw();
        } else if (event.type === 'decision') {
          // An answer not signed over this request's challenge is not the person's: nothing is written.
          if (
            // The proof covers the decision as the server wrote it (not as parsed: zod may order keys anew).
            !proofHolds(target.serverKey, event.proof, 'decision', challenge, signedDecision(raw))
          ) {
            finish(new Error('the review page sent an answer it did not sign; it is not taken'));
            continue;
          }
          if (event.from) answeredFrom?.(event.from);
          finish(undefined, event.decision);
        } else if (event.type === 'closed')
          finish(
            event.noApprover
              ? // No one answered in the time allowed: no one's no, and never a yes.
                noApproverError(request, event.noApprover, NO_ANSWER_ADVICE)
              : new Error(`the review page gave no answer: ${event.message}`),
          );
      }
    });
    response.on('end', () => finish(new Error('the review page closed before the change was answered')));
    response.on('error', (error) => finish(error));
  });
}

/** The JSON of a text, or undefined when it is not JSON (the schema that reads it then refuses it). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The decision of a decision event, as the server serialised it for its proof. */
function signedDecision(event: unknown): string {
  return JSON.stringify((event as { decision: unknown }).decision);
}
