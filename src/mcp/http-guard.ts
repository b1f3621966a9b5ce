import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostNamesThisServer, loopbackOrigin } from '../core/loopback-host.js';

export interface Refused {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Checks every HTTP request before the MCP transport sees it:
 * - Host must name the loopback interface and this server's port (a web page whose DNS name was rebound to
 *   127.0.0.1 sends its own name in Host): the rule of core/loopback-host.ts, which the review page applies
 *   too;
 * - Origin, which browsers send and MCP clients usually do not, must be a loopback origin (any port: a
 *   browser-based MCP client runs on a port of its own): a page on the open web cannot drive the server
 *   from the person's browser;
 * - with a token, `Authorization: Bearer <token>` must carry it (compared in constant time).
 */
export function checkRequest(
  req: IncomingMessage,
  token: string | undefined,
  port: number,
): Refused | undefined {
  const host = req.headers.host;
  if (!hostNamesThisServer(host, port)) {
    return {
      status: 403,
      message: `Forbidden: Host ${JSON.stringify(host ?? '')} is not this local server: use http://127.0.0.1:${port}/`,
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!loopbackOrigin(origin)) {
      return { status: 403, message: `Forbidden: Origin ${JSON.stringify(origin)} may not use this server` };
    }
  }
  if (token !== undefined) {
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    if (given === undefined || !sameSecret(given, token)) {
      return {
        status: 401,
        message: 'Unauthorized: this server needs "Authorization: Bearer <token>" with its token',
        headers: { 'WWW-Authenticate': 'Bearer realm="editgate"' },
      };
    }
  }
  return undefined;
}

function sameSecret(a: string, b: string): boolean {
  // Equal-length digests, so neither the content nor the length of the token leaks through timing.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}
