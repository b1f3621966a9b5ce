/**
 * The checks of every request to the review server, in one place: the table (routes.ts) names the access
 * each route needs, and `admit` demands it before the route's handler runs. Which checks there are, and
 * why, is request-guard.ts's comment; the order here is the order of the answers a refused asker gets.
 */
import type { IncomingMessage } from 'node:http';
import { hostNamesThisServer, originIsThisPage } from '../core/loopback-host.js';
import { HttpError, headerValue } from './http-reply.js';
import { bearerToken, cookieValue, isJson, NONCE_HEADER, type Session, sameSecret } from './request-guard.js';
import { cookieName, type ReviewState } from './review-state.js';
import type { Route } from './routes.js';
import { OPEN_LINK_TTL_MS, type Redeemed } from './sign-in-links.js';

/**
 * Lets the request through to its route, or throws the HttpError that says why not. Returns the session
 * of the request (for a sign-in link, the one its token just made); undefined on routes that need none.
 */
export function admit(route: Route, req: IncomingMessage, url: URL, state: ReviewState): Session | undefined {
  const host = req.headers.host;
  if (!hostNamesThisServer(host, state.port)) {
    throw new HttpError(
      403,
      `Host ${JSON.stringify(host ?? '')} is not this server: use http://127.0.0.1:${state.port}/`,
    );
  }
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'POST') throw new HttpError(405, `${method} is not used here.`);
  switch (route.access) {
    case 'anyone':
      return undefined;
    case 'sign-in-link':
      return redeemLink(url.searchParams.get('token') ?? '', host!, state);
    case 'process':
    case 'process-token':
      admitProcess(route, req, state);
      return undefined;
    case 'cookie':
    case 'nonce':
    case 'decide':
      return admitPage(route, req, url, state);
  }
}

/** A sign-in link works once (and, when it was given a time, for that long): redeemed, it makes a session. */
function redeemLink(token: string, host: string, state: ReviewState): Session {
  const redeemed = state.links.redeem(token);
  if (redeemed !== 'signed-in') {
    throw new HttpError(
      redeemed === 'unknown' ? 403 : 410,
      SIGN_IN_REFUSED[redeemed](`http://${host}/`),
      'Not signed in',
    );
  }
  return state.sessions.create();
}

/** The page, from the person's browser (or a script signed in with a link). */
function admitPage(route: Route, req: IncomingMessage, url: URL, state: ReviewState): Session {
  const session = state.sessions.find(cookieValue(req.headers.cookie, cookieName(state)));
  if (!session) {
    throw new HttpError(
      401,
      'Not signed in: open the link editgate printed (its token signs the browser in).',
    );
  }
  if (route.access === 'cookie') return session;
  // The cookie reaches every port of 127.0.0.1, so it only shows the page's frame and its script and
  // style; the changes (fragments, API, live updates) need the nonce the sign-in gave, as every decision
  // does. The live updates come from EventSource, which sends no header: their nonce is in the query.
  const nonce =
    route.nonceIn === 'query'
      ? (url.searchParams.get('nonce') ?? undefined)
      : headerValue(req.headers[NONCE_HEADER]);
  if (!state.sessions.nonceValid(session, nonce)) {
    if (route.nonceGone) throw new HttpError(410, NONCE_GIVEN_ONCE);
    throw new HttpError(
      403,
      `The ${NONCE_HEADER} header is missing or not this session's. ${NONCE_GIVEN_ONCE}`,
    );
  }
  if (route.access === 'nonce') return session;
  if (req.method !== 'POST') throw new HttpError(405, 'POST only.');
  if (!originIsThisPage(req.headers.origin, req.headers.host)) {
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
  return session;
}

/** Another editgate process: never a browser, and (but for the server's proof of itself) with the token. */
function admitProcess(route: Route, req: IncomingMessage, state: ReviewState): void {
  if (!state.submitToken || !state.serverKey)
    throw new HttpError(404, 'This review page does not accept changes from other processes.');
  if (req.headers.origin !== undefined) throw new HttpError(403, 'Browsers may not send changes here.');
  if (req.method !== 'POST') throw new HttpError(405, 'POST only.');
  if (!isJson(req.headers['content-type']))
    throw new HttpError(415, 'Send JSON, with Content-Type: application/json.');
  if (route.access === 'process') return;
  const given = bearerToken(req);
  if (!given || !sameSecret(given, state.submitToken))
    throw new HttpError(401, 'A bearer token from the discovery file is needed.');
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
