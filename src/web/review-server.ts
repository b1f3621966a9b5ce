/**
 * The local review server: the page, its fragments, the live event stream, the JSON API, and (for
 * `editgate review`) the route by which other editgate processes send their changes. Bound to 127.0.0.1 on
 * a port the system picks; see request-guard.ts for who may ask what.
 */
import { realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { z } from 'zod';
import { loadHighlighter } from '../core/highlight.js';
import { hostNamesThisServer, originIsThisPage } from '../core/loopback-host.js';
import type { ApprovalRequest, Decision } from '../gate/approval.js';
import { loadAssets } from './assets.js';
import { type DiffLayout, expandRows, FileView, nextPageRow, renderPage } from './diff-html.js';
import {
  changeHtml,
  filesHtml,
  messagePageHtml,
  outcomeText,
  pageHtml,
  queueHtml,
  signInPageHtml,
  statusText,
} from './page.js';
import {
  bearerToken,
  cookieValue,
  isJson,
  NONCE_HEADER,
  newSecret,
  SECURITY_HEADERS,
  Sessions,
  sameSecret,
} from './request-guard.js';
import { ReviewConflict, ReviewInvalid, type ReviewItem, ReviewQueue } from './review-queue.js';
import { serverProof } from './server-proof.js';
import { OPEN_LINK_TTL_MS, type Redeemed, SignInLinks } from './sign-in-links.js';
import {
  answerSchema,
  type ChangeDetailReply,
  type ChangeListReply,
  type ChangeSummary,
  type DecisionReply,
  type EditPreviewReply,
  type ErrorReply,
  editPreviewSchema,
  type FileTextsReply,
  firstIssue,
  type HelloReply,
  helloSchema,
  type LinkReply,
  linkSchema,
  type SignInReply,
  type SubmitEvent,
  submitSchema,
  type WithdrawReply,
  withdrawSchema,
} from './wire.js';

export interface ReviewServerOptions {
  /** The workspace root the changes belong to (shown on the page; files are watched under it). */
  root: string;
  /** 0 (default): a free port the system picks. */
  port?: number;
  /** Who asks, as the page says it ("editgate edit"). */
  source?: string;
  /** Accept changes from other processes with a bearer token (editgate review). */
  acceptSubmissions?: boolean;
  /** Largest JSON body accepted, in bytes. Default 256 MiB (a change set may carry whole texts). */
  maxBody?: number;
}

export interface AskOptions {
  signal?: AbortSignal;
  /** Who asks, when not the server's own process. */
  source?: string;
}

export interface ReviewServer {
  /** The first sign-in link: its token signs one browser in, once (see signInLink for more). */
  readonly url: string;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly port: number;
  /** The bearer token other processes send changes with (when acceptSubmissions). */
  readonly submitToken?: string;
  /** The key this server proves itself with to other processes (when acceptSubmissions; server-proof.ts). */
  readonly serverKey?: string;
  /**
   * A new sign-in link, good once (and for `ttlMs` when given: a link handed to a program to open). The
   * link is a secret: print it where only the person reads it.
   */
  signInLink(ttlMs?: number): string;
  readonly queue: ReviewQueue;
  /** Puts a change on the page and resolves with the person's decision. */
  ask(request: ApprovalRequest, options?: AskOptions): Promise<Decision>;
  close(): Promise<void>;
}

const SUBMIT_PING_MS = 15_000;
const EVENTS_PING_MS = 20_000;
const MAX_VARIANTS = 3;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startReviewServer(options: ReviewServerOptions): Promise<ReviewServer> {
  const root = resolve(options.root);
  const realRoot = await realpath(root).catch(() => root);
  const assets = await loadAssets();
  const links = new SignInLinks();
  const firstToken = links.issue();
  const submitToken = options.acceptSubmissions ? newSecret() : undefined;
  const serverKey = options.acceptSubmissions ? newSecret() : undefined;
  const sessions = new Sessions();
  const maxBody = options.maxBody ?? 256 * 1024 * 1024;
  const locate = (path: string): string | undefined => {
    const absolute = resolve(root, path);
    const inside = relative(root, absolute);
    return inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)
      ? undefined
      : absolute;
  };
  const queue = new ReviewQueue({ locate });
  // The person's own versions, by change and hash, so their pages and regions can be loaded too.
  const variants = new Map<string, Map<string, FileView[]>>();
  const eventStreams = new Set<ServerResponse>();
  // Changes sent by other processes, by id: aborting one withdraws it from the page.
  const withdrawals = new Map<string, AbortController>();
  const openResponses = new Set<ServerResponse>();
  let port = 0;
  const cookieName = () => `editgate-review-${port}`;

  queue.subscribe((event) => {
    const { item } = event;
    const data = JSON.stringify({
      type: event.type,
      id: item.id,
      status: item.status,
      text: statusText(item),
    });
    for (const stream of eventStreams) stream.write(`event: change\ndata: ${data}\n\n`);
    if (item.status === 'answered' || item.status === 'withdrawn') variants.delete(item.id);
  });

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendJson(res, status, { error: message } satisfies ErrorReply);
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host;
    if (!hostNamesThisServer(host, port)) {
      throw new HttpError(
        403,
        `Host ${JSON.stringify(host ?? '')} is not this server: use http://127.0.0.1:${port}/`,
      );
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST') throw new HttpError(405, `${method} is not used here.`);

    if (url.pathname.startsWith('/api/submi')) return handleSubmission(req, res, url);
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204, SECURITY_HEADERS);
      res.end();
      return;
    }

    if (method === 'GET' && url.pathname === '/' && url.searchParams.has('token'))
      return signIn(req, res, url.searchParams.get('token') ?? '');

    const session = sessions.find(cookieValue(req.headers.cookie, cookieName()));
    if (!session) {
      throw new HttpError(
        401,
        'Not signed in: open the link editgate printed (its token signs the browser in).',
      );
    }
    // The cookie reaches every port of 127.0.0.1, so it only shows the page's frame and its script and
    // style; the changes (fragments, API, live updates) need the nonce the sign-in gave, as every decision
    // does. The live updates come from EventSource, which sends no header: their nonce is in the query.
    const nonce =
      url.pathname === '/events'
        ? (url.searchParams.get('nonce') ?? undefined)
        : headerValue(req.headers[NONCE_HEADER]);
    const cookieOnly = method === 'GET' && (url.pathname === '/' || assets.has(url.pathname));
    if (!cookieOnly && !sessions.nonceValid(session, nonce)) {
      if (url.pathname === '/api/session') throw new HttpError(410, NONCE_GIVEN_ONCE);
      throw new HttpError(
        403,
        `The ${NONCE_HEADER} header is missing or not this session's. ${NONCE_GIVEN_ONCE}`,
      );
    }

    if (method === 'POST') {
      if (!originIsThisPage(req.headers.origin, host)) {
        throw new HttpError(
          403,
          `Origin ${JSON.stringify(req.headers.origin ?? '')} may not change anything here.`,
        );
      }
      const site = req.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin')
        throw new HttpError(403, 'Only this page may change anything here.');
      if (!isJson(req.headers['content-type']))
        throw new HttpError(415, 'Send JSON, with Content-Type: application/json.');
      return handlePost(req, res, url);
    }
    return handleGet(res, url);
  }

  /**
   * The sign-in link: a good token gives a session cookie and, once, the session's nonce: to a browser in
   * a page whose script keeps it (sign-in.js: in this origin's storage, which no other port can read) and
   * moves on to the page without the token in the address bar or history; to a script asking for JSON as
   * `{ nonce }`. A used or expired link is refused with a page that says what to do.
   */
  function signIn(req: IncomingMessage, res: ServerResponse, given: string): void {
    const redeemed = links.redeem(given);
    if (redeemed !== 'signed-in') {
      const message = SIGN_IN_REFUSED[redeemed](`http://${req.headers.host}/`);
      const status = redeemed === 'unknown' ? 403 : 410;
      if (wantsJson(req)) sendJson(res, status, { error: message } satisfies ErrorReply);
      else sendHtml(res, messagePageHtml('Not signed in', message), status);
      return;
    }
    const session = sessions.create();
    const cookie = `${cookieName()}=${session.cookie}; HttpOnly; SameSite=Strict; Path=/`;
    if (wantsJson(req)) {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Set-Cookie': cookie,
        'Content-Type': 'application/json; charset=utf-8',
      });
      res.end(JSON.stringify({ nonce: session.nonce } satisfies SignInReply));
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Set-Cookie': cookie,
      'Content-Type': 'text/html; charset=utf-8',
    });
    res.end(signInPageHtml(session.nonce));
  }

  async function handleGet(res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    const asset = assets.get(path);
    if (asset) {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': asset.type });
      res.end(asset.body);
      return;
    }
    const layout: DiffLayout = url.searchParams.get('view') === 'split' ? 'split' : 'unified';
    if (path === '/') {
      const items = queue.list();
      const wanted = url.searchParams.get('change');
      const item = wanted
        ? queue.get(wanted)
        : items.find((entry) => entry.status === 'pending' || entry.status === 'stale');
      if (wanted && !item)
        throw new HttpError(404, 'There is no such change (it may have been answered long ago).');
      sendHtml(res, pageHtml({ root, layout, ...(item ? { current: item } : {}) }));
      return;
    }
    if (path === '/events') return openEvents(res);
    if (path === '/fragments/queue') {
      sendHtml(res, queueHtml(queue.list(), url.searchParams.get('current') ?? undefined));
      return;
    }
    if (path === '/fragments/change') {
      const item = mustGet(url.searchParams.get('change'));
      sendHtml(res, changeHtml(item, await queue.views(item.id)!, layout));
      return;
    }
    if (path === '/fragments/page' || path === '/fragments/expand') {
      const item = mustGet(url.searchParams.get('change'));
      const views = await viewsOf(item, url.searchParams.get('variant'));
      const fileIndex = integer(url, 'file');
      const view = views[fileIndex];
      if (!view) throw new HttpError(404, 'This change has no such file.');
      if (path === '/fragments/page') {
        const page = integer(url, 'page');
        if (page >= view.pageCount) throw new HttpError(404, 'The diff has no such page.');
        sendHtml(res, renderPage(view, fileIndex, page, layout) + nextPageRow(view, fileIndex, page));
        return;
      }
      const rows = expandRows(
        view,
        fileIndex,
        integer(url, 'old'),
        integer(url, 'new'),
        integer(url, 'count'),
        layout,
      );
      if (rows === undefined)
        throw new HttpError(404, 'Those lines are not an unchanged region of this file.');
      sendHtml(res, rows);
      return;
    }
    if (path === '/api/changes')
      return sendJson(res, 200, { changes: queue.list().map(summary) } satisfies ChangeListReply);
    const file = /^\/api\/changes\/([\w-]+)\/files\/(\d+)$/.exec(path);
    if (file) {
      const item = mustGet(file[1]!);
      const entry = item.files[Number(file[2])];
      if (!entry) throw new HttpError(404, 'This change has no such file.');
      if (!entry.texts)
        throw new HttpError(404, `The texts of ${entry.path} are not held (it is too large).`);
      return sendJson(res, 200, {
        path: entry.path,
        kind: entry.kind,
        before: entry.texts.before,
        after: entry.texts.after,
      } satisfies FileTextsReply);
    }
    const one = /^\/api\/changes\/([\w-]+)$/.exec(path);
    if (one) return sendJson(res, 200, detail(mustGet(one[1]!)));
    throw new HttpError(404, 'Nothing here.');
  }

  async function handlePost(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const match = /^\/api\/changes\/([\w-]+)\/(decision|edit-preview)$/.exec(url.pathname);
    if (!match) throw new HttpError(404, 'Nothing here.');
    const id = match[1]!;
    const body = await readJson(req);
    try {
      if (match[2] === 'edit-preview') {
        const { edited } = parse(editPreviewSchema, body);
        const item = mustGet(id);
        if (item.status !== 'pending')
          throw new ReviewConflict(statusText(item) || 'This change is no longer waiting.');
        const revised = queue.revise(id, edited);
        const views = await Promise.all(
          revised.files.map(async (file) => new FileView(file, await loadHighlighter(file.path))),
        );
        let kept = variants.get(id);
        if (!kept) variants.set(id, (kept = new Map()));
        kept.set(revised.hash, views);
        while (kept.size > MAX_VARIANTS) kept.delete(kept.keys().next().value!);
        const layout: DiffLayout = url.searchParams.get('view') === 'split' ? 'split' : 'unified';
        return sendJson(res, 200, {
          hash: revised.hash,
          files: revised.files.map((file) => ({
            path: file.path,
            kind: file.kind,
            stats: file.stats,
            unifiedDiff: file.unifiedDiff,
          })),
          html: filesHtml(views, layout),
        } satisfies EditPreviewReply);
      }
      const answer = parse(answerSchema, body);
      const outcome = await queue.decide(id, answer);
      return sendJson(res, 200, {
        status: 'answered',
        text: outcomeText(outcome),
      } satisfies DecisionReply);
    } catch (error) {
      if (error instanceof ReviewConflict) throw new HttpError(409, error.message);
      if (error instanceof ReviewInvalid) throw new HttpError(400, error.message);
      throw error;
    }
  }

  /**
   * Other editgate processes. First the server proves itself (POST /api/submissions/hello: an HMAC of the
   * asker's challenge under the key of the discovery file; it needs no token, since the asker sends its
   * token only to a server that proved itself). Then, with the bearer token: POST /api/submit streams back
   * the answer, signed; /api/submissions/ID/withdraw; /api/submissions/link makes a sign-in link.
   */
  async function handleSubmission(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!submitToken || !serverKey)
      throw new HttpError(404, 'This review page does not accept changes from other processes.');
    if (req.headers.origin !== undefined) throw new HttpError(403, 'Browsers may not send changes here.');
    if (req.method !== 'POST') throw new HttpError(405, 'POST only.');
    if (!isJson(req.headers['content-type']))
      throw new HttpError(415, 'Send JSON, with Content-Type: application/json.');
    if (url.pathname === '/api/submissions/hello') {
      const { challenge } = parse(helloSchema, await readJson(req));
      return sendJson(res, 200, {
        proof: serverProof(serverKey, 'hello', challenge, String(port), realRoot),
      } satisfies HelloReply);
    }
    const given = bearerToken(req);
    if (!given || !sameSecret(given, submitToken))
      throw new HttpError(401, 'A bearer token from the discovery file is needed.');
    const body = await readJson(req);
    if (url.pathname === '/api/submissions/link') {
      const { ttlMs } = parse(linkSchema, body);
      return sendJson(res, 200, {
        url: `http://127.0.0.1:${port}/?token=${links.issue({ ttlMs })}`,
      } satisfies LinkReply);
    }
    if (url.pathname === '/api/submit') {
      const { request, source, challenge } = parse(submitSchema, body);
      const controller = new AbortController();
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'application/x-ndjson' });
      openResponses.add(res);
      const send = (event: SubmitEvent) => {
        if (!res.writableEnded) res.write(`${JSON.stringify(event)}\n`);
      };
      const ping = setInterval(() => send({ type: 'ping' }), SUBMIT_PING_MS);
      ping.unref();
      let id: string | undefined;
      // The asker going away (its process ended, it was answered elsewhere) withdraws the change.
      res.on('close', () => {
        clearInterval(ping);
        openResponses.delete(res);
        if (id)
          withdrawals.get(id)?.abort(controller.signal.reason ?? new Error('the asker stopped waiting'));
      });
      try {
        const decision = await queue.add(request as ApprovalRequest, {
          source,
          signal: controller.signal,
          onQueued: (item) => {
            id = item.id;
            withdrawals.set(item.id, controller);
            send({ type: 'queued', id: item.id });
          },
        });
        const proof = serverProof(serverKey, 'decision', challenge, JSON.stringify(decision));
        send({ type: 'decision', decision, proof });
      } catch (error) {
        send({ type: 'closed', message: error instanceof Error ? error.message : String(error) });
      } finally {
        if (id) withdrawals.delete(id);
        res.end();
      }
      return;
    }
    const withdraw = /^\/api\/submissions\/([\w-]+)\/withdraw$/.exec(url.pathname);
    if (!withdraw) throw new HttpError(404, 'Nothing here.');
    const { by, decision } = parse(withdrawSchema, body);
    const controller = withdrawals.get(withdraw[1]!);
    if (!controller) throw new HttpError(409, 'That change is not waiting.');
    controller.abort(
      by && decision !== undefined ? { by, decision } : new Error('the asker stopped waiting'),
    );
    return sendJson(res, 200, { withdrawn: true } satisfies WithdrawReply);
  }
  function openEvents(res: ServerResponse): void {
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream' });
    res.write('retry: 2000\n\n');
    eventStreams.add(res);
    openResponses.add(res);
    const ping = setInterval(() => res.write(': ping\n\n'), EVENTS_PING_MS);
    ping.unref();
    res.on('close', () => {
      clearInterval(ping);
      eventStreams.delete(res);
      openResponses.delete(res);
    });
  }

  function mustGet(id: string | null): ReviewItem {
    const item = id ? queue.get(id) : undefined;
    if (!item) throw new HttpError(404, 'There is no such change (it may have been answered long ago).');
    return item;
  }

  async function viewsOf(item: ReviewItem, variant: string | null): Promise<FileView[]> {
    if (!variant) return (await queue.views(item.id))!;
    const views = variants.get(item.id)?.get(variant);
    if (!views)
      throw new HttpError(
        404,
        'That version of the change is no longer held; show the diff of your version again.',
      );
    return views;
  }

  function readJson(req: IncomingMessage): Promise<unknown> {
    return new Promise((resolveBody, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBody) {
          reject(new HttpError(413, `The body is larger than ${maxBody} bytes.`));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        try {
          resolveBody(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new HttpError(400, 'The body is not valid JSON.'));
        }
      });
      req.on('error', reject);
    });
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const source = options.source ?? 'this editgate process';

  return {
    url: `${origin}/?token=${firstToken}`,
    origin,
    port,
    ...(submitToken ? { submitToken } : {}),
    ...(serverKey ? { serverKey } : {}),
    signInLink: (ttlMs) => `${origin}/?token=${links.issue({ ttlMs })}`,
    queue,
    ask: (request, ask = {}) =>
      queue.add(request, { source: ask.source ?? source, ...(ask.signal ? { signal: ask.signal } : {}) }),
    async close() {
      queue.close();
      for (const response of openResponses) response.end();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}

const NONCE_GIVEN_ONCE =
  'The nonce is given once, with the session, by the sign-in link (GET /?token=... with Accept: application/json answers { "nonce" }); sign in again with a new link for a new one.';

/** Why a sign-in link does not sign in, and what to do: said on the page the browser lands on. */
const SIGN_IN_REFUSED: Record<Exclude<Redeemed, 'signed-in'>, (page: string) => string> = {
  used: (page) =>
    `This sign-in link was already used: each link signs in one browser, once. If that was you, the review page is open in that browser (${page}). Otherwise someone else may have used it: get a new link with "editgate review --link" in the project (when editgate review serves the page), or start the command again, and check who else can see your terminal.`,
  expired: () =>
    `This sign-in link has expired (a link editgate opens in the browser works for ${OPEN_LINK_TTL_MS / 60_000} minutes). Get a new link with "editgate review --link" in the project (when editgate review serves the page), or use the link editgate printed.`,
  unknown: () =>
    'This link’s token is not one of this review page. Open the link editgate printed (each works once).',
};

/** A script asking for JSON (Accept: application/json), not a browser navigating. */
function wantsJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return /application\/json/i.test(accept) && !/text\/html/i.test(accept);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

function integer(url: URL, name: string): number {
  const text = url.searchParams.get(name) ?? '';
  if (!/^\d{1,9}$/.test(text)) throw new HttpError(400, `${name} must be a whole number.`);
  return Number(text);
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success)
    throw new HttpError(400, `The request is not understood: ${firstIssue(result.error)}.`);
  return result.data;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function sendHtml(res: ServerResponse, html: string, status = 200): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
  res.end(html);
}

/** A change in the API's list. */
function summary(item: ReviewItem): ChangeSummary {
  return {
    id: item.id,
    status: item.status,
    hash: item.hash,
    tool: item.request.tool,
    kind: item.request.kind,
    path: item.request.path,
    source: item.source,
    files: item.files.map((file) => ({ path: file.path, kind: file.kind, stats: file.stats })),
    ...(item.outcome ? { outcome: { by: item.outcome.by, decision: item.outcome.decision } } : {}),
    ...(item.statusNote ? { statusNote: item.statusNote } : {}),
  };
}

/** A change as the API reads it: the summary, the question and note, and each file's diff text. */
function detail(item: ReviewItem): ChangeDetailReply {
  return {
    ...summary(item),
    ...(item.request.question ? { question: item.request.question } : {}),
    ...(item.request.note ? { note: item.request.note } : {}),
    files: item.files.map((file) => ({
      path: file.path,
      kind: file.kind,
      stats: file.stats,
      unifiedDiff: file.unifiedDiff,
      editable: file.texts !== undefined && file.kind !== 'delete',
      ...(file.note ? { note: file.note } : {}),
    })),
  };
}
