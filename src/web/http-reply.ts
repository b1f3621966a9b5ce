/**
 * The review server's answers and the small readings of a request its handlers share: a refusal as an
 * HttpError (its status and words), JSON and HTML answers with the security headers, a JSON body read
 * within its limit and checked by its wire schema, a whole number from the query.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { SECURITY_HEADERS } from './request-guard.js';
import { firstIssue } from './wire.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A browser navigating here is shown a page with this title and the message, not JSON. */
    readonly pageTitle?: string,
    /** Answered only after this long (a bad token from an address that sent many: bad-token-throttle.ts). */
    readonly delayMs = 0,
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

export function sendHtml(res: ServerResponse, html: string, status = 200): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
  res.end(html);
}

/** A script asking for JSON (Accept: application/json), not a browser navigating. */
export function wantsJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return /application\/json/i.test(accept) && !/text\/html/i.test(accept);
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

export function integer(url: URL, name: string): number {
  const text = url.searchParams.get(name) ?? '';
  if (!/^\d{1,9}$/.test(text)) throw new HttpError(400, `${name} must be a whole number.`);
  return Number(text);
}

/** The body checked by its wire schema (wire.ts): 400 with the first problem when it does not fit. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success)
    throw new HttpError(400, `The request is not understood: ${firstIssue(result.error)}.`);
  return result.data;
}

/** The JSON body, refused past `maxBody` bytes (413) or when it is not JSON (400). */
export function readJson(req: IncomingMessage, maxBody: number): Promise<unknown> {
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
