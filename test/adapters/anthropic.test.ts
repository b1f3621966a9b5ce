import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicTools, runAnthropicToolUses } from '../../src/adapters/anthropic.js';
import { startLocalServer } from './local-server.js';
import { anthropicMessage as message } from './replies.js';
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

// The real Anthropic SDK against a local server speaking the Messages API.

const toolUse = (id: string, call: { name: string; input: unknown }) => ({
  type: 'tool_use',
  id,
  name: call.name,
  input: call.input,
  caller: { type: 'direct' },
});

describe('anthropic adapter', () => {
  it('turns tool_use blocks into tool_result blocks the next create carries, is_error on failure', async () => {
    const { tools, greet } = await greetWorkspace();
    const server = await startLocalServer([
      message([{ type: 'text', text: 'Reading it first.' }, toolUse('toolu_read', READ)], 'tool_use'),
      message(
        EDITS.map((call, index) => toolUse(`toolu_edit_${index}`, call)),
        'tool_use',
      ),
      message([{ type: 'text', text: FINAL_TEXT }], 'end_turn'),
    ]);
    const client = new Anthropic({ baseURL: server.origin, apiKey: 'test', maxRetries: 0 });

    // The README's loop.
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: PROMPT }];
    for (;;) {
      const response = await client.messages.create({
        model: 'test-model',
        max_tokens: 1024,
        tools: anthropicTools(tools),
        messages,
      });
      messages.push({ role: 'assistant', content: response.content });
      if (response.stop_reason !== 'tool_use') break;
      messages.push({ role: 'user', content: await runAnthropicToolUses(tools, response.content) });
    }

    expect(messages.at(-1)?.content).toEqual([{ type: 'text', text: FINAL_TEXT }]);
    expect(await greet()).toBe(GREET_AFTER);
    expect(server.requests.map((request) => request.path)).toEqual(Array(3).fill('/v1/messages'));

    const offered = server.requests[0]?.body.tools;
    expect(offered).toHaveLength(tools.definitions.length);
    for (const [index, definition] of tools.definitions.entries()) {
      expect(offered[index]).toMatchObject({ name: definition.name, description: definition.description });
      expect(offered[index].input_schema.type).toBe('object');
    }
    expectPortableSchemas(offered);

    // What the server received: the last user turn is all tool_result blocks, in call order.
    const lastUserContent = (index: number) => server.requests[index]?.body.messages.at(-1).content;
    const [read] = lastUserContent(1);
    expect(read).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_read' });
    expect(read.is_error).toBeUndefined();
    expectReadMessage(read.content);

    const edits = lastUserContent(2);
    // biome-ignore lint/suspicious/noExplicitAny: blocks as the SDK sent them.
    expect(edits.map((block: any) => [block.type, block.tool_use_id, block.is_error])).toEqual([
      ['tool_result', 'toolu_edit_0', true],
      ['tool_result', 'toolu_edit_1', undefined],
      ['tool_result', 'toolu_edit_2', undefined],
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: blocks as the SDK sent them.
    expectEditTurnMessages(edits.map((block: any) => block.content));
  });

  it('answers every tool_use, an unknown tool and bad input included, and skips other blocks', async () => {
    const { tools, greet } = await greetWorkspace();
    const content: Anthropic.ContentBlockParam[] = [
      { type: 'text', text: 'Trying things.' },
      { type: 'tool_use', id: 'a', name: 'delete_file', input: { file_path: 'src/greet.ts' } },
      { type: 'tool_use', id: 'b', name: 'edit_file', input: { file_path: 'src/greet.ts' } },
      { type: 'tool_use', id: 'c', name: 'read_file', input: 'src/greet.ts' },
    ];

    const results = await runAnthropicToolUses(tools, content);

    expect(results.map((result) => [result.tool_use_id, result.is_error])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
    ]);
    expect(results[0]?.content).toMatch(/UNKNOWN_TOOL/);
    expect(results[1]?.content).toMatch(/^edit_file failed \(INVALID_INPUT\)/);
    expect(await greet()).toBe(GREET);
    expect(await runAnthropicToolUses(tools, [{ type: 'text', text: 'no tools' }])).toEqual([]);
  });
});
