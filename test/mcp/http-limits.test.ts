import { chmodSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServeOptions, type RunningHttpServer, serveHttp } from '../../src/mcp/http.js';
import { readTokenFile } from '../../src/mcp/http-token.js';
import { stderrLogger } from '../../src/mcp/logger.js';
import { tempFolder } from '../temp-folder.js';
import { ensureBuilt, startHttpServer, workspace } from './helpers.js';

/**
 * Issue #13, item 4: the HTTP server as another local user, or a flood of clients, would use it. A token by
 * default; sessions capped and closed when idle; request bodies bounded in memory all together.
 */
beforeAll(ensureBuilt, 120_000);

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
});

interface Answer {
  status: number;
  sessionId?: string;
}

/** A POST; `body` may be a function that writes part of the body and leaves the request open. */
function post(
  url: string,
  headers: Record<string, string>,
  body: string | ((req: ReturnType<typeof request>) => void),
) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        const sessionId = res.headers['mcp-session-id'];
        resolve({ status: res.statusCode ?? 0, ...(typeof sessionId === 'string' ? { sessionId } : {}) });
        res.destroy();
      },
    );
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error),
    );
    if (typeof body === 'string') req.end(body);
    else body(req);
  });
}

async function library(overrides: Partial<HttpServeOptions>): Promise<RunningHttpServer> {
  const root = workspace({ 'a.txt': 'a\n' });
  const server = await serveHttp({
    roots: [root],
    approve: 'deny',
    config: { config: {}, options: {} },
    useClientRoots: false,
    changeTtlMs: 60_000,
    approvalTimeoutMs: 60_000,
    maxInputBytes: 1024,
    log: stderrLogger('error', () => {}),
    port: 0,
    ...overrides,
  });
  cleanups.push(() => server.close());
  return server;
}

describe('the HTTP server (issue #13)', () => {
  it('requires a token by default: it makes one and prints it; a request without it is refused', async () => {
    const { url, token, stderr, stop } = await startHttpServer([workspace()]);
    cleanups.push(stop);
    expect(token).toMatch(/^[\w-]{32}$/);
    expect(stderr()).toContain('bearer token required');
    expect((await post(url, {}, INITIALIZE)).status).toBe(401);
    expect((await post(url, { Authorization: `Bearer ${token}` }, INITIALIZE)).status).toBe(200);
  });

  it('reads the token from a file only its owner can read, and refuses one others can', async () => {
    const dir = tempFolder('editgate-token-');
    const file = join(dir, 'token');
    writeFileSync(file, 'a-token-from-a-file-0123\n', { mode: 0o600 });
    expect(readTokenFile(file)).toBe('a-token-from-a-file-0123');
    chmodSync(file, 0o644);
    expect(() => readTokenFile(file)).toThrow(/chmod 600/);
    const { url, stop } = await startHttpServer([workspace(), '--token-file', join(dir, 'other')]).catch(
      (error: Error) => ({ url: error.message, stop: async () => {} }),
    );
    cleanups.push(stop);
    expect(url).toContain('Cannot read the token file');
  });

  it('holds at most maxSessions; another initialize is refused with 503', async () => {
    const { url } = await library({ maxSessions: 2 });
    expect((await post(url, {}, INITIALIZE)).status).toBe(200);
    expect((await post(url, {}, INITIALIZE)).status).toBe(200);
    expect((await post(url, {}, INITIALIZE)).status).toBe(503);
  });

  it('closes a session idle longer than sessionIdleMs', async () => {
    const { url } = await library({ sessionIdleMs: 20 });
    const { sessionId } = await post(url, {}, INITIALIZE);
    expect(sessionId).toBeTruthy();
    // Polled, not timed: the session is gone once the reaper has run. Each ping is a request, which keeps
    // the session alive, so the wait before it is well past the idle time (a 10 ms wait let a fast machine
    // keep the session open for ever).
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    let status = 0;
    for (let i = 0; i < 50 && status !== 404; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (
        await post(
          url,
          { 'Mcp-Session-Id': sessionId!, 'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION },
          ping,
        )
      ).status;
    }
    expect(status).toBe(404);
  });

  it('bounds the bodies held at once: a second large body while the first is still arriving gets 503', async () => {
    const { url } = await library({ bodyBudgetBytes: 6000 });
    // The first request declares 4000 bytes and sends them slowly (here: not at all yet).
    let first!: ReturnType<typeof request>;
    const pending = post(url, { 'Content-Length': '4000' }, (req) => {
      first = req;
      req.write(' ');
    });
    // Wait until the server has taken the first request's reservation: a second one of 4000 is then refused.
    let second: Answer = { status: 0 };
    for (let i = 0; i < 500 && second.status !== 503; i++) {
      second = await post(url, { 'Content-Length': '4000' }, ' '.repeat(4000));
    }
    expect(second.status).toBe(503);
    first.end(`${INITIALIZE}${' '.repeat(3999 - INITIALIZE.length)}`);
    expect((await pending).status).toBe(200);
    // Its reservation is given back: the same request now goes through (400: it is no initialize).
    expect((await post(url, { 'Content-Length': '4000' }, ' '.repeat(4000))).status).toBe(400);
  });
});
