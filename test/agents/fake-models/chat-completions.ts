import type { Reply } from '../../adapters/local-server.js';
import type { Protocol } from './protocol.js';
import { pieces, type ResolvedTurn } from './script.js';

/** OpenAI Chat Completions (POST .../chat/completions), streamed or not, as OpenCode and Qwen Code call it. */
export const chatCompletions: Protocol = {
  name: 'OpenAI Chat Completions',
  handles: (path) => path.endsWith('/chat/completions'),
  answer(_path, body, turn, id) {
    return body?.stream ? stream(turn, id) : { json: completion(turn, id) };
  },
};

const USAGE = { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 };

function completion(turn: ResolvedTurn, id: string) {
  const calls = turn.calls ?? [];
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'fake-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.input) },
                })),
              }
            : {}),
        },
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: USAGE,
  };
}

function stream(turn: ResolvedTurn, id: string): Reply {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, usage?: unknown) => ({
    id: `chatcmpl-${id}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: 'fake-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  });
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
              id: call.id,
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
  events.push(chunk({}, turn.calls?.length ? 'tool_calls' : 'stop'));
  // The usage chunk that stream_options.include_usage asks for: no choices.
  events.push({ ...chunk({}, null), choices: [], usage: USAGE });
  return { events };
}
