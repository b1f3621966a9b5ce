import type { Reply } from '../../adapters/local-server.js';
import type { Protocol } from './protocol.js';
import { pieces, type ResolvedTurn } from './script.js';

/**
 * Anthropic Messages, streamed (POST /v1/messages with "stream": true), as Claude Code calls it. Claude Code
 * also counts tokens (POST /v1/messages/count_tokens), answered with a plain count.
 */
export const anthropicMessages: Protocol = {
  name: 'Anthropic Messages',
  handles: (path) => path.startsWith('/v1/messages'),
  answer(path, body, turn, id) {
    if (path.startsWith('/v1/messages/count_tokens')) return { json: { input_tokens: 1000 } };
    return body?.stream === true ? stream(turn, id) : { json: message(turn, id) };
  },
};

function message(turn: ResolvedTurn, id: string) {
  return {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: 'fake-model',
    content: [
      ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
      ...(turn.calls ?? []).map((call) => ({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: call.input,
      })),
    ],
    stop_reason: turn.calls?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1000, output_tokens: 10 },
  };
}

function stream(turn: ResolvedTurn, id: string): Reply {
  const sse: { event: string; data: { type: string } & Record<string, unknown> }[] = [];
  const event = (data: { type: string } & Record<string, unknown>) => sse.push({ event: data.type, data });
  event({ type: 'message_start', message: { ...message({}, id), content: [], stop_reason: null } });
  let index = 0;
  if (turn.text) {
    event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const piece of pieces(turn.text)) {
      event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    }
    event({ type: 'content_block_stop', index });
    index++;
  }
  for (const call of turn.calls ?? []) {
    // The input arrives in two pieces, as real streams split it.
    const json = JSON.stringify(call.input);
    const half = Math.floor(json.length / 2);
    event({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    for (const part of [json.slice(0, half), json.slice(half)]) {
      event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
    }
    event({ type: 'content_block_stop', index });
    index++;
  }
  event({
    type: 'message_delta',
    delta: { stop_reason: turn.calls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  event({ type: 'message_stop' });
  return { sse };
}
