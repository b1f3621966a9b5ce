import type OpenAI from 'openai';
import type { EditTools } from '../tools/index.js';
import { failed, type ToolResult } from '../tools/result.js';

// strict is left unset: strict mode needs every property required, so editgate's optional fields (offset,
// limit, replace_all, encoding) would have to become nullable, and the tools do not take null for them.

/** The editgate tools as Chat Completions function tools, for `chat.completions.create({ tools })`. */
export function openAIChatTools(tools: EditTools): OpenAI.Chat.ChatCompletionFunctionTool[] {
  return tools.definitions.map((definition) => ({
    type: 'function',
    function: {
      name: definition.name,
      description: definition.description,
      parameters: definition.inputSchema,
    },
  }));
}

/**
 * Runs the tool calls of an assistant message (`message.tool_calls`, absent or empty is fine) one after
 * another, in order, and returns one `tool` message per call. Arguments that are not valid JSON come back
 * as an INVALID_INPUT message, never as a throw; every call gets an answer, as the API requires.
 */
export async function runOpenAIChatToolCalls(
  tools: EditTools,
  toolCalls: readonly OpenAI.Chat.ChatCompletionMessageToolCall[] | null | undefined,
): Promise<OpenAI.Chat.ChatCompletionToolMessageParam[]> {
  const messages: OpenAI.Chat.ChatCompletionToolMessageParam[] = [];
  for (const call of toolCalls ?? []) {
    // editgate defines only function tools; a custom-tool call still needs an answer (UNKNOWN_TOOL).
    const { name, text } =
      call.type === 'function'
        ? { name: call.function.name, text: call.function.arguments }
        : { name: call.custom.name, text: call.custom.input };
    // Codex's freeform apply_patch (a custom tool) sends the patch text itself.
    const result =
      call.type === 'custom' && name === 'apply_patch'
        ? await tools.execute('apply_patch', { patch: text })
        : await executeJsonCall(tools, name, text);
    messages.push({ role: 'tool', tool_call_id: call.id, content: result.message });
  }
  return messages;
}

export interface OpenAIResponsesToolOptions {
  /**
   * Offer OpenAI's native `{"type": "apply_patch"}` tool (which GPT-5-class models are trained on) instead
   * of editgate's apply_patch function; runOpenAIResponsesCalls executes its apply_patch_call items.
   */
  applyPatch?: boolean;
}

/** The editgate tools as Responses API function tools, for `responses.create({ tools })`. */
export function openAIResponsesTools(tools: EditTools): OpenAI.Responses.FunctionTool[];
export function openAIResponsesTools(
  tools: EditTools,
  options: OpenAIResponsesToolOptions,
): (OpenAI.Responses.FunctionTool | OpenAI.Responses.ApplyPatchTool)[];
export function openAIResponsesTools(
  tools: EditTools,
  options: OpenAIResponsesToolOptions = {},
): (OpenAI.Responses.FunctionTool | OpenAI.Responses.ApplyPatchTool)[] {
  const functions: OpenAI.Responses.FunctionTool[] = tools.definitions
    .filter((definition) => !(options.applyPatch && definition.name === 'apply_patch'))
    .map((definition) => ({
      type: 'function',
      name: definition.name,
      description: definition.description,
      parameters: definition.inputSchema,
      strict: false,
    }));
  return options.applyPatch ? [...functions, { type: 'apply_patch' }] : functions;
}

/** What runOpenAIResponsesCalls answers: a function call's output, or an apply_patch call's. */
export type OpenAIResponsesCallOutput =
  | OpenAI.Responses.ResponseInputItem.FunctionCallOutput
  | OpenAI.Responses.ResponseInputItem.ApplyPatchCallOutput;

/**
 * Runs the `function_call` items of a response's `output` one after another, in order, and returns one
 * `function_call_output` item per call for the next request's `input`. The `apply_patch_call` items (the
 * native apply_patch tool) are applied together, as one change set, after the function calls, each
 * answered with an `apply_patch_call_output`. Other items are skipped.
 */
export async function runOpenAIResponsesCalls(
  tools: EditTools,
  outputItems: readonly OpenAI.Responses.ResponseOutputItem[],
): Promise<OpenAIResponsesCallOutput[]> {
  const outputs: OpenAIResponsesCallOutput[] = [];
  const patches: OpenAI.Responses.ResponseApplyPatchToolCall[] = [];
  for (const item of outputItems) {
    if (item.type === 'apply_patch_call') patches.push(item);
    if (item.type !== 'function_call') continue;
    const result = await executeJsonCall(tools, item.name, item.arguments);
    outputs.push({
      type: 'function_call_output',
      call_id: item.call_id,
      output: result.message,
      // A call made by a program (programmatic tool calling) is answered to that program.
      ...(item.caller ? { caller: item.caller } : {}),
    });
  }
  if (patches.length > 0) {
    const { runApplyPatchCalls } = await import('./openai-apply-patch.js');
    outputs.push(...(await runApplyPatchCalls(tools, patches)));
  }
  return outputs;
}

/** Parses a model's JSON arguments and runs the call; text that is not JSON becomes a failure to read. */
async function executeJsonCall(tools: EditTools, name: string, text: string): Promise<ToolResult> {
  // An unknown name is the first thing to tell the model, whatever its arguments look like.
  if (!tools.definitions.some((definition) => definition.name === name)) return tools.execute(name, {});
  let input: unknown;
  try {
    // Some models send "" for a call they think needs no arguments; editgate then names what is missing.
    input = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return failed(name, 'INVALID_INPUT', {
      happened: `the arguments are not valid JSON (${reason}). Nothing was done.`,
      advice: `Call ${name} again with its arguments as one JSON object.`,
    });
  }
  return tools.execute(name, input);
}
