import type { Reply } from './local-server.js';

/** A Messages API reply (non-streamed) with these content blocks. */
export function anthropicMessage(content: unknown[], stopReason: string): Reply {
  return {
    json: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model: 'test-model',
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  };
}

/** A Responses API reply (non-streamed) with these output items. */
export function openAIResponse(id: string, output: unknown[]): Reply {
  return {
    json: {
      id,
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      model: 'test-model',
      output,
      error: null,
      incomplete_details: null,
      instructions: null,
      metadata: {},
      parallel_tool_calls: true,
      temperature: 1,
      top_p: 1,
      tool_choice: 'auto',
      tools: [],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    },
  };
}
