import type { Reply } from './local-server.js';

/** Replies in the OpenAI Chat Completions wire format, for the OpenAI SDK and the AI SDK's OpenAI provider. */

export interface ScriptedCall {
  id: string;
  name: string;
  /** The JSON text the model sends (may be malformed on purpose). */
  arguments: string;
}

export const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function completion(message: Record<string, unknown>, finishReason: string): Reply {
  return {
    json: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'test-model',
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage: USAGE,
    },
  };
}

export function chatToolCalls(calls: ScriptedCall[]): Reply {
  return completion(
    {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    },
    'tool_calls',
  );
}

export function chatText(text: string): Reply {
  return completion({ role: 'assistant', content: text, refusal: null }, 'stop');
}

/** One streamed Chat Completions chunk. */
export function chunk(delta: Record<string, unknown>, finishReason: string | null, usage?: unknown) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'test-model',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  };
}

/** The same tool calls streamed: each call's arguments arrive in two pieces, as real streams split them. */
export function chatToolCallsStream(calls: ScriptedCall[]): Reply {
  const events: unknown[] = [chunk({ role: 'assistant', content: null }, null)];
  calls.forEach((call, index) => {
    const half = Math.floor(call.arguments.length / 2);
    events.push(
      chunk(
        {
          tool_calls: [
            {
              index,
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments.slice(0, half) },
            },
          ],
        },
        null,
      ),
      chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }, null),
    );
  });
  events.push(chunk({}, 'tool_calls', USAGE));
  return { events };
}

export function chatTextStream(text: string): Reply {
  return {
    events: [chunk({ role: 'assistant', content: text }, null), chunk({}, 'stop', USAGE)],
  };
}

/** The scenario's calls with ids, as the model would send them. */
export function scripted(prefix: string, calls: { name: string; input: unknown }[]): ScriptedCall[] {
  return calls.map((call, index) => ({
    id: `${prefix}_${index}`,
    name: call.name,
    arguments: JSON.stringify(call.input),
  }));
}
