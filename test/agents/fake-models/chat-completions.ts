import {
  chatText,
  chatTextStream,
  chatToolCalls,
  chatToolCallsStream,
} from '../../adapters/chat-completions.js';
import type { Protocol } from './protocol.js';

/**
 * OpenAI Chat Completions (POST .../chat/completions), streamed or not, as OpenCode and Qwen Code call it:
 * the replies of the adapters' tests (test/adapters/chat-completions.ts), tool call arguments streamed in
 * two pieces as real streams split them.
 */
export const chatCompletions: Protocol = {
  name: 'OpenAI Chat Completions',
  handles: (path) => path.endsWith('/chat/completions'),
  answer(_path, body, turn) {
    const calls = (turn.calls ?? []).map((call) => ({
      id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.input),
    }));
    if (calls.length > 0) return body?.stream ? chatToolCallsStream(calls) : chatToolCalls(calls);
    return body?.stream ? chatTextStream(turn.text ?? '') : chatText(turn.text ?? '');
  },
};
