/**
 * Sending a change to a running `editgate review` page (another process) and waiting for the answer. The
 * answer streams back on the same request as JSON lines (queued, pings, the decision), so no timeout cuts
 * a long wait; if this process stops waiting (answered in its terminal first), it says so and who answered
 * before it hangs up, and the page shows that.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { ApprovalRequest, Approver, Decision } from '../gate/approval.js';
import type { ReviewDiscovery } from './discovery.js';
import { decisionSchema, type SubmitEvent } from './wire.js';

type Target = Pick<ReviewDiscovery, 'port' | 'submitToken'>;

function post(target: Target, path: string, body: unknown): Promise<IncomingMessage> {
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
          Authorization: `Bearer ${target.submitToken}`,
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

/** Whether the review server answers, and for this root. */
export async function pingReview(target: Target & { root: string }): Promise<boolean> {
  try {
    const response = await post(target, '/api/submissions/ping', {});
    if (response.statusCode !== 200) {
      response.resume();
      return false;
    }
    const body = JSON.parse(await readAll(response)) as { root?: unknown };
    return body.root === target.root;
  } catch {
    return false;
  }
}

/** An approver that puts each question on the remote page. */
export function remoteApprover(target: Target, source: string): Approver {
  return (request, context = {}) => submit(target, request, source, context.signal);
}

async function submit(
  target: Target,
  request: ApprovalRequest,
  source: string,
  signal?: AbortSignal,
): Promise<Decision> {
  signal?.throwIfAborted();
  const response = await post(target, '/api/submit', { request, source });
  if (response.statusCode !== 200) {
    const text = await readAll(response);
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // Not JSON: the text as it came.
    }
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
        const event = JSON.parse(line) as SubmitEvent;
        if (event.type === 'queued') {
          id = event.id;
          if (withdrawOnQueued) withdraw();
        } else if (event.type === 'decision') {
          const parsed = decisionSchema.safeParse(event.decision);
          finish(
            new Error('the review page sent an answer editgate does not understand'),
            parsed.success ? parsed.data : undefined,
          );
        } else if (event.type === 'closed')
          finish(new Error(`the review page gave no answer: ${event.message}`));
      }
    });
    response.on('end', () => finish(new Error('the review page closed before the change was answered')));
    response.on('error', (error) => finish(error));
  });
}
