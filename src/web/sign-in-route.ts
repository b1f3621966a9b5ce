/**
 * The sign-in link's answer. The link's token was redeemed by the checks (route-access.ts: good once, and
 * refused with a page that says what to do otherwise), which made the session; here it is handed over: a
 * session cookie and, once, the session's nonce, to a browser in a page whose script keeps it (sign-in.js:
 * in this origin's storage, which no other port can read) and moves on to the page without the token in
 * the address bar or history, or to a script asking for JSON as `{ nonce }`.
 */
import { wantsJson } from './http-reply.js';
import { signInPageHtml } from './page.js';
import { SECURITY_HEADERS } from './request-guard.js';
import { cookieName } from './review-state.js';
import type { RouteContext } from './route-context.js';
import type { SignInReply } from './wire.js';

export function signIn({ req, res, state, session, face }: RouteContext): void {
  // Over HTTPS (the listening address) the cookie is never sent over plain HTTP.
  const cookie = `${cookieName(state)}=${session!.cookie}; HttpOnly; SameSite=Strict; Path=/${face === 'listen' ? '; Secure' : ''}`;
  if (wantsJson(req)) {
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Set-Cookie': cookie,
      'Content-Type': 'application/json; charset=utf-8',
    });
    res.end(JSON.stringify({ nonce: session!.nonce } satisfies SignInReply));
    return;
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Set-Cookie': cookie,
    'Content-Type': 'text/html; charset=utf-8',
  });
  res.end(signInPageHtml(session!.nonce));
}
