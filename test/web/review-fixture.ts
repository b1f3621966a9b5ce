/**
 * A review server over a real workspace, with the gate asking it: changes proposed through the tools wait
 * on the page until answered. Raw HTTP (node:http, so Host, Origin and cookies are exactly what a test
 * says) for the API and the security rules.
 */
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterEach } from 'vitest';
import type { ToolResult } from '../../src/tools/result.js';
import { type ReviewServer, startReviewServer } from '../../src/web/review-server.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';

const servers: ReviewServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): Record<string, unknown>;
}

export function http(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { Host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface SignedIn {
  cookie: string;
  nonce: string;
  origin: string;
  /** A decision as the page sends it: every header right unless a test overrides one. */
  decide(
    id: string,
    body: Record<string, unknown>,
    headers?: Record<string, string | undefined>,
  ): Promise<HttpAnswer>;
}

/** Opens the link as a browser would (token -> cookie) and takes a nonce, as the page's script does. */
export async function signIn(server: ReviewServer): Promise<SignedIn> {
  const first = await http(server.port, { path: new URL(server.url).pathname + new URL(server.url).search });
  const setCookie = String(first.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
  const session = await http(server.port, { path: '/api/session', headers: { Cookie: cookie } });
  const nonce = String(session.json().nonce);
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    cookie,
    nonce,
    origin,
    decide(id, body, headers = {}) {
      const all: Record<string, string | undefined> = {
        Cookie: cookie,
        Origin: origin,
        'X-Editgate-Nonce': nonce,
        'Content-Type': 'application/json',
        ...headers,
      };
      const sent = Object.fromEntries(
        Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
      return http(server.port, {
        method: 'POST',
        path: `/api/changes/${id}/decision`,
        headers: sent,
        body: JSON.stringify(body),
      });
    },
  };
}

/** A workspace whose changes are approved on a review page. */
export async function reviewWorkspace(files: Record<string, string> = {}) {
  const ws = await makeWorkspace(files);
  const server = await startReviewServer({ root: ws.root, source: 'the test' });
  servers.push(server);
  const tools = ws.tools({ approve: (request) => server.ask(request), readLimit: 100_000 });
  /** Starts a tool call that will wait on the page; resolves once the change is listed there. */
  const propose = async (name: string, input: Record<string, unknown>) => {
    const path = input.file_path;
    // Edits and overwrites need a full read first, as for a model.
    if (typeof path === 'string' && existsSync(ws.path(path))) await readAll(tools, path);
    const before = new Set(server.queue.list().map((item) => item.id));
    const queued = new Promise<string>((resolve) => {
      const stop = server.queue.subscribe((event) => {
        if (event.type === 'added' && !before.has(event.item.id)) {
          stop();
          resolve(event.item.id);
        }
      });
    });
    const result: Promise<ToolResult> = tools.execute(name, input);
    const id = await Promise.race([
      queued,
      result.then((done) => Promise.reject(new Error(`answered without the page: ${done.message}`))),
    ]);
    const item = server.queue.get(id)!;
    return { id, hash: item.hash, result };
  };
  return { ws, server, tools, propose };
}

/** The id of the first change the page lists, once one arrives. */
export function firstQueued(server: Pick<ReviewServer, 'queue'>): Promise<string> {
  return new Promise<string>((resolve) => {
    const listed = server.queue.list()[0];
    if (listed) resolve(listed.id);
    else server.queue.subscribe((event) => resolve(event.item.id));
  });
}
