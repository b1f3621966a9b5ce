import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Reply } from '../../adapters/local-server.js';
import type { Protocol } from './protocol.js';
import {
  agentToolName,
  editgateToolNames,
  type ResolvedCall,
  type ResolvedTurn,
  type Turn,
} from './script.js';

/** One request the fake model received. */
export interface ModelRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: whatever the agent sent.
  body: any;
  /** The agent's names for editgate's tools that the request makes known to the model (see editgateToolNames). */
  offered: string[];
  /** A request of the agent's main loop (it makes editgate's tools known), answered from the script. */
  main: boolean;
  /** When it arrived: milliseconds since the server started. */
  at: number;
  /** For a main request: the index of the turn that answered it (past the end: the script had ended). */
  turn?: number;
  /** When its answer was sent: milliseconds since the server started (later than `at` by `thinkMs`). */
  answeredAt?: number;
}

export interface ScriptedModel {
  /** http://127.0.0.1:PORT, no trailing slash. */
  origin: string;
  port: number;
  /** performance.now() when the server started: request times (`at`) count from it. */
  startedAt: number;
  /**
   * The same server on a Unix socket: the way in from a network namespace, where 127.0.0.1 is another
   * machine's (run-agent.ts forwards the namespace's 127.0.0.1:PORT to it).
   */
  socketPath: string;
  /** Every request, in order of arrival. */
  requests: ModelRequest[];
  /** The main-loop requests, in order. */
  main(): ModelRequest[];
  /** What went wrong on the model's side (a scripted tool the agent did not offer...): a test expects none. */
  problems: string[];
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  protocol: Protocol;
  script: Turn[];
  /** Which requests belong to the main loop (default: those that make an editgate tool known). */
  isMain?: (request: ModelRequest) => boolean;
  /**
   * How the agent wants a loaded deferred tool called (Qwen Code: through its `tool_call` tool, naming the
   * tool and its arguments); applied to every call of editgate's tools once its name is resolved.
   */
  wrapCall?: (call: ResolvedCall) => ResolvedCall;
  /** The answer to a request outside the main loop (a title, a summary...): default the text "OK". */
  sideTurn?: (request: ModelRequest) => ResolvedTurn;
  /**
   * How long the model "thinks" before it answers a main-loop request (default 0: at once). A real model
   * takes a second or more, and what an agent or editgate does meanwhile in the background (editgate
   * readies its checks when a file is read) is then done before the next call, as it is in real use.
   */
  thinkMs?: number;
}

let sockets = 0;

/** Whether the request offers the model any tool: the main loop of an agent run without editgate's MCP server. */
export function offersTools(request: ModelRequest): boolean {
  const tools = request.body?.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/**
 * A scripted model on 127.0.0.1 (port 0) and on a Unix socket. It records every request and answers the
 * n-th main-loop request with the n-th turn of the script, in the protocol the agent speaks; any other
 * request (agents also ask for titles, token counts, model lists) gets a short answer and does not move the
 * script on. After the last turn, main requests get "The script has ended."
 */
export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const { protocol, script } = options;
  const requests: ModelRequest[] = [];
  const problems: string[] = [];
  let turns = 0;
  let ids = 0;
  const started = performance.now();

  const route = (request: ModelRequest, response: ServerResponse): void => {
    requests.push(request);
    const path = request.url.replace(/\?.*$/, '');
    if (request.method !== 'POST') {
      // Model lists (OpenAI: {data}, Gemini: {models}); some agents look before the first prompt.
      send(response, { json: { object: 'list', data: [{ id: 'fake-model', object: 'model' }], models: [] } });
      return;
    }
    if (!protocol.handles(path)) {
      problems.push(`${protocol.name} server: no route for POST ${request.url}`);
      send(response, { status: 404, json: { error: { message: `no route for POST ${request.url}` } } });
      return;
    }
    const id = `call_${++ids}`;
    let turn: ResolvedTurn;
    if (request.main) {
      request.turn = turns++;
      const scripted = script[request.turn];
      turn = scripted
        ? resolve(scripted, request.offered, id, problems, options.wrapCall)
        : { text: 'The script has ended.' };
    } else {
      turn = options.sideTurn?.(request) ?? { text: 'OK' };
    }
    const answer = () => {
      request.answeredAt = Math.round(performance.now() - started);
      send(response, protocol.answer(path, request.body, turn, id));
    };
    if (!request.main || !options.thinkMs) {
      answer();
      return;
    }
    setTimeout(() => {
      try {
        answer();
      } catch (error) {
        problems.push(`${protocol.name} server failed on ${request.url}: ${String(error)}`);
        if (!response.headersSent)
          send(response, { status: 500, json: { error: { message: String(error) } } });
      }
    }, options.thinkMs);
  };

  const handler = (incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const offered = editgateToolNames([body, protocol.nestedToolNames?.(body) ?? []]);
      const request: ModelRequest = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        body,
        offered,
        main: false,
        at: Math.round(performance.now() - started),
      };
      request.main = request.method === 'POST' && (options.isMain ?? ((r) => r.offered.length > 0))(request);
      try {
        route(request, response);
      } catch (error) {
        problems.push(`${protocol.name} server failed on ${request.url}: ${String(error)}`);
        if (!response.headersSent)
          send(response, { status: 500, json: { error: { message: String(error) } } });
      }
    });
  };

  const tcp = createServer(handler);
  await new Promise<void>((done) => tcp.listen(0, '127.0.0.1', done));
  const socketPath = join(tmpdir(), `editgate-model-${process.pid}-${++sockets}.sock`);
  rmSync(socketPath, { force: true });
  const unix = createServer(handler);
  await new Promise<void>((done) => unix.listen(socketPath, done));
  const port = (tcp.address() as AddressInfo).port;

  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    startedAt: started,
    socketPath,
    requests,
    main: () => requests.filter((request) => request.main),
    problems,
    async close() {
      await Promise.all([stop(tcp), stop(unix)]);
      rmSync(socketPath, { force: true });
    },
  };
}

/** The scripted turn with the agent's names for editgate's tools; a tool it did not offer is a problem. */
function resolve(
  turn: Turn,
  offered: string[],
  id: string,
  problems: string[],
  wrapCall: ((call: ResolvedCall) => ResolvedCall) | undefined,
): ResolvedTurn {
  if ('say' in turn) return { text: turn.say };
  const calls = turn.call.map((call, n) => {
    const resolved = { id: `${id}_${n}`, name: call.tool, input: call.input };
    if (call.exact) return resolved;
    const name = agentToolName(call.tool, offered);
    if (!name)
      problems.push(
        `the script calls ${call.tool}, which the agent did not offer (offered: ${offered.join(', ')})`,
      );
    const named = { ...resolved, name: name ?? call.tool };
    return wrapCall ? wrapCall(named) : named;
  });
  return { calls };
}

function stop(server: Server): Promise<void> {
  return new Promise((done) => {
    server.closeAllConnections();
    server.close(() => done());
  });
}

/** Writes a reply: JSON, OpenAI-style `data:` events ending in [DONE], or named server-sent events. */
function send(response: ServerResponse, reply: Reply): void {
  if ('json' in reply) {
    response.writeHead('status' in reply ? reply.status : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(reply.json));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if ('sse' in reply) {
    for (const { event, data } of reply.sse) {
      response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
    }
    response.end();
  } else {
    for (const event of reply.events) response.write(`data: ${JSON.stringify(event)}\n\n`);
    response.end('data: [DONE]\n\n');
  }
}
