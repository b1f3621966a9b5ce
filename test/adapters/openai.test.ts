import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  openAIChatTools,
  openAIResponsesTools,
  runOpenAIChatToolCalls,
  runOpenAIResponsesCalls,
} from '../../src/adapters/openai.js';
import { chatText, chatToolCalls, scripted } from './chat-completions.js';
import { type RecordedRequest, startLocalServer } from './local-server.js';
import { openAIResponse as response } from './replies.js';
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

// The real OpenAI SDK against a local server speaking Chat Completions and the Responses API.

const MALFORMED = { id: 'call_bad', name: 'edit_file', arguments: '{"file_path": "src/greet.ts", "old_str' };

describe('openai adapter: Chat Completions', () => {
  it('runs tool calls and sends one tool message per call, malformed JSON answered, not thrown', async () => {
    const { tools, greet } = await greetWorkspace();
    const server = await startLocalServer([
      chatToolCalls(scripted('read', [READ])),
      chatToolCalls([...scripted('edit', EDITS), MALFORMED]),
      chatText(FINAL_TEXT),
    ]);
    const client = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test', maxRetries: 0 });

    // The README's loop.
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: PROMPT }];
    for (;;) {
      const completion = await client.chat.completions.create({
        model: 'test-model',
        messages,
        tools: openAIChatTools(tools),
      });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) break;
      messages.push(...(await runOpenAIChatToolCalls(tools, message.tool_calls)));
    }

    expect(messages.at(-1)?.content).toBe(FINAL_TEXT);
    expect(await greet()).toBe(GREET_AFTER);
    expect(server.requests.map((request) => request.path)).toEqual(Array(3).fill('/v1/chat/completions'));

    const offered = server.requests[0]?.body.tools;
    // biome-ignore lint/suspicious/noExplicitAny: the request body as the SDK sent it.
    expect(offered.map((entry: any) => [entry.type, entry.function.name, entry.function.strict])).toEqual(
      tools.definitions.map((definition) => ['function', definition.name, undefined]),
    );
    expectPortableSchemas(offered);

    const toolMessages = (request: RecordedRequest | undefined) =>
      // biome-ignore lint/suspicious/noExplicitAny: the request body as the SDK sent it.
      request?.body.messages.filter((entry: any) => entry.role === 'tool') ?? [];
    const [read] = toolMessages(server.requests[1]);
    expect(read.tool_call_id).toBe('read_0');
    expectReadMessage(read.content);

    const answers = toolMessages(server.requests[2]).slice(1);
    // biome-ignore lint/suspicious/noExplicitAny: the request body as the SDK sent it.
    expect(answers.map((entry: any) => entry.tool_call_id)).toEqual([
      'edit_0',
      'edit_1',
      'edit_2',
      'call_bad',
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: the request body as the SDK sent it.
    expectEditTurnMessages(answers.slice(0, 3).map((entry: any) => entry.content));
    expect(answers[3].content).toMatch(
      /^edit_file failed \(INVALID_INPUT\): the arguments are not valid JSON/,
    );
  });

  it('answers an unknown tool, a freeform apply_patch call and empty arguments; nothing for no calls', async () => {
    const { tools, greet } = await greetWorkspace();

    const results = await runOpenAIChatToolCalls(tools, [
      { id: 'a', type: 'function', function: { name: 'rm_rf', arguments: '{}' } },
      { id: 'b', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } },
      { id: 'c', type: 'function', function: { name: 'read_file', arguments: '' } },
    ]);

    expect(results.map((result) => [result.role, result.tool_call_id])).toEqual([
      ['tool', 'a'],
      ['tool', 'b'],
      ['tool', 'c'],
    ]);
    expect(results[0]?.content).toMatch(/UNKNOWN_TOOL/);
    // A freeform apply_patch call (as Codex defines it) is the patch text itself: this one is cut short.
    expect(results[1]?.content).toMatch(/^apply_patch failed \(INVALID_INPUT\): The patch does not parse/);
    expect(results[2]?.content).toMatch(/^read_file failed \(INVALID_INPUT\)/);
    expect(await greet()).toBe(GREET);
    expect(await runOpenAIChatToolCalls(tools, undefined)).toEqual([]);
  });
});

const functionCalls = (prefix: string, calls: { name: string; input: unknown }[]) =>
  scripted(prefix, calls).map((call) => ({
    type: 'function_call',
    id: `fc_${call.id}`,
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
    status: 'completed',
  }));

describe('openai adapter: Responses API', () => {
  it('runs function_call items and sends function_call_output items with call_id', async () => {
    const { tools, greet } = await greetWorkspace();
    const server = await startLocalServer([
      response('resp_1', [{ type: 'reasoning', id: 'rs_1', summary: [] }, ...functionCalls('read', [READ])]),
      response('resp_2', [
        ...functionCalls('edit', EDITS),
        {
          type: 'function_call',
          id: 'fc_bad',
          call_id: 'call_bad',
          name: 'edit_file',
          arguments: '{',
          status: 'completed',
        },
      ]),
      response('resp_3', [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: FINAL_TEXT, annotations: [] }],
        },
      ]),
    ]);
    const client = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test', maxRetries: 0 });

    let result = await client.responses.create({
      model: 'test-model',
      input: PROMPT,
      tools: openAIResponsesTools(tools),
    });
    for (;;) {
      const outputs = await runOpenAIResponsesCalls(tools, result.output);
      if (outputs.length === 0) break;
      result = await client.responses.create({
        model: 'test-model',
        previous_response_id: result.id,
        input: outputs,
        tools: openAIResponsesTools(tools),
      });
    }

    expect(result.output_text).toBe(FINAL_TEXT);
    expect(await greet()).toBe(GREET_AFTER);
    expect(server.requests.map((request) => request.path)).toEqual(Array(3).fill('/v1/responses'));

    const offered = server.requests[0]?.body.tools;
    // biome-ignore lint/suspicious/noExplicitAny: the request body as the SDK sent it.
    expect(offered.map((entry: any) => [entry.type, entry.name, entry.strict])).toEqual(
      tools.definitions.map((definition) => ['function', definition.name, false]),
    );
    expectPortableSchemas(offered);

    expect(server.requests[1]?.body.previous_response_id).toBe('resp_1');
    const [read] = server.requests[1]!.body.input;
    expect(read).toMatchObject({ type: 'function_call_output', call_id: 'read_0' });
    expectReadMessage(read.output);

    const answers = server.requests[2]?.body.input;
    // biome-ignore lint/suspicious/noExplicitAny: the request body as the SDK sent it.
    expect(answers.map((item: any) => [item.type, item.call_id])).toEqual([
      ['function_call_output', 'edit_0'],
      ['function_call_output', 'edit_1'],
      ['function_call_output', 'edit_2'],
      ['function_call_output', 'call_bad'],
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: the request body as the SDK sent it.
    expectEditTurnMessages(answers.slice(0, 3).map((item: any) => item.output));
    expect(answers[3].output).toMatch(/^edit_file failed \(INVALID_INPUT\)/);
  });
});
