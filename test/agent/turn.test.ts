import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT, runTurn, type TurnEvents } from '../../src/agent/loop/turn.js';
import { createLanguageModel } from '../../src/agent/providers/language-model.js';
import { type ModelTarget, resolveModelTarget } from '../../src/agent/providers/model-target.js';
import { editKit } from '../../src/agent/tools/edit-kit.js';
import { EDITS, GREET_AFTER, greetWorkspace, READ } from '../adapters/scenario.js';
import { type FakeModelServer, type ScriptedTurn, startFakeModelServer } from './fake-model-server.js';

// The turn loop with the real AI SDK providers against the local fake model server, both protocol families.

const FAMILIES = [
  { name: 'anthropic', model: 'anthropic/fake', keyVariable: 'ANTHROPIC_API_KEY' },
  { name: 'openai-compatible', model: 'openai-compatible/fake', keyVariable: undefined },
] as const;

function targetFor(family: (typeof FAMILIES)[number], server: FakeModelServer): ModelTarget {
  return resolveModelTarget(
    { model: family.model, baseURL: server.baseURL },
    { path: '/nowhere/config.json', providers: {}, prices: {} },
    { ANTHROPIC_API_KEY: 'test-key' },
  );
}

function recorder() {
  const log: string[] = [];
  const events: TurnEvents = {
    textDelta: (text) => log.push(`text ${text}`),
    toolStarted: (call) => log.push(`start ${call.name}`),
    toolFinished: (call, result) => log.push(`end ${call.name} ${result.ok ? 'ok' : result.code}`),
    usage: () => {},
    warning: (text) => log.push(`warning ${text}`),
    message: () => {},
  };
  return { log, events };
}

/** The tool results a request carries, as text, in either protocol's shape. */
// biome-ignore lint/suspicious/noExplicitAny: the request body as the provider wrote it.
function toolResults(body: any): string[] {
  const out: string[] = [];
  for (const message of body.messages) {
    if (message.role === 'tool') out.push(String(message.content));
    if (message.role === 'user' && Array.isArray(message.content)) {
      for (const block of message.content)
        if (block.type === 'tool_result')
          out.push(
            typeof block.content === 'string'
              ? block.content
              : block.content.map((c: { text: string }) => c.text).join(''),
          );
    }
  }
  return out;
}

describe.each(FAMILIES)('runTurn against the $name protocol', (family) => {
  it('reads, edits through the gate, and answers; every result goes back to the model', async () => {
    const { root, tools, greet } = await greetWorkspace();
    const turns: ScriptedTurn[] = [
      { text: 'Let me look.', calls: [READ] },
      { calls: EDITS.slice(1) },
      { text: 'Done: greet says Hi.' },
    ];
    const server = await startFakeModelServer(turns);
    const target = targetFor(family, server);
    const messages: ModelMessage[] = [{ role: 'user', content: 'Make greet say Hi.' }];
    const { log, events } = recorder();
    const outcome = await runTurn({
      model: await createLanguageModel(target),
      target,
      system: `root ${root}`,
      tools: editKit(tools),
      messages,
      signal: new AbortController().signal,
      stopRequested: () => false,
      events,
    });
    expect(outcome).toEqual({ status: 'done' });
    expect(await greet()).toBe(GREET_AFTER);
    expect(server.requests).toHaveLength(3);
    expect(log.filter((line) => !line.startsWith('text'))).toEqual([
      'start read_file',
      'end read_file ok',
      'start edit_file',
      'end edit_file ok',
      'start edit_file',
      'end edit_file ok',
    ]);
    expect(
      log
        .filter((line) => line.startsWith('text '))
        .map((line) => line.slice(5))
        .join(''),
    ).toContain('Done: greet says Hi.');
    const results = toolResults(server.requests[2]!.body);
    expect(results).toHaveLength(3);
    expect(results[0]).toContain("const greeting = 'Hello';");
    expect(results[1]).toMatch(/^Edited src\/greet\.ts/);
    // The conversation ends with the answer.
    expect(messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Done: greet says Hi.' }],
    });
  });

  it('an interrupt mid-stream keeps the partial text; a call that arrived whole gets a "did not run" result', async () => {
    const { tools, greet } = await greetWorkspace();
    const before = await greet();
    const server = await startFakeModelServer([
      { text: 'I will edit it now.', calls: [EDITS[1]!], hold: true },
    ]);
    const target = targetFor(family, server);
    const messages: ModelMessage[] = [{ role: 'user', content: 'Edit.' }];
    const { log, events } = recorder();
    const controller = new AbortController();
    // Anthropic delivers a call whole at its block's end; Chat Completions only when the reply ends, so there
    // the interrupt comes while the call is still arriving, and a call never received needs no result.
    const anthropic = family.name === 'anthropic';
    const outcome = await runTurn({
      model: await createLanguageModel(target),
      target,
      system: 's',
      tools: editKit(tools),
      messages,
      signal: controller.signal,
      stopRequested: () => false,
      events: anthropic
        ? { ...events, callReceived: () => controller.abort() }
        : { ...events, toolInput: () => setImmediate(() => controller.abort()) },
    });
    expect(outcome.status).toBe('interrupted');
    expect(await greet()).toBe(before);
    expect(log).not.toContain('start edit_file');
    if (anthropic) {
      expect(log).toContain('end edit_file CANCELLED');
      expect(messages[1]).toMatchObject({
        role: 'assistant',
        content: [
          { type: 'text', text: 'I will edit it now.' },
          { type: 'tool-call', toolName: 'edit_file' },
        ],
      });
      expect(messages[2]).toMatchObject({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolName: 'edit_file',
            output: { type: 'error-text', value: INTERRUPTED_RESULT },
          },
        ],
      });
    } else {
      expect(messages.slice(1)).toEqual([
        { role: 'assistant', content: [{ type: 'text', text: 'I will edit it now.' }] },
      ]);
    }
  });

  it('a missing tool and unparseable arguments get a result the model can act on', async () => {
    const { tools } = await greetWorkspace();
    const server = await startFakeModelServer([
      { calls: [{ name: 'no_such_tool', input: {} }] },
      { text: 'ok' },
    ]);
    const target = targetFor(family, server);
    const messages: ModelMessage[] = [{ role: 'user', content: 'x' }];
    const { events } = recorder();
    const outcome = await runTurn({
      model: await createLanguageModel(target),
      target,
      system: 's',
      tools: editKit(tools),
      messages,
      signal: new AbortController().signal,
      stopRequested: () => false,
      events,
    });
    expect(outcome.status).toBe('done');
    expect(toolResults(server.requests[1]!.body).join('')).toContain('could not be run');
  });
});

