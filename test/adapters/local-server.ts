import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onCleanup } from '../cleanup.js';

/** One request the local API server received, its body parsed as JSON. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever the SDK sent.
  body: any;
}

/**
 * A scripted reply: a JSON body; server-sent events as OpenAI sends them (each `data:` line a JSON chunk,
 * then [DONE]); or named events as Anthropic sends them (`event:` and `data:` lines, no [DONE]). With
 * `hold`, the stream stays open after its events, as a model still thinking (for interrupt tests).
 */
export type Reply =
  | { json: unknown }
  | { events: unknown[]; hold?: boolean }
  | { sse: { event?: string; data: unknown }[]; hold?: boolean }
  | { status: number; json: unknown };

export interface LocalServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  origin: string;
  requests: RecordedRequest[];
}

/**
 * A local HTTP server that speaks just enough of a model API for a real SDK: it records every request and
 * answers the n-th with the n-th reply of the script. A request past the script gets a 500, which the SDK
 * turns into an error the test sees. Closed after each test.
 */
export async function startLocalServer(script: Reply[]): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const origin = await startRecordingServer((request, response) => {
    requests.push(request);
    answer(response, script[requests.length - 1]);
  });
  return { origin, requests };
}

/**
 * The HTTP part: every request's body is read and parsed, then handed to `route` with the response to
 * answer. On 127.0.0.1, an ephemeral port; closed after each test. Returns the origin.
 */
export async function startRecordingServer(
  route: (request: RecordedRequest, response: ServerResponse) => void,
): Promise<string> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      route(
        {
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: text === '' ? undefined : JSON.parse(text),
        },
        response,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export function answer(response: ServerResponse, reply: Reply | undefined): void {
  if (!reply) {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: 'the test script has no reply for this request' } }));
  } else if ('json' in reply) {
    response.writeHead('status' in reply ? reply.status : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(reply.json));
  } else if ('sse' in reply) {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const { event, data } of reply.sse) {
      response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
    }
    if (!reply.hold) response.end();
  } else {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of reply.events) response.write(`data: ${JSON.stringify(event)}\n\n`);
    if (!reply.hold) response.end('data: [DONE]\n\n');
  }
}
