/**
 * Every route of the review server, in one table: its method, its path, the access it needs and its
 * handler. The checks an access level demands are made in one place (route-access.ts) for every route,
 * before its handler runs; a handler never checks who asks. test/web/routes.test.ts holds the table to the
 * rule: nothing that reads a change or decides is open to less than the session's nonce.
 *
 * A path's `:name` parts match letters, digits, `_` and `-` (`:index`: digits only). A request no route
 * matches is held to the strictest access of its area before it is told there is nothing there, so an
 * unknown path tells an unproven asker nothing the page's frame would not.
 */
import { changeDetail, fileTexts, listChanges } from './api-routes.js';
import { ASSET_PATHS } from './assets.js';
import { decide, editPreview } from './decision-routes.js';
import { openEvents } from './events-route.js';
import { HttpError } from './http-reply.js';
import {
  asset,
  changeFragment,
  expandFragment,
  favicon,
  page,
  pageFragment,
  queueFragment,
} from './page-routes.js';
import type { Handler } from './route-context.js';
import { signIn } from './sign-in-route.js';
import { hello, noSubmissionRoute, signInLink, submit, withdraw } from './submission-routes.js';

/**
 * Who may use a route, weakest first:
 * - `anyone`: Host alone (nothing of the changes in it);
 * - `sign-in-link`: a sign-in link's token, good once: redeeming it makes the session;
 * - `cookie`: the session cookie: the page's frame, script and style, nothing of a change (every server on
 *   127.0.0.1 receives the cookie, whatever its port);
 * - `nonce`: the cookie and the session's nonce: reads of the changes;
 * - `decide`: the nonce, and a POST of JSON from the page's own origin: what changes anything;
 * - `process`: another editgate process (no Origin, a POST of JSON, changes from processes accepted);
 * - `process-token`: that, with the bearer token of the discovery file.
 */
export type Access = 'anyone' | 'sign-in-link' | 'cookie' | 'nonce' | 'decide' | 'process' | 'process-token';

export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly access: Access;
  readonly handle: Handler;
  /** Also required of the URL (the sign-in link is `/` with a token). */
  readonly query?: 'token';
  /** Where the nonce comes with the request: the header (default), or the query (EventSource sends no header). */
  readonly nonceIn?: 'query';
  /** A route that once gave the nonce: asked without one, it answers 410 (the nonce is given once). */
  readonly nonceGone?: true;
}

const nothingHere: Handler = () => {
  throw new HttpError(404, 'Nothing here.');
};

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/favicon.ico', access: 'anyone', handle: favicon },
  { method: 'POST', path: '/favicon.ico', access: 'anyone', handle: favicon },
  { method: 'GET', path: '/', query: 'token', access: 'sign-in-link', handle: signIn },
  { method: 'GET', path: '/', access: 'cookie', handle: page },
  ...ASSET_PATHS.map((path): Route => ({ method: 'GET', path, access: 'cookie', handle: asset })),
  { method: 'GET', path: '/api/session', access: 'nonce', nonceGone: true, handle: nothingHere },
  { method: 'GET', path: '/events', access: 'nonce', nonceIn: 'query', handle: openEvents },
  { method: 'GET', path: '/fragments/queue', access: 'nonce', handle: queueFragment },
  { method: 'GET', path: '/fragments/change', access: 'nonce', handle: changeFragment },
  { method: 'GET', path: '/fragments/page', access: 'nonce', handle: pageFragment },
  { method: 'GET', path: '/fragments/expand', access: 'nonce', handle: expandFragment },
  { method: 'GET', path: '/api/changes', access: 'nonce', handle: listChanges },
  { method: 'GET', path: '/api/changes/:id', access: 'nonce', handle: changeDetail },
  { method: 'GET', path: '/api/changes/:id/files/:index', access: 'nonce', handle: fileTexts },
  { method: 'POST', path: '/api/changes/:id/edit-preview', access: 'decide', handle: editPreview },
  { method: 'POST', path: '/api/changes/:id/decision', access: 'decide', handle: decide },
  { method: 'POST', path: '/api/submissions/hello', access: 'process', handle: hello },
  { method: 'POST', path: '/api/submissions/link', access: 'process-token', handle: signInLink },
  { method: 'POST', path: '/api/submit', access: 'process-token', handle: submit },
  { method: 'POST', path: '/api/submissions/:id/withdraw', access: 'process-token', handle: withdraw },
];

/** Paths under this prefix belong to other processes (no browser may use them). */
const SUBMISSIONS = '/api/submi';

/** What a request no route matches is held to, by its area and method, before its 404. */
export const UNMATCHED: { readonly submissions: Route; readonly get: Route; readonly other: Route } = {
  submissions: {
    method: 'POST',
    path: `${SUBMISSIONS}*`,
    access: 'process-token',
    handle: noSubmissionRoute,
  },
  get: { method: 'GET', path: '*', access: 'nonce', handle: nothingHere },
  other: { method: 'POST', path: '*', access: 'decide', handle: nothingHere },
};

export interface Matched {
  readonly route: Route;
  readonly params: Record<string, string>;
}

const compiled = ROUTES.map((route) => ({
  route,
  pattern: new RegExp(
    `^${route.path
      .split('/')
      .map((part) =>
        part === ':index'
          ? '(?<index>\\d+)'
          : part.startsWith(':')
            ? `(?<${part.slice(1)}>[\\w-]+)`
            : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/')}$`,
  ),
}));

export function matchRoute(method: string, url: URL): Matched {
  for (const { route, pattern } of compiled) {
    if (route.method !== method) continue;
    if (route.query && !url.searchParams.has(route.query)) continue;
    const found = pattern.exec(url.pathname);
    if (found) return { route, params: { ...found.groups } };
  }
  const route = url.pathname.startsWith(SUBMISSIONS)
    ? UNMATCHED.submissions
    : method === 'GET'
      ? UNMATCHED.get
      : UNMATCHED.other;
  return { route, params: {} };
}
