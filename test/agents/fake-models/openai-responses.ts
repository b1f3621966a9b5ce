import type { Reply } from '../../adapters/local-server.js';
import type { Protocol } from './protocol.js';
import { pieces, type ResolvedTurn } from './script.js';

/**
 * OpenAI Responses (POST .../responses), streamed as server-sent events, as Codex calls it: function calls
 * (a namespaced MCP tool by its namespace and name), and freeform calls to a request's `custom` tools
 * (Codex's apply_patch), whose text the script gives as `input.input`.
 */
export const openAIResponses: Protocol = {
  name: 'OpenAI Responses',
  handles: (path) => path.endsWith('/responses'),
  nestedToolNames(body) {
    const names: string[] = [];
    for (const tool of Array.isArray(body?.tools) ? body.tools : []) {
      if (tool?.type !== 'namespace' || !Array.isArray(tool.tools)) continue;
      for (const inner of tool.tools)
        if (typeof inner?.name === 'string') names.push(`${tool.name}__${inner.name}`);
    }
    return names;
  },
  answer(_path, body, turn, id) {
    const items = outputItems(turn, id, namespaces(body), customTools(body));
    return body?.stream === true ? stream(turn, id, items) : { json: response(id, items) };
  },
};

/** The names of the request's freeform (`custom`) tools, such as Codex's apply_patch for models that have it. */
// biome-ignore lint/suspicious/noExplicitAny: request bodies are whatever the agent sent.
function customTools(body: any): Set<string> {
  const tools: { type?: string; name?: string }[] = Array.isArray(body?.tools) ? body.tools : [];
  return new Set(
    tools
      .filter((tool) => tool?.type === 'custom' && typeof tool.name === 'string')
      .map((tool) => tool.name!),
  );
}

/** For each flattened name (`mcp__editgate__read_file`): its namespace and its name inside it. */
// biome-ignore lint/suspicious/noExplicitAny: request bodies are whatever the agent sent.
function namespaces(body: any): Map<string, { namespace: string; name: string }> {
  const found = new Map<string, { namespace: string; name: string }>();
  for (const tool of Array.isArray(body?.tools) ? body.tools : []) {
    if (tool?.type !== 'namespace' || !Array.isArray(tool.tools)) continue;
    for (const inner of tool.tools)
      found.set(`${tool.name}__${inner.name}`, { namespace: tool.name, name: inner.name });
  }
  return found;
}

function outputItems(
  turn: ResolvedTurn,
  id: string,
  nested: Map<string, { namespace: string; name: string }>,
  custom: Set<string>,
): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (turn.text) {
    items.push({
      type: 'message',
      id: `msg_${id}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  }
  for (const call of turn.calls ?? []) {
    if (custom.has(call.name)) {
      // A freeform tool takes text, not JSON: the script gives it as `input.input`.
      items.push({
        type: 'custom_tool_call',
        id: `ctc_${call.id}`,
        call_id: call.id,
        name: call.name,
        input: String(call.input.input ?? ''),
        status: 'completed',
      });
      continue;
    }
    items.push({
      type: 'function_call',
      id: `fc_${call.id}`,
      call_id: call.id,
      // A namespaced tool is called by its own name with its namespace beside it, as the Responses API does.
      ...(nested.get(call.name) ?? { name: call.name }),
      arguments: JSON.stringify(call.input),
      status: 'completed',
    });
  }
  return items;
}

function response(id: string, output: unknown[], status = 'completed') {
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: 'fake-model',
    output,
    usage: {
      input_tokens: 1000,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1010,
    },
  };
}

function stream(turn: ResolvedTurn, id: string, items: Record<string, unknown>[]): Reply {
  const sse: { event: string; data: { type: string } & Record<string, unknown> }[] = [];
  let sequence = 0;
  const event = (data: { type: string } & Record<string, unknown>) =>
    sse.push({ event: data.type, data: { ...data, sequence_number: sequence++ } });
  event({ type: 'response.created', response: response(id, [], 'in_progress') });
  items.forEach((item, outputIndex) => {
    if (item.type === 'message') {
      event({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const part = { type: 'output_text', text: '', annotations: [] };
      const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
      event({ type: 'response.content_part.added', ...at, part });
      for (const piece of pieces(turn.text ?? ''))
        event({ type: 'response.output_text.delta', ...at, delta: piece });
      event({ type: 'response.output_text.done', ...at, text: turn.text ?? '' });
      event({ type: 'response.content_part.done', ...at, part: { ...part, text: turn.text ?? '' } });
    } else if (item.type === 'custom_tool_call') {
      const input = String(item.input);
      event({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, input: '' } });
      event({
        type: 'response.custom_tool_call_input.delta',
        item_id: item.id,
        output_index: outputIndex,
        delta: input,
      });
      event({
        type: 'response.custom_tool_call_input.done',
        item_id: item.id,
        output_index: outputIndex,
        input,
      });
    } else {
      const args = String(item.arguments);
      const half = Math.floor(args.length / 2);
      event({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      for (const part of [args.slice(0, half), args.slice(half)]) {
        event({
          type: 'response.function_call_arguments.delta',
          item_id: item.id,
          output_index: outputIndex,
          delta: part,
        });
      }
    }
    event({ type: 'response.output_item.done', output_index: outputIndex, item });
  });
  event({ type: 'response.completed', response: response(id, items) });
  return { sse };
}
