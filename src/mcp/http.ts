import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { serveOnFirstMessage } from './first-message.js';
import { checkRequest } from './http-guard.js';
import type { McpServeOptions } from './options.js';
import { createSessionServer } from './session.js';

export interface HttpServeOptions extends McpServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** Bearer token every request must carry; none when undefined. */
  token?: string;
}

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

/** The body, or undefined after answering 413 when it passes `limit` bytes. */
async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    sendError(res, 413, `Payload too large: this server accepts requests up to ${limit} bytes`);
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      sendError(res, 413, `Payload too large: this server accepts requests up to ${limit} bytes`);
      req.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
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
  const bodyLimit = options.maxInputBytes * 4 + 1024 * 1024;

  async function startSession(req: IncomingMessage, res: ServerResponse, body: unknown) {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    const { closed } = await serveOnFirstMessage(
      transport,
      (first) => createSessionServer(first, options, `HTTP session ${transport.sessionId ?? ''}`),
      (error) => log.warn(`HTTP session ${transport.sessionId ?? ''}: ${error.message}`),
    );
    closed.then(() => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      log.debug(`HTTP session ${transport.sessionId ?? ''} closed`);
    });
    await transport.handleRequest(req, res, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const refused = checkRequest(req, options.token);
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
    const raw = await readBody(req, res, bodyLimit);
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
  const url = `http://127.0.0.1:${port}${MCP_PATH}`;

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
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