describe('local-model traps', () => {
  const config = { path: '/nowhere/config.json', providers: {}, prices: {} };

  it('a model that writes a tool call as text: nothing runs, and the person is told why', async () => {
    const { tools, greet } = await greetWorkspace();
    const before = await greet();
    const server = await startFakeModelServer([
      { text: '<tool_call>{"name": "edit_file", "arguments": {"file_path": "src/greet.ts"}}</tool_call>' },
    ]);
    const target = resolveModelTarget({ model: 'ollama/qwen', baseURL: server.baseURL }, config, {});
    const outcome = await runTurn({
      model: await createLanguageModel(target),
      target,
      system: 's',
      tools: editKit(tools),
      messages: [{ role: 'user', content: 'edit' }],
      signal: new AbortController().signal,
      stopRequested: () => false,
      events: recorder().events,
    });
    expect(outcome.status).toBe('text-tool-call');
    expect(outcome.error).toMatch(
      /^ollama\/qwen wrote a tool call as text instead of calling the tool, so nothing ran\./,
    );
    expect(await greet()).toBe(before);
  });

  it('a server that counts far fewer prompt tokens than were sent: a warning naming the fix', async () => {
    const { tools } = await greetWorkspace();
    const server = await startFakeModelServer([
      { text: 'Hi.', inputTokens: 300 },
      { text: 'Again.', inputTokens: 300 },
    ]);
    const target = resolveModelTarget({ model: 'ollama/qwen', baseURL: server.baseURL }, config, {});
    const { log, events } = recorder();
    const warnings = new Set<string>();
    const run = async () =>
      runTurn({
        model: await createLanguageModel(target),
        target,
        // About 4000 tokens sent, 300 counted.
        system: 'The project notes. '.repeat(800),
        tools: editKit(tools),
        messages: [{ role: 'user', content: 'hello' }],
        signal: new AbortController().signal,
        stopRequested: () => false,
        events,
        warnings,
      });
    await run();
    await run();
    const said = log.filter((line) => line.startsWith('warning'));
    // Once per session, not once per request.
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      new RegExp(
        `^warning ${server.baseURL.replace(/[.]/g, '\\.')} counted 300 prompt tokens for a conversation of about \\d+: it probably cut the conversation.*OLLAMA_CONTEXT_LENGTH=32768`,
      ),
    );
  });
});
