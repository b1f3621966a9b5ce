import type Anthropic from '@anthropic-ai/sdk';
import type { EditTools } from '../tools/index.js';

/** The editgate tools for `messages.create({ tools })` of the Anthropic Messages API. */
export function anthropicTools(tools: EditTools): Anthropic.Tool[] {
  return tools.definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    input_schema: { ...definition.inputSchema, type: 'object' },
  }));
}

/**
 * Runs every `tool_use` block of an assistant message and returns one `tool_result` block per call, in the
 * same order, for the next user message. Calls run one after another (edits to one file must not race). A
 * failure carries editgate's message with `is_error: true`; a name editgate does not know gets an
 * UNKNOWN_TOOL result rather than none, since the API refuses a tool_use left without its result. To mix in
 * tools of your own, pass only the blocks whose name is in `tools.definitions`.
 */
export async function runAnthropicToolUses(
  tools: EditTools,
  content: readonly (Anthropic.ContentBlock | Anthropic.ContentBlockParam)[],
): Promise<Anthropic.ToolResultBlockParam[]> {
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (const block of content) {
    if (block.type !== 'tool_use') continue;
    const result = await tools.execute(block.name, block.input);
    results.push({
      type: 'tool_result',
      tool_use_id: block.id,
      content: result.message,
      ...(result.ok ? {} : { is_error: true }),
      // The API wants a toolset member's result to name the toolset of its tool_use.
      ...(block.toolset_name ? { toolset_name: block.toolset_name } : {}),
    });
  }
  return results;
}
