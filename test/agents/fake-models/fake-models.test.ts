import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessages } from './anthropic-messages.js';
import { chatCompletions } from './chat-completions.js';
import { gemini } from './gemini.js';
import { openAIResponses } from './openai-responses.js';
import type { Turn } from './script.js';
import { type ScriptedModel, type ScriptedModelOptions, startScriptedModel } from './server.js';

/**
 * The fake models against the official SDKs (what the agents are built on): streamed tool calls arrive whole,
 * with the agent's own name for editgate's tool; requests outside the main loop do not move the script on;
 * a scripted tool the agent did not offer is a problem the test sees.
 */
const servers: ScriptedModel[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});
async function start(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const model = await startScriptedModel(options);
  servers.push(model);
  return model;
}

const SCRIPT: Turn[] = [
  {
    call: [{ tool: 'edit_file', input: { file_path: 'a.txt', old_string: 'x', new_string: 'ÿ "quoted"\n' } }],
  },
  { say: 'All done.' },
];
const INPUT = { file_path: 'a.txt', old_string: 'x', new_string: 'ÿ "quoted"\n' };
const schema = { type: 'object' as const, properties: { file_path: { type: 'string' } } };

describe('Anthropic Messages', () => {
  it("streams a tool call under the agent's name, then text; a request without editgate tools is answered aside", async () => {
    const model = await start({ protocol: anthropicMessages, script: SCRIPT });
    const client = new Anthropic({ apiKey: 'k', baseURL: model.origin });
    const tools = [{ name: 'mcp__editgate__edit_file', description: 'd', input_schema: schema }];
    const aside = await client.messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'title?' }],
    });
    expect(aside.content).toEqual([expect.objectContaining({ type: 'text', text: 'OK' })]);
    const first = await client.messages
      .stream({ model: 'm', max_tokens: 10, tools, messages: [{ role: 'user', content: 'go' }] })
      .finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      expect.objectContaining({ type: 'tool_use', name: 'mcp__editgate__edit_file', input: INPUT }),
    ]);
    const second = await client.messages
      .stream({ model: 'm', max_tokens: 10, tools, messages: [{ role: 'user', content: 'go' }] })
      .finalMessage();
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'All done.' })]);
    expect(model.main().map((request) => request.turn)).toEqual([0, 1]);
    expect(model.problems).toEqual([]);
  });
});

describe('OpenAI Responses', () => {
  it('streams a function call, naming a namespaced MCP tool by namespace and name as Codex sends them', async () => {
    const model = await start({ protocol: openAIResponses, script: SCRIPT });
    const client = new OpenAI({ apiKey: 'k', baseURL: `${model.origin}/v1` });
    const tools = [
      {
        type: 'namespace',
        name: 'mcp__editgate',
        tools: [{ type: 'function', name: 'edit_file', parameters: schema }],
      },
    ];
    const stream = client.responses.stream({ model: 'm', input: 'go', tools } as unknown as Parameters<
      typeof client.responses.stream
    >[0]);
    const response = await stream.finalResponse();
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'function_call',
        name: 'edit_file',
        namespace: 'mcp__editgate',
        arguments: JSON.stringify(INPUT),
      }),
    ]);
    expect(model.main()[0]!.offered).toEqual(['mcp__editgate__edit_file']);
    const text = await client.responses
      .stream({ model: 'm', input: 'go', tools } as unknown as Parameters<typeof client.responses.stream>[0])
      .finalResponse();
    expect(text.output_text).toBe('All done.');
  });
});

describe('OpenAI Chat Completions', () => {
  it('streams tool call arguments in pieces that join to the scripted input', async () => {
    const model = await start({ protocol: chatCompletions, script: SCRIPT });
    const client = new OpenAI({ apiKey: 'k', baseURL: `${model.origin}/v1` });
    const tools = [
      { type: 'function' as const, function: { name: 'editgate_edit_file', parameters: schema } },
    ];
    const completion = await client.chat.completions
      .stream({ model: 'm', messages: [{ role: 'user', content: 'go' }], tools })
      .finalChatCompletion();
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('editgate_edit_file');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual(INPUT);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('records a problem when the script calls a tool the agent did not offer, and ends the script politely', async () => {
    const model = await start({ protocol: chatCompletions, script: [SCRIPT[0]!] });
    const client = new OpenAI({ apiKey: 'k', baseURL: `${model.origin}/v1` });
    const tools = [
      { type: 'function' as const, function: { name: 'editgate_read_file', parameters: schema } },
    ];
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }], tools });
    expect(model.problems).toEqual([
      expect.stringMatching(/calls edit_file, which the agent did not offer \(offered: editgate_read_file\)/),
    ]);
    const after = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'go' }],
      tools,
    });
    expect(after.choices[0]!.message.content).toBe('The script has ended.');
  });
});

describe('Gemini streamGenerateContent', () => {
  it('sends a functionCall with the arguments as an object, the last chunk finished with STOP', async () => {
    const model = await start({ protocol: gemini, script: SCRIPT });
    const body = {
      contents: [],
      tools: [{ functionDeclarations: [{ name: 'mcp_editgate_edit_file', parametersJsonSchema: schema }] }],
    };
    const response = await fetch(`${model.origin}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const chunks = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    const parts = chunks.flatMap((chunk) => chunk.candidates[0].content.parts);
    expect(parts).toEqual([
      { functionCall: expect.objectContaining({ name: 'mcp_editgate_edit_file', args: INPUT }) },
    ]);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
  });

  it('answers a route it does not know with 404 and records it', async () => {
    const model = await start({ protocol: gemini, script: SCRIPT });
    const response = await fetch(`${model.origin}/v1beta/models/m:embedContent`, {
      method: 'POST',
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(model.problems).toEqual([
      expect.stringContaining('no route for POST /v1beta/models/m:embedContent'),
    ]);
  });
});
