import type Anthropic from '@anthropic-ai/sdk';
import type { EditTools } from '../tools/index.js';
import {
  FILE_TOOLS,
  runTextEditor,
  TEXT_EDITOR_NAMES,
  type TextEditorVersion,
  textEditorName,
} from './anthropic-text-editor.js';

export interface AnthropicToolOptions {
  /**
   * Offer Anthropic's own text editor tool (which Claude models are trained on) in place of editgate's
   * file tools; runAnthropicToolUses executes its calls through editgate.
   */
  textEditor?: TextEditorVersion;
  /** The text editor's `max_characters`: how much of a file one view returns. */
  maxCharacters?: number;
}

/** The editgate tools for `messages.create({ tools })` of the Anthropic Messages API. */
export function anthropicTools(tools: EditTools): Anthropic.Tool[];
export function anthropicTools(tools: EditTools, options: AnthropicToolOptions): Anthropic.ToolUnion[];
export function anthropicTools(tools: EditTools, options: AnthropicToolOptions = {}): Anthropic.ToolUnion[] {
  const version = options.textEditor;
  const own: Anthropic.Tool[] = tools.definitions
    .filter((definition) => !(version && FILE_TOOLS.includes(definition.name)))
    .map((definition) => ({
      name: definition.name,
      description: definition.description,
      input_schema: { ...definition.inputSchema, type: 'object' },
    }));
  if (!version) return own;
  const editor = { type: version, name: textEditorName(version) } as Anthropic.ToolUnion;
  if (version === 'text_editor_20250728' && options.maxCharacters !== undefined)
    Object.assign(editor, { max_characters: options.maxCharacters });
  return [...own, editor];
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
  options: Pick<AnthropicToolOptions, 'maxCharacters'> = {},
): Promise<Anthropic.ToolResultBlockParam[]> {
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (const block of content) {
    if (block.type !== 'tool_use') continue;
    // Anthropic's text editor (offered with anthropicTools' textEditor option), run through editgate.
    const result = TEXT_EDITOR_NAMES.includes(block.name)
      ? await runTextEditor(tools, block.input, options).then(({ ok, text }) => ({ ok, message: text }))
      : await tools.execute(block.name, block.input);
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
