/**
 * Who may use the review server. It can write files, so every request proves where it comes from:
 * - Host must be 127.0.0.1:PORT or localhost:PORT exactly (a page whose DNS name was rebound to 127.0.0.1
 *   sends its own name);
 * - the page's session is an HttpOnly, SameSite=Strict cookie, given only in exchange for the 256-bit
 *   token of the URL editgate printed (so another site's page never sends it along);
 * - a request that changes something also needs a nonce issued with the page (a header no other page can
 *   read or forge), `Content-Type: application/json` (a plain HTML form cannot send it) and the page's own
 *   Origin;
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

export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** The page's own origin, for the Host it was loaded from. */
export function originAllowed(origin: string | undefined, host: string): boolean {
  return origin === `http://${host}`;
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
const MAX_NONCES = 64;

/** Browser sessions (cookie secrets) and the nonces issued to each with a page. */
export class Sessions {
  private readonly sessions = new Map<string, string[]>();

  create(): string {
    const secret = newSecret();
    this.sessions.set(secret, []);
    // The oldest go first; a person opening the link again gets a new session.
    while (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return secret;
  }

  /** The session of a cookie value, when it is one of ours (compared in constant time). */
  find(cookie: string | undefined): string | undefined {
    if (!cookie) return undefined;
    for (const secret of this.sessions.keys()) if (sameSecret(cookie, secret)) return secret;
    return undefined;
  }

  issueNonce(session: string): string {
    const nonces = this.sessions.get(session);
    const nonce = newSecret();
    if (!nonces) return nonce;
    nonces.push(nonce);
    if (nonces.length > MAX_NONCES) nonces.shift();
    return nonce;
  }

  nonceValid(session: string, nonce: string | undefined): boolean {
    if (!nonce) return false;
    return (this.sessions.get(session) ?? []).some((issued) => sameSecret(nonce, issued));
  }
}
