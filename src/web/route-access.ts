/**
 * The checks of every request to the review server, in one place: the table (routes.ts) names the access
 * each route needs, and `admit` demands it before the route's handler runs. Which checks there are, and
 * why, is request-guard.ts's comment; the order here is the order of the answers a refused asker gets.
 *
 * A request comes to one of two faces. On 127.0.0.1 (`loopback`) everything is as it always was. On the
 * listening address (`listen`: `editgate review --listen`, HTTPS only) the rules widen for that one address
 * and narrow for everything else: Host and Origin must name it (core/listen-host.ts); only a change's link
 * signs in there, and its session sees and answers that change alone; other processes never send changes
 * there; and bad tokens from one address are slowed, then refused (bad-token-throttle.ts).
 */
import type { IncomingMessage } from 'node:http';
import { hostNamesListenAddress, originIsListenAddress } from '../core/listen-host.js';
import { hostNamesThisServer, originIsThisPage } from '../core/loopback-host.js';
import { HttpError, headerValue } from './http-reply.js';
import {
  bearerToken,
  cookieValue,
  type Face,
  isJson,
  NONCE_HEADER,
  type Session,
  sameSecret,
} from './request-guard.js';
import { cookieName, type ReviewState } from './review-state.js';
import type { Route } from './routes.js';
import { OPEN_LINK_TTL_MS, type Redeemed } from './sign-in-links.js';

/**
 * Lets the request through to its route, or throws the HttpError that says why not. Returns the session
 * of the request (for a sign-in link, the one its token just made); undefined on routes that need none.
 */
export function admit(
  route: Route,
  req: IncomingMessage,
  url: URL,
  state: ReviewState,
  face: Face = 'loopback',
  params: Readonly<Record<string, string>> = {},
): Session | undefined {
  const host = req.headers.host;
  const listen = face === 'listen' ? state.listen : undefined;
  if (face === 'listen' && !listen) throw new HttpError(404, 'Nothing here.');
  if (listen) {
    if (!hostNamesListenAddress(host, listen.address, listen.port)) {
      throw new HttpError(
        403,
        `Host ${JSON.stringify(host ?? '')} is not this server: use https://${listen.address.authorityName}:${listen.port}/`,
      );
    }
  } else if (!hostNamesThisServer(host, state.port)) {
    throw new HttpError(
      403,
      `Host ${JSON.stringify(host ?? '')} is not this server: use http://127.0.0.1:${state.port}/`,
    );
  }
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'POST') throw new HttpError(405, `${method} is not used here.`);
  const asker = req.socket.remoteAddress ?? '';
  if (listen && route.access !== 'anyone') {
    const refused = state.throttle.refused(asker);
    if (refused)
      throw new HttpError(
        429,
        `Too many wrong links or sessions came from ${asker}: it is refused for ${refused.minutes} more minute(s). If that was you, wait, then open the newest link editgate sent.`,
        'Refused for a while',
      );
  }
  // A wrong token on the listening address counts against the address it came from.
  const badToken = (error: HttpError): HttpError =>
    listen
      ? new HttpError(error.status, error.message, error.pageTitle, state.throttle.failed(asker))
      : error;
  switch (route.access) {
    case 'anyone':
      return undefined;
    case 'sign-in-link':
      return redeemLink(url.searchParams.get('token') ?? '', state, face, badToken, host);
    case 'process':
    case 'process-token':
      // Other editgate processes are on this machine: they never send changes to the listening address.
      if (listen) throw new HttpError(404, 'Nothing here.');
      admitProcess(route, req, state);
      return undefined;
    case 'cookie':
    case 'nonce':
    case 'decide':
      return admitPage(route, req, url, state, face, params, badToken);
  }
}

/** The page's own address, as a person opens it on this face. */
function pageAddress(state: ReviewState, face: Face, host: string | undefined): string {
  return face === 'listen' && state.listen
    ? `https://${state.listen.address.authorityName}:${state.listen.port}/`
    : `http://${host ?? `127.0.0.1:${state.port}`}/`;
}

/**
 * A sign-in link works once (and, when it was given a time, for that long): redeemed, it makes a session,
 * scoped to its change when it is a change's link. The listening address takes a change's link only.
 */
function redeemLink(
  token: string,
  state: ReviewState,
  face: Face,
  badToken: (error: HttpError) => HttpError,
  host: string | undefined,
): Session {
  const { redeemed, change } = state.links.redeemScoped(token);
  if (redeemed !== 'signed-in') {
    throw badToken(
      new HttpError(
        redeemed === 'unknown' ? 403 : 410,
        (change === undefined ? SIGN_IN_REFUSED : CHANGE_LINK_REFUSED)[redeemed](
          pageAddress(state, face, host),
        ),
        'Not signed in',
      ),
    );
  }
  if (face === 'listen' && change === undefined) {
    // Spent, and refused: the whole page is for this machine's browser.
    throw new HttpError(
      403,
      `This link opens the whole review page, which is served on this machine only (http://127.0.0.1:${state.port}/). On the listening address, open the link editgate sent for one change.`,
      'Not signed in',
    );
  }
  return state.sessions.create({ face, change });
}

/** The page, from the person's browser (or a script signed in with a link). */
function admitPage(
  route: Route,
  req: IncomingMessage,
  url: URL,
  state: ReviewState,
  face: Face,
  params: Readonly<Record<string, string>>,
  badToken: (error: HttpError) => HttpError,
): Session {
  const found = state.sessions.find(cookieValue(req.headers.cookie, cookieName(state)));
  // A session answers on the face it signed in on (a cookie carried to the other is no session there).
  const session = found?.face === face ? found : undefined;
  if (!session) {
    throw badToken(
      new HttpError(401, 'Not signed in: open the link editgate printed (its token signs the browser in).'),
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
    throw badToken(
      new HttpError(403, `The ${NONCE_HEADER} header is missing or not this session's. ${NONCE_GIVEN_ONCE}`),
    );
  }
  if (session.change !== undefined) {
    // A change's link: that change alone (the lists and the live updates show only it: their handlers).
    const named = params.id ?? url.searchParams.get('change') ?? undefined;
    if (named !== undefined && named !== session.change)
      throw new HttpError(403, 'This link was for another change: open the link editgate sent for that one.');
  }
  if (route.access === 'nonce') return session;
  if (req.method !== 'POST') throw new HttpError(405, 'POST only.');
  const listen = face === 'listen' ? state.listen : undefined;
  if (
    listen
      ? !originIsListenAddress(req.headers.origin, listen.address, listen.port)
      : !originIsThisPage(req.headers.origin, req.headers.host)
  ) {
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

/** Why a change's link does not sign in, and what to do. */
const CHANGE_LINK_REFUSED: Record<Exclude<Redeemed, 'signed-in'>, (page: string) => string> = {
  used: () =>
    'This link was already used: a change’s link opens that change once, for one answer. If that was you, the change is open in that browser. Otherwise someone else may have used it: answer the change in the terminal or on this machine’s review page, and check where the link was sent.',
  expired: () =>
    'This link has expired (a change’s link works for a short time only). Answer the change in the terminal or on this machine’s review page; the next change sends a new link.',
  unknown: () => 'This link’s token is not one of this review page.',
};

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
