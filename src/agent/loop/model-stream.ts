import type {
  LanguageModelV3,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import type { AgentTool } from '../tools/agent-tool.js';

/**
 * One model request, streamed, straight through the provider's LanguageModelV3 interface (the AI SDK's
 * provider spec, which @ai-sdk/anthropic, openai and openai-compatible implement). Measured against
 * `streamText` (bench/chat.bench.mjs, docs/decisions/terminal-stack.md): streamText passes every chunk through a
 * chain of web streams and validates the whole conversation with zod on every request, which made a
 * 200 KB reply take 39x as long as writing it, and turn times grow with the conversation. Here a message is
 * converted to the provider's prompt once and kept; the chunks are read as they come.
 */
export type ModelEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning' }
  | { type: 'tool-input'; name: string }
  | { type: 'tool-call'; id: string; name: string; input: Record<string, unknown>; valid: boolean }
  | { type: 'finish'; inputTokens: number | undefined; outputTokens: number | undefined; cutShort: boolean };

export interface ModelRequest {
  model: LanguageModelV3;
  system: string;
  messages: readonly ModelMessage[];
  tools: readonly AgentTool[];
  signal: AbortSignal;
  /** Retries of a request the provider says may be retried (rate limits, overload). */
  retries: number;
}

const converted = new WeakMap<ModelMessage, LanguageModelV3Message>();
const toolLists = new WeakMap<readonly AgentTool[], LanguageModelV3FunctionTool[]>();

export async function* streamModel(request: ModelRequest): AsyncGenerator<ModelEvent> {
  const prompt: LanguageModelV3Message[] = [{ role: 'system', content: request.system }];
  for (const message of request.messages) prompt.push(toProvider(message));
  let tools = toolLists.get(request.tools);
  if (!tools) {
    tools = request.tools.map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as LanguageModelV3FunctionTool['inputSchema'],
    }));
    toolLists.set(request.tools, tools);
  }
  const known = new Set(request.tools.map((tool) => tool.name));
  const { stream } = await withRetries(request, () =>
    request.model.doStream({
      prompt,
      ...(tools.length > 0 ? { tools, toolChoice: { type: 'auto' as const } } : {}),
      abortSignal: request.signal,
    }),
  );
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const event = toEvent(value, known);
      if (event) yield event;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

function toEvent(part: LanguageModelV3StreamPart, known: Set<string>): ModelEvent | undefined {
  switch (part.type) {
    case 'text-delta':
      return part.delta === '' ? undefined : { type: 'text', text: part.delta };
    case 'reasoning-delta':
      return { type: 'reasoning' };
    case 'tool-input-start':
      return { type: 'tool-input', name: part.toolName };
    case 'tool-call': {
      const input = parseInput(part.input);
      return {
        type: 'tool-call',
        id: part.toolCallId,
        name: part.toolName,
        input: input ?? {},
        valid: input !== undefined && known.has(part.toolName),
      };
    }
    case 'finish':
      return {
        type: 'finish',
        inputTokens: part.usage.inputTokens.total,
        outputTokens: part.usage.outputTokens.total,
        cutShort: part.finishReason.unified === 'length',
      };
    case 'error':
      throw part.error;
    default:
      return undefined;
  }
}

/** The model's arguments: a JSON object (an empty string is no arguments); undefined when malformed. */
function parseInput(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A conversation message in the provider's prompt form (converted once: messages never change). */
function toProvider(message: ModelMessage): LanguageModelV3Message {
  let done = converted.get(message);
  if (done) return done;
  switch (message.role) {
    case 'system':
      done = { role: 'system', content: message.content };
      break;
    case 'user':
      done = {
        role: 'user',
        content:
          typeof message.content === 'string'
            ? [{ type: 'text', text: message.content }]
            : message.content.flatMap((part) =>
                part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : [],
              ),
      };
      break;
    case 'assistant': {
      type Part = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'][number];
      const content: Part[] = [];
      if (typeof message.content === 'string') content.push({ type: 'text', text: message.content });
      else {
        for (const part of message.content) {
          if (part.type === 'text') content.push({ type: 'text', text: part.text });
          else if (part.type === 'tool-call')
            content.push({
              type: 'tool-call',
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              input: part.input,
            });
        }
      }
      done = { role: 'assistant', content };
      break;
    }
    case 'tool': {
      type Part = Extract<LanguageModelV3Message, { role: 'tool' }>['content'][number];
      const content: Part[] = [];
      for (const part of message.content) {
        // Our results are text or error-text, which the provider prompt takes as they are.
        if (part.type === 'tool-result')
          content.push({
            type: 'tool-result',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            output: part.output as Extract<Part, { type: 'tool-result' }>['output'],
          });
      }
      done = { role: 'tool', content };
      break;
    }
  }
  converted.set(message, done);
  return done;
}

async function withRetries<T>(request: ModelRequest, call: () => PromiseLike<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const retryable = (error as { isRetryable?: unknown })?.isRetryable === true;
      if (!retryable || attempt >= request.retries || request.signal.aborted) throw error;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000 * 2 ** attempt);
        request.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  }
}
