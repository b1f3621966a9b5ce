/**
 * Who may use the review server. It can write files, so every request proves where it comes from:
 * - Host must be 127.0.0.1:PORT or localhost:PORT (a page whose DNS name was rebound to 127.0.0.1 sends its
 *   own name): the rule of core/loopback-host.ts, which the MCP server's HTTP transport applies too;
 * - the page's session is an HttpOnly, SameSite=Strict cookie, given only in exchange for the 256-bit
 *   token of a sign-in link, which works once (sign-in-links.ts); another site's page never sends it along;
 * - a cookie is not scoped by port: every server on 127.0.0.1 receives it. So the cookie alone reads only
 *   the page itself; a request that decides, and every API or fragment request, also needs the session's
 *   nonce (a header no other page can read or forge), which the sign-in answer gives once and nothing gives
 *   again. A request that changes something also needs `Content-Type: application/json` (a plain HTML form
 *   cannot send it) and the page's own Origin;
 * - other editgate processes that send changes to `editgate review` use a separate bearer token, from a
 *   discovery file only the user can read, and send no Origin (browsers always do on a POST).
 * Responses carry no CORS headers, and headers that keep the page out of frames, caches and referrers.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export const NONCE_HEADER = 'x-editgate-nonce';

/** A secret for a URL, a cookie or a header: 256 random bits, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares secrets in constant time (equal-length digests: neither content nor length leaks). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function isJson(contentType: string | undefined): boolean {
  return /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i.test(contentType ?? '');
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

export function bearerToken(req: IncomingMessage): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
}

const MAX_SESSIONS = 64;

/**
 * A signed-in browser (or script): the cookie's value, and the nonce every request that reads a change
 * through the API or decides one must carry. The nonce is given once, in the answer to the sign-in link,
 * and never again: a cookie goes to every server on 127.0.0.1 whatever its port, so another local program
 * that receives it must not be able to turn it into a nonce.
 */
export interface Session {
  readonly cookie: string;
  readonly nonce: string;
  /** Where it signed in: this machine (127.0.0.1), or the listening address (`--listen`, HTTPS). */
  readonly face: Face;
  /** Made by a change's link: the one change it may see and answer (route-access.ts). */
  readonly change?: string;
}

/** Which of the server's addresses a request came to. */
export type Face = 'loopback' | 'listen';

/** The signed-in sessions, by cookie value. */
export class Sessions {
  private readonly sessions: Session[] = [];

  create(options: { face: Face; change?: string | undefined } = { face: 'loopback' }): Session {
    const session: Session = {
      cookie: newSecret(),
      nonce: newSecret(),
      face: options.face,
      ...(options.change === undefined ? {} : { change: options.change }),
    };
    this.sessions.push(session);
    // The oldest go first; a person signing in again gets a new session.
    while (this.sessions.length > MAX_SESSIONS) this.sessions.shift();
    return session;
  }

  /** The session of a cookie value, when it is one of ours (compared in constant time). */
  find(cookie: string | undefined): Session | undefined {
    if (!cookie) return undefined;
    return this.sessions.find((session) => sameSecret(cookie, session.cookie));
  }

  nonceValid(session: Session, nonce: string | undefined): boolean {
    return nonce !== undefined && sameSecret(nonce, session.nonce);
  }
}
