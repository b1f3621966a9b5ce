import type { ServerResponse } from 'node:http';
import { chunk } from '../adapters/chat-completions.js';
import { answer, type RecordedRequest, type Reply, startRecordingServer } from '../adapters/local-server.js';

/**
 * A model server on 127.0.0.1 for the chat agent's tests, speaking both protocol families the real SDK
 * providers use, streaming included: Anthropic Messages (POST /v1/messages) and OpenAI Chat Completions
 * (POST /v1/chat/completions), plus GET /v1/models. It is driven by a script of turns: the n-th model
 * request, whichever protocol, is answered with the n-th turn (text, then tool calls). A request past the
 * script gets a 500.
 */
export interface ScriptedTurn {
  /** Text streamed first, in `chunks` pieces (default: word by word). */
  text?: string;
  calls?: { name: string; input: unknown }[];
  /** Stream everything, then keep the response open without finishing (a model still working). */
  hold?: boolean;
  /** Prompt tokens the server reports (default 100 000: more than any test sends, so no truncation warning). */
  inputTokens?: number;
  /** Answer with this HTTP error instead. */
  error?: { status: number; message: string };
}

export interface FakeModelServer {
  origin: string;
  /** `${origin}/v1`: what --base-url takes. */
  baseURL: string;
  /** Model requests (POST), in order. */
  requests: RecordedRequest[];
  /** Resolves when the n-th model request (1-based) has arrived. */
  request(n: number): Promise<RecordedRequest>;
}

export async function startFakeModelServer(
  turns: ScriptedTurn[],
  options: { models?: string[] } = {},
): Promise<FakeModelServer> {
  const requests: RecordedRequest[] = [];
  const waiters: { n: number; resolve: (request: RecordedRequest) => void }[] = [];
  const origin = await startRecordingServer((request, response) => {
    const path = request.path.replace(/\?.*$/, '');
    if (request.method === 'GET' && path === '/v1/models') {
      answer(response, {
        json: { object: 'list', data: (options.models ?? []).map((id) => ({ id, object: 'model' })) },
      });
      return;
    }
    requests.push(request);
    for (const waiter of waiters.filter((w) => w.n <= requests.length)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(requests[waiter.n - 1]!);
    }
    const turn = turns[requests.length - 1];
    const id = `call_${requests.length}`;
    if (path === '/v1/messages')
      reply(response, turn && (turn.error ? errorReply(turn) : anthropicStream(turn, id)));
    else if (path === '/v1/chat/completions')
      reply(response, turn && (turn.error ? errorReply(turn) : chatStream(turn, id)));
    else
      answer(response, { status: 404, json: { error: { message: `no route ${request.method} ${path}` } } });
  });
  return {
    origin,
    baseURL: `${origin}/v1`,
    requests,
    request(n) {
      if (requests.length >= n) return Promise.resolve(requests[n - 1]!);
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

function reply(response: ServerResponse, value: Reply | undefined): void {
  answer(response, value);
}

function errorReply(turn: ScriptedTurn): Reply {
  return { status: turn.error!.status, json: { error: { type: 'error', message: turn.error!.message } } };
}

function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** The turn as Anthropic Messages streaming events. */
export function anthropicStream(turn: ScriptedTurn, id: string): Reply {
  const sse: { event: string; data: unknown }[] = [];
  const event = (data: { type: string }) => sse.push({ event: data.type, data });
  event({
    type: 'message_start',
    message: {
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      model: 'fake',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: turn.inputTokens ?? 100_000, output_tokens: 1 },
    },
  } as { type: string });
  let index = 0;
  if (turn.text) {
    event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } } as {
      type: string;
    });
    for (const piece of pieces(turn.text)) {
      event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } } as {
        type: string;
      });
    }
    event({ type: 'content_block_stop', index } as { type: string });
    index++;
  }
  (turn.calls ?? []).forEach((call, n) => {
    const json = JSON.stringify(call.input);
    const half = Math.floor(json.length / 2);
    event({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: `toolu_${id}_${n}`, name: call.name, input: {} },
    } as { type: string });
    for (const part of [json.slice(0, half), json.slice(half)]) {
      event({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: part },
      } as {
        type: string;
      });
    }
    event({ type: 'content_block_stop', index } as { type: string });
    index++;
  });
  if (!turn.hold) {
    event({
      type: 'message_delta',
      delta: { stop_reason: turn.calls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 5 },
    } as { type: string });
    event({ type: 'message_stop' });
  }
  return { sse, hold: turn.hold === true };
}

/** The turn as OpenAI Chat Completions streaming chunks. */
export function chatStream(turn: ScriptedTurn, id: string): Reply {
  const events: unknown[] = [chunk({ role: 'assistant', content: '' }, null)];
  for (const piece of pieces(turn.text ?? '')) events.push(chunk({ content: piece }, null));
  (turn.calls ?? []).forEach((call, index) => {
    const json = JSON.stringify(call.input);
    const half = Math.floor(json.length / 2);
    events.push(
      chunk(
        {
          tool_calls: [
            {
              index,
              id: `${id}_${index}`,
              type: 'function',
              function: { name: call.name, arguments: json.slice(0, half) },
            },
          ],
        },
        null,
      ),
      chunk({ tool_calls: [{ index, function: { arguments: json.slice(half) } }] }, null),
    );
  });
  if (!turn.hold) {
    const input = turn.inputTokens ?? 100_000;
    events.push(chunk({}, turn.calls?.length ? 'tool_calls' : 'stop'), {
      ...(chunk({}, null) as object),
      choices: [],
      usage: { prompt_tokens: input, completion_tokens: 5, total_tokens: input + 5 },
    });
  }
  return { events, hold: turn.hold === true };
}

/** The base URL of a server that is not there: a port that was free a moment ago, on 127.0.0.1. */
export async function deadServerURL(): Promise<string> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
