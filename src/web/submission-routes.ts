/**
 * Other editgate processes sending their changes to `editgate review`. First the server proves itself
 * (hello: an HMAC of the asker's challenge under the key of the discovery file; it needs no token, since
 * the asker sends its token only to a server that proved itself). Then, with the bearer token: submit
 * streams back the answer, signed; withdraw takes a change back; link makes a sign-in link. Who may ask is
 * checked before any of these runs (route-access.ts).
 */
import { isEditgateError } from '../core/errors.js';
import type { AnsweredFrom, ApprovalQuestion } from '../gate/approval.js';
import { HttpError, parseBody, readJson, sendJson } from './http-reply.js';
import { SECURITY_HEADERS } from './request-guard.js';
import type { RouteContext } from './route-context.js';
import { serverProof } from './server-proof.js';
import {
  type HelloReply,
  helloSchema,
  type LinkReply,
  linkSchema,
  type SubmitEvent,
  submitSchema,
  type WithdrawReply,
  withdrawSchema,
} from './wire.js';

const SUBMIT_PING_MS = 15_000;

export async function hello({ req, res, state }: RouteContext): Promise<void> {
  const { challenge } = parseBody(helloSchema, await readJson(req, state.maxBody));
  sendJson(res, 200, {
    proof: serverProof(state.serverKey!, 'hello', challenge, String(state.port), state.realRoot),
  } satisfies HelloReply);
}

export async function signInLink({ req, res, state }: RouteContext): Promise<void> {
  const { ttlMs } = parseBody(linkSchema, await readJson(req, state.maxBody));
  sendJson(res, 200, {
    url: `http://127.0.0.1:${state.port}/?token=${state.links.issue({ ttlMs })}`,
  } satisfies LinkReply);
}

/** Puts the change on the page; the answer streams back as JSON lines (SubmitEvent), the decision signed. */
export async function submit({ req, res, state }: RouteContext): Promise<void> {
  const { request, source, challenge } = parseBody(submitSchema, await readJson(req, state.maxBody));
  const controller = new AbortController();
  res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'application/x-ndjson' });
  state.openResponses.add(res);
  const send = (event: SubmitEvent) => {
    if (!res.writableEnded) res.write(`${JSON.stringify(event)}\n`);
  };
  const ping = setInterval(() => send({ type: 'ping' }), SUBMIT_PING_MS);
  ping.unref();
  let id: string | undefined;
  // The asker going away (its process ended, it was answered elsewhere) withdraws the change.
  res.on('close', () => {
    clearInterval(ping);
    state.openResponses.delete(res);
    if (id)
      state.withdrawals.get(id)?.abort(controller.signal.reason ?? new Error('the asker stopped waiting'));
  });
  try {
    let from: AnsweredFrom | undefined;
    const decision = await state.queue.add(request as ApprovalQuestion, {
      source,
      signal: controller.signal,
      answeredFrom: (where) => {
        from = where;
      },
      onQueued: (item) => {
        id = item.id;
        state.withdrawals.set(item.id, controller);
        send({ type: 'queued', id: item.id });
      },
    });
    const proof = serverProof(state.serverKey!, 'decision', challenge, JSON.stringify(decision));
    send({ type: 'decision', decision, proof, ...(from ? { from } : {}) });
  } catch (error) {
    const noApprover = isEditgateError(error, 'DENIED_NO_APPROVER')
      ? String((error.details as { reason?: unknown } | undefined)?.reason ?? '')
      : undefined;
    send({
      type: 'closed',
      message: error instanceof Error ? error.message : String(error),
      ...(noApprover ? { noApprover } : {}),
    });
  } finally {
    if (id) state.withdrawals.delete(id);
    res.end();
  }
}

/** The asker stopped waiting, maybe because it was answered elsewhere (then the page says who answered). */
export async function withdraw({ req, res, state, params }: RouteContext): Promise<void> {
  const { by, decision } = parseBody(withdrawSchema, await readJson(req, state.maxBody));
  const controller = state.withdrawals.get(params.id!);
  if (!controller) throw new HttpError(409, 'That change is not waiting.');
  controller.abort(by && decision !== undefined ? { by, decision } : new Error('the asker stopped waiting'));
  sendJson(res, 200, { withdrawn: true } satisfies WithdrawReply);
}

/** A path of the submissions area that is none of the above: its body is read (and must be JSON) first. */
export async function noSubmissionRoute({ req, state }: RouteContext): Promise<void> {
  await readJson(req, state.maxBody);
  throw new HttpError(404, 'Nothing here.');
}
