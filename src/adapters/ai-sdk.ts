import { type JSONSchema7, jsonSchema, type Tool, type ToolExecutionOptions, tool } from 'ai';
import type { EditTools } from '../tools/index.js';
import type { ToolResult } from '../tools/result.js';
import type { ApplyPatchOperation } from './openai-apply-patch.js';

/** An editgate tool as the AI SDK sees it: the whole ToolResult is the output, the model reads its message. */
export type EditgateAiSdkTool = Tool<unknown, ToolResult>;

type ModelOutput = { type: 'text'; value: string } | { type: 'error-text'; value: string };

/**
 * The editgate tools as Vercel AI SDK tools, for `generateText`/`streamText({ tools: aiSdkTools(tools) })`.
 *
 * A failure is returned, not thrown: the step's tool result keeps `code` and `details` for programs, and
 * `toModelOutput` sends the model the message as `error-text` (providers mark it as a tool error, Anthropic's
 * `is_error`). Calls run one at a time in the order the model made them, although the SDK starts them
 * together: two edits to one file must not race, and a person is asked one approval at a time.
 */
export function aiSdkTools(tools: EditTools): Record<string, EditgateAiSdkTool> {
  const inOrder = serial();
  const set: Record<string, EditgateAiSdkTool> = {};
  for (const definition of tools.definitions) {
    set[definition.name] = tool<unknown, ToolResult>({
      title: definition.title,
      description: definition.description,
      // No validate function: editgate validates itself and answers bad input with an INVALID_INPUT message.
      inputSchema: jsonSchema<unknown>(definition.inputSchema as JSONSchema7),
      execute: (input: unknown, options: ToolExecutionOptions) =>
        inOrder(() => {
          // A call still queued when the caller aborts must not write anything.
          options?.abortSignal?.throwIfAborted();
          // Aborted while it runs, it writes nothing either and answers CANCELLED.
          return tools.execute(definition.name, input, { signal: options?.abortSignal });
        }),
      toModelOutput: (options) => modelOutput(options),
    });
  }
  return set;
}

/** AI SDK 6 passes `{ toolCallId, input, output }`, AI SDK 5 (also a supported peer) passes the output. */
function modelOutput(options: { output: ToolResult } | ToolResult): ModelOutput {
  const result = 'output' in options ? options.output : options;
  return result.ok ? { type: 'text', value: result.message } : { type: 'error-text', value: result.message };
}

/** Runs tasks one after another, in the order they were handed in, whether earlier ones succeed or not. */
function serial(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * The executor of the AI SDK's Anthropic text editor (`anthropic.tools.textEditor_20250728({ execute })`,
 * and its siblings): every command runs through editgate (see anthropic-text-editor.ts); the model reads
 * the text, errors starting with "Error:".
 */
export function textEditorExecutor(
  tools: EditTools,
  options: { maxCharacters?: number } = {},
): (input: unknown, execution?: ToolExecutionOptions) => Promise<string> {
  const inOrder = serial();
  return (input, execution) =>
    inOrder(async () => {
      execution?.abortSignal?.throwIfAborted();
      const { runTextEditor } = await import('./anthropic-text-editor.js');
      return (await runTextEditor(tools, input, options)).text;
    });
}

/**
 * The executor of the AI SDK's OpenAI apply_patch tool (`openai.tools.applyPatch({ execute })`): each
 * call's operation through editgate's apply_patch (approved, written all or nothing), answered
 * `{ status: 'completed' | 'failed', output }`.
 */
export function applyPatchExecutor(
  tools: EditTools,
): (
  input: { callId: string; operation: ApplyPatchOperation },
  execution?: ToolExecutionOptions,
) => Promise<{ status: 'completed' | 'failed'; output: string }> {
  const inOrder = serial();
  return (input, execution) =>
    inOrder(async () => {
      execution?.abortSignal?.throwIfAborted();
      const { applyPatchOperations } = await import('./openai-apply-patch.js');
      const [answer] = await applyPatchOperations(tools, [input.operation]);
      return answer!;
    });
}
