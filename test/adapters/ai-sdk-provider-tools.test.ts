// The AI SDK's provider-defined edit tools with editgate's executors: anthropic.tools.textEditor_20250728
// and openai.tools.applyPatch, each in a real generateText loop against a local server speaking the
// provider's API (Messages, Responses).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { applyPatchExecutor, textEditorExecutor } from '../../src/adapters/ai-sdk.js';
import { startLocalServer } from './local-server.js';
import { anthropicMessage, openAIResponse } from './replies.js';
import { GREET, greetWorkspace } from './scenario.js';

describe('AI SDK provider tools with editgate executors', () => {
  it('anthropic.tools.textEditor_20250728: view then str_replace, through the gate', async () => {
    const { tools, greet } = await greetWorkspace();
    const server = await startLocalServer([
      anthropicMessage(
        [
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'str_replace_based_edit_tool',
            input: { command: 'view', path: 'src/greet.ts' },
          },
        ],
        'tool_use',
      ),
      anthropicMessage(
        [
          {
            type: 'tool_use',
            id: 'toolu_2',
            name: 'str_replace_based_edit_tool',
            input: { command: 'str_replace', path: 'src/greet.ts', old_str: "'Hello'", new_str: "'Hi'" },
          },
        ],
        'tool_use',
      ),
      anthropicMessage([{ type: 'text', text: 'Done.' }], 'end_turn'),
    ]);
    const anthropic = createAnthropic({ baseURL: server.origin, apiKey: 'test' });
    const result = await generateText({
      model: anthropic('test-model'),
      prompt: 'Say Hi.',
      tools: {
        str_replace_based_edit_tool: anthropic.tools.textEditor_20250728({
          maxCharacters: 5000,
          execute: textEditorExecutor(tools, { maxCharacters: 5000 }),
        }),
      },
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('Done.');
    expect(await greet()).toBe(GREET.replace("'Hello'", "'Hi'"));
    expect(server.requests[0]!.body.tools).toEqual([
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 5000 },
    ]);
    const viewed = JSON.stringify(server.requests[1]!.body.messages.at(-1));
    expect(viewed).toContain("const greeting = 'Hello'");
  });

  it('openai.tools.applyPatch: an update_file operation, answered completed', async () => {
    const { root, tools, greet } = await greetWorkspace();
    const server = await startLocalServer([
      openAIResponse('resp_1', [
        {
          type: 'apply_patch_call',
          id: 'apc_1',
          call_id: 'call_1',
          status: 'completed',
          operation: {
            type: 'update_file',
            path: 'src/greet.ts',
            diff: "-  const greeting = 'Hello';\n+  const greeting = 'Hi';\n",
          },
        },
        {
          type: 'apply_patch_call',
          id: 'apc_2',
          call_id: 'call_2',
          status: 'completed',
          operation: { type: 'create_file', path: 'notes.md', diff: '+# Notes\n' },
        },
      ]),
      openAIResponse('resp_2', [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
        },
      ]),
    ]);
    const openai = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test' });
    const result = await generateText({
      model: openai.responses('test-model'),
      prompt: 'Say Hi.',
      // `ai` pins its own @ai-sdk/provider-utils (4.0.65) beside the providers' (4.0.66) in this lockfile, so
      // their Schema types differ nominally; at run time they are the same shape.
      tools: {
        apply_patch: openai.tools.applyPatch({ execute: applyPatchExecutor(tools) }),
      } as unknown as ToolSet,
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('Done.');
    expect(await greet()).toBe(GREET.replace("'Hello'", "'Hi'"));
    expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('# Notes\n');
    type Answer = { type: string; call_id: string; status: string };
    const input: Answer[] = server.requests[1]!.body.input;
    const answers = input.filter((item) => item.type === 'apply_patch_call_output');
    expect(answers.map((item) => [item.call_id, item.status])).toEqual([
      ['call_1', 'completed'],
      ['call_2', 'completed'],
    ]);
  });
});
