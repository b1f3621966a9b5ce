/**
 * The local review server: the page, its fragments, the live event stream, the JSON API, and (for
 * `editgate review`) the route by which other editgate processes send their changes. Bound to 127.0.0.1 on
 * a port the system picks; and, when asked (`listen`), on one more address over HTTPS only, where a change's
 * link (changeLink: single-use, expiring, for that change alone) opens that change for one answer. Every
 * request is matched in the route table (routes.ts), admitted by the checks its route needs
 * (route-access.ts; request-guard.ts says who may ask what), then handled.
 */
import { realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ListenAddress } from '../core/listen-host.js';
import type { AnsweredFrom, ApprovalQuestion, Decision } from '../gate/approval.js';
import { loadAssets } from './assets.js';
import { BadTokenThrottle, DEFAULT_THROTTLE, type ThrottleOptions } from './bad-token-throttle.js';
import type { FileView } from './diff-html.js';
import { broadcastChanges } from './events-route.js';
import { HttpError, sendHtml, sendJson, wantsJson } from './http-reply.js';
import { messagePageHtml } from './page.js';
import { type Face, newSecret, Sessions } from './request-guard.js';
import { ReviewQueue } from './review-queue.js';
import type { ReviewState } from './review-state.js';
import { admit } from './route-access.js';
import { matchRoute } from './routes.js';
import { CHANGE_LINK_TTL_MS, SignInLinks } from './sign-in-links.js';
import type { TlsIdentity } from './tls-identity.js';
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
  /** Also serve on this address, over HTTPS with this certificate (`editgate review --listen`). */
  listen?: { address: ListenAddress; tls: TlsIdentity };
  /** How long a change's link works. Default CHANGE_LINK_TTL_MS (15 minutes). */
  changeLinkTtlMs?: number;
  /** A change no one answers within this long is refused (DENIED_NO_APPROVER). Default: none. */
  answerTimeoutMs?: number;
  /** Bad tokens on the listening address: when answers slow down, when the address is refused. */
  throttle?: ThrottleOptions;
}

export interface AskOptions {
  signal?: AbortSignal;
  /** Who asks, when not the server's own process. */
  source?: string;
  /** Told where the answer came from (the audit line records it), before the decision resolves. */
  answeredFrom?: (from: AnsweredFrom) => void;
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
  /**
   * A change's link: it opens that change alone, for one answer, once, until it expires (`ttlMs`, default
   * the server's changeLinkTtlMs). On the listening address when there is one (https://), else on 127.0.0.1.
   */
  changeLink(id: string, ttlMs?: number): string;
  /** https://ADDRESS:PORT when listening on another address. */
  readonly listenOrigin?: string;
  /** The listening address's certificate (its fingerprint is what a person checks in the browser). */
  readonly tls?: TlsIdentity;
  readonly queue: ReviewQueue;
  /** Pages open in a browser now (their live event streams). */
  readonly openPages: number;
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
  let listen: { address: ListenAddress; port: number } | undefined;
  const state: ReviewState = {
    root,
    realRoot: await realpath(root).catch(() => root),
    get port() {
      return port;
    },
    assets: await loadAssets(),
    queue: new ReviewQueue({
      locate,
      ...(options.answerTimeoutMs !== undefined ? { answerTimeoutMs: options.answerTimeoutMs } : {}),
    }),
    links,
    sessions: new Sessions(),
    submitToken: options.acceptSubmissions ? newSecret() : undefined,
    serverKey: options.acceptSubmissions ? newSecret() : undefined,
    maxBody: options.maxBody ?? 256 * 1024 * 1024,
    variants: new Map<string, Map<string, FileView[]>>(),
    eventStreams: new Map(),
    get listen() {
      return listen;
    },
    throttle: new BadTokenThrottle(options.throttle ?? DEFAULT_THROTTLE),
    withdrawals: new Map(),
    openResponses: new Set(),
  };
  const { queue, submitToken, serverKey } = state;
  broadcastChanges(state);

  const handler =
    (face: Face) =>
    (req: IncomingMessage, res: ServerResponse): void => {
      Promise.resolve()
        .then(() => {
          // A request line that is no URL (a client's mistake) ends here as an error answer too.
          const url = new URL(req.url ?? '/', 'http://127.0.0.1');
          const { route, params } = matchRoute(req.method ?? 'GET', url);
          const session = admit(route, req, url, state, face, params);
          return route.handle({ req, res, url, params, state, session, face });
        })
        .catch(async (error: unknown) => {
          const status = error instanceof HttpError ? error.status : 500;
          const message = error instanceof Error ? error.message : String(error);
          // A bad token from an address that sent many waits before it hears so (bad-token-throttle.ts).
          if (error instanceof HttpError && error.delayMs > 0)
            await new Promise((done) => setTimeout(done, error.delayMs));
          if (res.headersSent) res.end();
          else if (error instanceof HttpError && error.pageTitle && !wantsJson(req))
            sendHtml(res, messagePageHtml(error.pageTitle, message), status);
          else sendJson(res, status, { error: message } satisfies ErrorReply);
        });
    };
  const server: Server = createServer(handler('loopback'));
  const servers: Server[] = [server];

  const listenOn = (on: Server, at: number, host: string) =>
    new Promise<void>((resolveListen, reject) => {
      on.once('error', reject);
      on.listen(at, host, () => {
        on.off('error', reject);
        resolveListen();
      });
    });
  await listenOn(server, options.port ?? 0, '127.0.0.1');
  port = (server.address() as AddressInfo).port;
  if (options.listen) {
    const { address, tls } = options.listen;
    const secure = createHttpsServer(
      { cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' },
      handler('listen'),
    );
    try {
      await listenOn(secure, address.port, address.host);
    } catch (error) {
      await new Promise<void>((done) => server.close(() => done()));
      throw error;
    }
    servers.push(secure);
    listen = { address, port: (secure.address() as AddressInfo).port };
  }
  const origin = `http://127.0.0.1:${port}`;
  const listenOrigin = listen ? `https://${listen.address.authorityName}:${listen.port}` : undefined;
  const linkTtlMs = options.changeLinkTtlMs ?? CHANGE_LINK_TTL_MS;
  const source = options.source ?? 'this editgate process';

  return {
    url: `${origin}/?token=${firstToken}`,
    origin,
    port,
    ...(submitToken ? { submitToken } : {}),
    ...(serverKey ? { serverKey } : {}),
    signInLink: (ttlMs) => `${origin}/?token=${links.issue({ ttlMs })}`,
    changeLink: (id, ttlMs) =>
      `${listenOrigin ?? origin}/?token=${links.issue({ ttlMs: ttlMs ?? linkTtlMs, change: id })}`,
    ...(listenOrigin ? { listenOrigin, tls: options.listen!.tls } : {}),
    queue,
    get openPages() {
      return state.eventStreams.size;
    },
    ask: (request, ask = {}) =>
      queue.add(request, {
        source: ask.source ?? source,
        ...(ask.signal ? { signal: ask.signal } : {}),
        ...(ask.answeredFrom ? { answeredFrom: ask.answeredFrom } : {}),
      }),
    async close() {
      queue.close();
      for (const response of state.openResponses) response.end();
      await Promise.all(
        servers.map(
          (each) =>
            new Promise<void>((done) => {
              each.close(() => done());
              each.closeAllConnections();
            }),
        ),
      );
    },
  };
}
