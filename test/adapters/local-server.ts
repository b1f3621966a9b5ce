import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** One request the local API server received, its body parsed as JSON. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever the SDK sent.
  body: any;
}

/** A scripted reply: a JSON body, or server-sent events (each `data:` line a JSON chunk, then [DONE]). */
export type Reply = { json: unknown } | { events: unknown[] };

export interface LocalServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  origin: string;
  requests: RecordedRequest[];
}

const open: (() => Promise<void>)[] = [];

afterEach(async () => {
  while (open.length > 0) await open.pop()!();
});

/**
 * A local HTTP server that speaks just enough of a model API for a real SDK: it records every request and
 * answers the n-th with the n-th reply of the script. A request past the script gets a 500, which the SDK
 * turns into an error the test sees. Closed after each test.
 */
export async function startLocalServer(script: Reply[]): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: text === '' ? undefined : JSON.parse(text),
      });
      answer(response, script[requests.length - 1]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, requests };
}

function answer(response: ServerResponse, reply: Reply | undefined): void {
  if (!reply) {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: 'the test script has no reply for this request' } }));
  } else if ('json' in reply) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(reply.json));
  } else {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of reply.events) response.write(`data: ${JSON.stringify(event)}\n\n`);
    response.end('data: [DONE]\n\n');
  }
}
