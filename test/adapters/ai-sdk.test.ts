import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { aiSdkTools } from '../../src/adapters/ai-sdk.js';
import { createEditTools } from '../../src/tools/index.js';
import type { ToolResult } from '../../src/tools/result.js';
import {
  chatText,
  chatTextStream,
  chatToolCalls,
  chatToolCallsStream,
  scripted,
} from './chat-completions.js';
import { type RecordedRequest, startLocalServer } from './local-server.js';
import {
  EDITS,
  expectEditTurnMessages,
  expectPortableSchemas,
  expectReadMessage,
  FINAL_TEXT,
  GREET,
  GREET_AFTER,
  greetWorkspace,
  PROMPT,
  READ,
} from './scenario.js';

// The Vercel AI SDK with its real OpenAI provider (Chat Completions) against a local server.

/** The tool messages the model was sent in one request, in order. */
function toolMessages(request: RecordedRequest | undefined): { tool_call_id: string; content: string }[] {
  // biome-ignore lint/suspicious/noExplicitAny: the request body as the provider wrote it.
  return request?.body.messages.filter((message: any) => message.role === 'tool') ?? [];
}

describe('aiSdkTools', () => {
  it('exposes every editgate tool with its description and a schema every provider accepts', async () => {
    const { tools } = await greetWorkspace();
    const set = aiSdkTools(tools);
    expect(Object.keys(set)).toEqual(tools.definitions.map((definition) => definition.name));
    expect(set.edit_file?.description).toBe(
      tools.definitions.find((d) => d.name === 'edit_file')?.description,
    );
  });

  it('runs read_file then edit_file calls in a generateText loop and sends editgate messages back', async () => {
    const { tools, greet } = await greetWorkspace();
    const server = await startLocalServer([
      chatToolCalls(scripted('read', [READ])),
      chatToolCalls(scripted('edit', EDITS)),
      chatText(FINAL_TEXT),
    ]);
    const openai = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test' });

    const result = await generateText({
      model: openai.chat('test-model'),
      tools: aiSdkTools(tools),
      stopWhen: stepCountIs(5),
      prompt: PROMPT,
    });

    expect(result.text).toBe(FINAL_TEXT);
    expect(await greet()).toBe(GREET_AFTER);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(
      Array(3).fill('POST /v1/chat/completions'),
    );

    // The first request offered the tools, in a schema dialect the APIs accept.
    const offered = server.requests[0]?.body.tools;
    // biome-ignore lint/suspicious/noExplicitAny: the request body as the provider wrote it.
    expect(offered.map((entry: any) => entry.function.name)).toEqual(tools.definitions.map((d) => d.name));
    expectPortableSchemas(offered);

    // The model saw the numbered read, then the three edit results in call order: the failure's guidance too.
    const read = toolMessages(server.requests[1]);
    expect(read.map((message) => message.tool_call_id)).toEqual(['read_0']);
    expectReadMessage(read[0]!.content);
    const edits = toolMessages(server.requests[2]).slice(1);
    expect(edits.map((message) => message.tool_call_id)).toEqual(['edit_0', 'edit_1', 'edit_2']);
    expectEditTurnMessages(edits.map((message) => message.content));

    // Programs keep the whole ToolResult: ok, code and details.
    const outputs = result.steps[1]?.toolResults.map((toolResult) => toolResult.output as ToolResult);
    expect(outputs?.map((output) => output.ok)).toEqual([false, true, true]);
    expect(outputs?.[0]).toMatchObject({
      ok: false,
      code: 'AMBIGUOUS',
      details: { count: 2, lines: [2, 3] },
    });
  });

  it('works the same with streamText', async () => {
    const { tools, greet } = await greetWorkspace();
    const server = await startLocalServer([
      chatToolCallsStream(scripted('read', [READ])),
      chatToolCallsStream(scripted('edit', EDITS)),
      chatTextStream(FINAL_TEXT),
    ]);
    const openai = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test' });

    const result = streamText({
      model: openai.chat('test-model'),
      tools: aiSdkTools(tools),
      stopWhen: stepCountIs(5),
      prompt: PROMPT,
    });

    expect(await result.text).toBe(FINAL_TEXT);
    expect(await greet()).toBe(GREET_AFTER);
    expect(server.requests).toHaveLength(3);
    expectEditTurnMessages(
      toolMessages(server.requests[2])
        .slice(1)
        .map((message) => message.content),
    );
  });

  it('answers input editgate refuses with its INVALID_INPUT message, without writing', async () => {
    const { tools, greet } = await greetWorkspace();
    const server = await startLocalServer([
      chatToolCalls([
        { id: 'bad', name: 'edit_file', arguments: '{"file_path":"src/greet.ts","old_string":7}' },
      ]),
      chatText('I will try again.'),
    ]);
    const openai = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test' });

    await generateText({
      model: openai.chat('test-model'),
      tools: aiSdkTools(tools),
      stopWhen: stepCountIs(3),
      prompt: PROMPT,
    });

    const [answer] = toolMessages(server.requests[1]);
    expect(answer?.content).toMatch(/^edit_file failed \(INVALID_INPUT\)/);
    expect(await greet()).toBe(GREET);
  });

  it('writes nothing for a call whose generation was aborted before it ran', async () => {
    const { tools, greet } = await greetWorkspace();
    const set = aiSdkTools(tools);
    const options = { toolCallId: 'x', messages: [], abortSignal: AbortSignal.abort() };
    await set.read_file?.execute?.(READ.input, { toolCallId: 'r', messages: [] });

    await expect(set.edit_file?.execute?.(EDITS[1]!.input, options)).rejects.toThrow();
    expect(await greet()).toBe(GREET);
  });

  it('a call aborted while it waits for approval writes nothing and answers CANCELLED', async () => {
    const { root, greet } = await greetWorkspace();
    const controller = new AbortController();
    let asked: ((signal: AbortSignal | undefined) => void) | undefined;
    const seen = new Promise<AbortSignal | undefined>((resolve) => {
      asked = resolve;
    });
    const tools = createEditTools({
      root,
      approve: (_request, context) => {
        asked?.(context?.signal);
        return new Promise(() => {}); // a person who never answers
      },
    });
    const set = aiSdkTools(tools);
    await set.read_file?.execute?.(READ.input, { toolCallId: 'r', messages: [] });
    const running = set.edit_file?.execute?.(EDITS[1]!.input, {
      toolCallId: 'x',
      messages: [],
      abortSignal: controller.signal,
    });
    const approverSignal = await seen;
    controller.abort();
    expect(await running).toMatchObject({ ok: false, code: 'CANCELLED' });
    expect(approverSignal?.aborted).toBe(true);
    expect(await greet()).toBe(GREET);
  });
});
