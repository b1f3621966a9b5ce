import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { AssistantContent, ModelMessage, ToolContent } from 'ai';
import type { ModelTarget } from '../providers/model-target.js';
import { describeModelError, isAbortError } from '../providers/provider-errors.js';
import type { AgentTool, AgentToolResult } from '../tools/agent-tool.js';
import { estimateTokens, truncationWarning } from './context-check.js';
import { streamModel } from './model-stream.js';
import { looksLikeTextToolCall, textToolCallMessage } from './text-tool-calls.js';

/**
 * One turn of the conversation: the model streams a reply; its tool calls run one after another (each
 * change shown and, if policy says so, asked about, inside the tool); the results go back; again, until the
 * model answers without calling a tool. The loop is ours rather than the SDK's multi-step mode, so an
 * interrupt can end it cleanly: the partial reply is kept, and every tool call that did not run gets a
 * result saying so (the APIs refuse a conversation with a call left unanswered).
 */
export interface ToolCallInfo {
  id: string;
  name: string;
  input: Record<string, unknown>;
  tool: AgentTool | undefined;
}

export interface StepUsage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

export interface TurnEvents {
  textDelta(text: string): void;
  /** The model is thinking (reasoning tokens); shown in the status line only. */
  reasoning?(): void;
  /** The model started writing a tool call (its input still streaming). */
  toolInput?(name: string): void;
  /** A tool call arrived whole; it runs once the reply has ended. */
  callReceived?(call: ToolCallInfo): void;
  toolStarted(call: ToolCallInfo): void;
  toolFinished(call: ToolCallInfo, result: AgentToolResult): void;
  usage(usage: StepUsage): void;
  warning(text: string): void;
  /** A message was added to the conversation (for the session file). */
  message(message: ModelMessage): void;
}

export interface TurnSettings {
  model: LanguageModelV3;
  target: ModelTarget;
  system: string;
  tools: readonly AgentTool[];
  /** The conversation, the person's message last; the turn appends to it. */
  messages: ModelMessage[];
  signal: AbortSignal;
  /** The person answered a card with Esc: nothing more runs in this turn. */
  stopRequested: () => boolean;
  events: TurnEvents;
  /** Requests in one turn before it stops and asks the person. Default 100. */
  maxSteps?: number;
  /** Warn once per session about a server that cut the context; shared between turns. */
  warnings?: Set<string>;
}

export type TurnStatus = 'done' | 'interrupted' | 'stopped' | 'failed' | 'text-tool-call' | 'step-limit';

export interface TurnOutcome {
  status: TurnStatus;
  /** For 'failed' and 'text-tool-call': what to tell the person. */
  error?: string;
}

export const INTERRUPTED_RESULT = 'This tool call did not run: the user interrupted the turn.';
export const STOPPED_RESULT = 'This tool call did not run: the user stopped the turn.';

export async function runTurn(settings: TurnSettings): Promise<TurnOutcome> {
  const { events, signal, messages } = settings;
  const byName = new Map(settings.tools.map((tool) => [tool.name, tool]));
  const maxSteps = settings.maxSteps ?? 100;
  const add = (message: ModelMessage) => {
    messages.push(message);
    events.message(message);
  };

  for (let step = 0; step < maxSteps; step++) {
    let text = '';
    const calls: ToolCallInfo[] = [];
    let failure: unknown;
    let usage: StepUsage | undefined;
    let cutShort = false;
    try {
      for await (const event of streamModel({
        model: settings.model,
        system: settings.system,
        messages,
        tools: settings.tools,
        signal,
        // A local server that refuses the connection will not accept it a second later either.
        retries: settings.target.local ? 0 : 2,
      })) {
        if (event.type === 'text') {
          text += event.text;
          events.textDelta(event.text);
        } else if (event.type === 'reasoning') events.reasoning?.();
        else if (event.type === 'tool-input') events.toolInput?.(event.name);
        else if (event.type === 'tool-call') {
          const call: ToolCallInfo = {
            id: event.id,
            name: event.name,
            input: event.input,
            tool: event.valid ? byName.get(event.name) : undefined,
          };
          calls.push(call);
          events.callReceived?.(call);
        } else if (event.type === 'finish') {
          usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
          cutShort = event.cutShort;
        }
      }
    } catch (error) {
      failure ??= error;
    }
    if (usage) {
      events.usage(usage);
      checkTruncation(settings, usage);
    }

    const interrupted = signal.aborted || (failure !== undefined && isAbortError(failure));
    if (failure !== undefined && !interrupted) {
      // Keep what arrived; the person's next message continues from there.
      if (text) add({ role: 'assistant', content: [{ type: 'text', text }] });
      return { status: 'failed', error: describeModelError(failure, settings.target) };
    }
    const content: Exclude<AssistantContent, string> = [];
    if (text) content.push({ type: 'text', text });
    for (const call of calls)
      content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input });
    if (content.length > 0) add({ role: 'assistant', content });
    if (cutShort) events.warning("The reply was cut at the model's output limit.");

    if (calls.length === 0) {
      if (interrupted) return { status: 'interrupted' };
      if (text && looksLikeTextToolCall(text, [...byName.keys()])) {
        return { status: 'text-tool-call', error: textToolCallMessage(settings.target.label) };
      }
      return { status: 'done' };
    }

    const results: ToolContent = [];
    for (const call of calls) {
      let result: AgentToolResult;
      if (signal.aborted)
        result = { ok: false, code: 'CANCELLED', message: INTERRUPTED_RESULT, summary: 'did not run' };
      else if (settings.stopRequested())
        result = { ok: false, code: 'CANCELLED', message: STOPPED_RESULT, summary: 'did not run' };
      else {
        events.toolStarted(call);
        result = await runTool(call, signal);
      }
      events.toolFinished(call, result);
      results.push({
        type: 'tool-result',
        toolCallId: call.id,
        toolName: call.name,
        output: result.ok
          ? { type: 'text', value: result.message }
          : { type: 'error-text', value: result.message },
      });
    }
    add({ role: 'tool', content: results });
    if (signal.aborted) return { status: 'interrupted' };
    if (settings.stopRequested()) return { status: 'stopped' };
  }
  return { status: 'step-limit' };
}

async function runTool(call: ToolCallInfo, signal: AbortSignal): Promise<AgentToolResult> {
  if (!call.tool) {
    return {
      ok: false,
      code: 'INVALID_INPUT',
      message: `The call of ${JSON.stringify(call.name)} could not be run: either there is no tool of that name or its arguments were not valid JSON. Check the tool's name and schema and call it again.`,
      summary: '✗ INVALID_INPUT',
    };
  }
  try {
    return await call.tool.run(call.input, { signal });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return { ok: false, code: 'IO', message: `${call.name} failed (IO): ${text}`, summary: '✗ IO' };
  }
}

function checkTruncation(settings: TurnSettings, usage: StepUsage): void {
  if (!settings.target.local || usage.inputTokens === undefined) return;
  const warnings = settings.warnings ?? new Set<string>();
  if (warnings.has('truncation')) return;
  const estimate = estimateTokens(settings.system, settings.messages, settings.tools);
  const warning = truncationWarning(usage.inputTokens, estimate, settings.target);
  if (warning) {
    warnings.add('truncation');
    settings.events.warning(warning);
  }
}
