import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { serveOnFirstMessage } from './first-message.js';
import { checkRequest } from './http-guard.js';
import type { McpServeOptions } from './options.js';
import { createSessionServer } from './session-server.js';

export interface HttpServeOptions extends McpServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** Bearer token every request must carry; none when undefined (the CLI always gives one unless --no-token). */
  token?: string;
  /** Most sessions open at once; an initialize beyond it gets 503. Default 64. */
  maxSessions?: number;
  /** A session with no request for this long is closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Request bodies held in memory at once, all requests together; beyond it a request gets 503. */
  bodyBudgetBytes?: number;
}

export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

export interface RunningHttpServer {
  /** The endpoint, e.g. http://127.0.0.1:3000/mcp */
  url: string;
  /** Resolves when close() has finished. */
  closed: Promise<void>;
  close(): Promise<void>;
}

export const MCP_PATH = '/mcp';

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * The bytes of request bodies held at once, by every request together: many large bodies sent slowly at
 * the same time cannot fill the memory. A body's declared length is reserved before it is read.
 */
class BodyBudget {
  private used = 0;
  constructor(readonly limit: number) {}
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** The body, or undefined after answering 413 when it passes `limit` bytes (503 when the budget is spent). */
async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  budget: BodyBudget,
): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    sendError(res, 413, `Payload too large: this server accepts requests up to ${limit} bytes`);
    return undefined;
  }
  const busy = () => {
    sendError(res, 503, 'Server busy: too many large requests at once; retry shortly', {
      'Retry-After': '1',
    });
    req.destroy();
    return undefined;
  };
  let reserved = Number.isFinite(declared) && declared > 0 ? declared : 0;
  if (!budget.take(reserved)) return busy();
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        sendError(res, 413, `Payload too large: this server accepts requests up to ${limit} bytes`);
        req.destroy();
        return undefined;
      }
      if (size > reserved) {
        if (!budget.take(size - reserved)) return busy();
        reserved = size;
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  } finally {
    budget.give(reserved);
  }
}

/**
 * Streamable HTTP on 127.0.0.1 only, one MCP session (and Server) per client session. Every request passes
 * the Host/Origin/token checks first. The body is read here rather than by the SDK so that its size limit
 * sits well above the tool argument limit: arguments that are too big get a TOO_LARGE tool result, and only
 * absurd bodies get an HTTP 413.
 */
export async function serveHttp(options: HttpServeOptions): Promise<RunningHttpServer> {
  const { log } = options;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  /** When each session last had a request: one idle longer than sessionIdleMs is closed. */
  const lastSeen = new Map<string, number>();
  const bodyLimit = options.maxInputBytes * 4 + 1024 * 1024;
  const budget = new BodyBudget(options.bodyBudgetBytes ?? bodyLimit * 2);
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  let starting = 0;
  /** The port the server listens on (known once it does; no request arrives before). */
  let listeningPort = 0;

  const reaper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, seen] of lastSeen) {
        if (now - seen < idleMs) continue;
        lastSeen.delete(id);
        log.info(`HTTP session ${id} closed after ${Math.round(idleMs / 1000)} s without a request`);
        void sessions.get(id)?.close();
        sessions.delete(id);
      }
    },
    Math.max(10, Math.min(idleMs / 2, 60_000)),
  );
  reaper.unref();

  async function startSession(req: IncomingMessage, res: ServerResponse, body: unknown) {
    if (sessions.size + starting >= maxSessions) {
      sendError(res, 503, `Too many sessions: this server holds at most ${maxSessions}; close one first`);
      return;
    }
    starting += 1;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        lastSeen.set(id, Date.now());
      },
    });
    const { closed } = await serveOnFirstMessage(
      transport,
      (first) => createSessionServer(first, options, `HTTP session ${transport.sessionId ?? ''}`),
      (error) => log.warn(`HTTP session ${transport.sessionId ?? ''}: ${error.message}`),
    );
    closed.then(() => {
      if (transport.sessionId) {
        sessions.delete(transport.sessionId);
        lastSeen.delete(transport.sessionId);
      }
      log.debug(`HTTP session ${transport.sessionId ?? ''} closed`);
    });
    try {
      await transport.handleRequest(req, res, body);
    } finally {
      starting -= 1;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const refused = checkRequest(req, options.token, listeningPort);
    if (refused) {
      log.warn(`refused an HTTP request: ${refused.message}`);
      sendError(res, refused.status, refused.message, refused.headers);
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_PATH) {
      sendError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      sendError(res, 405, 'Method not allowed', { Allow: 'GET, POST, DELETE' });
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) lastSeen.set(sessionId as string, Date.now());
    if (req.method !== 'POST') {
      if (!existing) {
        sendError(
          res,
          sessionId ? 404 : 400,
          sessionId ? 'Session not found' : 'Mcp-Session-Id header required',
        );
        return;
      }
      await existing.handleRequest(req, res);
      return;
    }
    const raw = await readBody(req, res, bodyLimit, budget);
    if (raw === undefined) return;
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
      return;
    }
    if (existing) {
      await existing.handleRequest(req, res, body);
      return;
    }
    if (sessionId) {
      sendError(res, 404, 'Session not found');
      return;
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((message) => isInitializeRequest(message))) {
      sendError(res, 400, 'Bad request: no session; start one with an initialize request');
      return;
    }
    await startSession(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.error(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      sendError(res, 500, 'Internal server error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  listeningPort = port;
  const url = `http://127.0.0.1:${port}${MCP_PATH}`;

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      clearInterval(reaper);
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      markClosed();
    })();
    return closing;
  };
  return { url, closed, close };
}
