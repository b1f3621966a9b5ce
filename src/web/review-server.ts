/**
 * The local review server: the page, its fragments, the live event stream, the JSON API, and (for
 * `editgate review`) the route by which other editgate processes send their changes. Bound to 127.0.0.1 on
 * a port the system picks. Every request is matched in the route table (routes.ts), admitted by the checks
 * its route needs (route-access.ts; request-guard.ts says who may ask what), then handled.
 */
import { realpath } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ApprovalQuestion, Decision } from '../gate/approval.js';
import { loadAssets } from './assets.js';
import type { FileView } from './diff-html.js';
import { broadcastChanges } from './events-route.js';
import { HttpError, sendHtml, sendJson, wantsJson } from './http-reply.js';
import { messagePageHtml } from './page.js';
import { newSecret, Sessions } from './request-guard.js';
import { ReviewQueue } from './review-queue.js';
import type { ReviewState } from './review-state.js';
import { admit } from './route-access.js';
import { matchRoute } from './routes.js';
import { SignInLinks } from './sign-in-links.js';
import type { ErrorReply } from './wire.js';

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
  ask(request: ApprovalQuestion, options?: AskOptions): Promise<Decision>;
  close(): Promise<void>;
}

export async function startReviewServer(options: ReviewServerOptions): Promise<ReviewServer> {
  const root = resolve(options.root);
  const locate = (path: string): string | undefined => {
    const absolute = resolve(root, path);
    const inside = relative(root, absolute);
    return inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)
      ? undefined
      : absolute;
  };
  const links = new SignInLinks();
  const firstToken = links.issue();
  let port = 0;
  const state: ReviewState = {
    root,
    realRoot: await realpath(root).catch(() => root),
    get port() {
      return port;
    },
    assets: await loadAssets(),
    queue: new ReviewQueue({ locate }),
    links,
    sessions: new Sessions(),
    submitToken: options.acceptSubmissions ? newSecret() : undefined,
    serverKey: options.acceptSubmissions ? newSecret() : undefined,
    maxBody: options.maxBody ?? 256 * 1024 * 1024,
    variants: new Map<string, Map<string, FileView[]>>(),
    eventStreams: new Set(),
    withdrawals: new Map(),
    openResponses: new Set(),
  };
  const { queue, submitToken, serverKey } = state;
  broadcastChanges(state);

  const server: Server = createServer((req, res) => {
    Promise.resolve()
      .then(() => {
        // A request line that is no URL (a client's mistake) ends here as an error answer too.
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const { route, params } = matchRoute(req.method ?? 'GET', url);
        const session = admit(route, req, url, state);
        return route.handle({ req, res, url, params, state, session });
      })
      .catch((error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        const message = error instanceof Error ? error.message : String(error);
        if (res.headersSent) res.end();
        else if (error instanceof HttpError && error.pageTitle && !wantsJson(req))
          sendHtml(res, messagePageHtml(error.pageTitle, message), status);
        else sendJson(res, status, { error: message } satisfies ErrorReply);
      });
  });

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
      for (const response of state.openResponses) response.end();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}
