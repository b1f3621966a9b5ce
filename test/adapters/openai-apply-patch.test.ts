// OpenAI's native apply_patch tool, executed by editgate: the real OpenAI SDK against a local server that
// speaks the Responses API. A turn with a three-file patch (update, create, delete) is one change set.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { openAIResponsesTools, runOpenAIResponsesCalls } from '../../src/adapters/openai.js';
import type { ApprovalRequest } from '../../src/gate/approval.js';
import { createEditTools } from '../../src/tools/index.js';
import { startLocalServer } from './local-server.js';
import { openAIResponse as response } from './replies.js';
import { GREET, greetWorkspace } from './scenario.js';

const call = (id: string, operation: Record<string, string>) => ({
  type: 'apply_patch_call',
  id: `apc_${id}`,
  call_id: `call_${id}`,
  status: 'completed',
  operation,
});

const THREE_FILES = [
  call('1', {
    type: 'update_file',
    path: 'src/greet.ts',
    diff: "@@ export function greet(name: string): string {\n-  const greeting = 'Hello';\n+  const greeting = 'Hi';\n",
  }),
  call('2', { type: 'create_file', path: 'src/farewell.ts', diff: '+export const farewell = "Bye";\n' }),
  call('3', { type: 'delete_file', path: 'old.txt' }),
];

const FINAL = {
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
};

async function turn(tools: ReturnType<typeof createEditTools>, output: unknown[]) {
  const server = await startLocalServer([response('resp_1', output), response('resp_2', [FINAL])]);
  const client = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test', maxRetries: 0 });
  const first = await client.responses.create({
    model: 'test-model',
    input: 'Say Hi, add farewell, drop old.txt.',
    tools: openAIResponsesTools(tools, { applyPatch: true }),
  });
  const outputs = await runOpenAIResponsesCalls(tools, first.output);
  await client.responses.create({
    model: 'test-model',
    previous_response_id: first.id,
    input: outputs,
    tools: openAIResponsesTools(tools, { applyPatch: true }),
  });
  return { server, outputs };
}

describe('openai adapter: the native apply_patch tool', () => {
  it('offers {"type":"apply_patch"} and runs a three-file patch as one approved change set', async () => {
    const { root, greet } = await greetWorkspace();
    await writeFile(join(root, 'old.txt'), 'old\n');
    const asked: ApprovalRequest[] = [];
    const tools = createEditTools({
      root,
      approve: (request) => {
        asked.push(request);
        return 'once';
      },
    });
    const { server } = await turn(tools, THREE_FILES);

    // The request body as the SDK sent it: each tool has a type, function tools a name.
    const offered = server.requests[0]!.body.tools as { type: string; name?: string }[];
    expect(offered.filter((tool) => tool.type !== 'function')).toEqual([{ type: 'apply_patch' }]);
    expect(offered.some((tool) => tool.name === 'apply_patch')).toBe(false);

    expect(asked).toHaveLength(1);
    expect(asked[0]!.files?.map((file) => file.path)).toEqual(['src/greet.ts', 'src/farewell.ts', 'old.txt']);
    expect(await greet()).toBe(GREET.replace("'Hello'", "'Hi'"));
    expect(await readFile(join(root, 'src/farewell.ts'), 'utf8')).toBe('export const farewell = "Bye";\n');
    await expect(readFile(join(root, 'old.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    const answers = server.requests[1]!.body.input;
    expect(
      answers.map((item: { call_id: string; type: string; status: string }) => [
        item.type,
        item.call_id,
        item.status,
      ]),
    ).toEqual([
      ['apply_patch_call_output', 'call_1', 'completed'],
      ['apply_patch_call_output', 'call_2', 'completed'],
      ['apply_patch_call_output', 'call_3', 'completed'],
    ]);
    expect(answers[0].output).toContain('Changed 3 files');
  });

  it('a hunk that matches nowhere fails every call of the turn, naming the file and hunk; nothing written', async () => {
    const { root, greet } = await greetWorkspace();
    await writeFile(join(root, 'old.txt'), 'old\n');
    const tools = createEditTools({ root, approve: 'allow' });
    const wrong = call('1', {
      type: 'update_file',
      path: 'src/greet.ts',
      diff: "-  const greeting = 'Howdy';\n+  x\n",
    });
    const { outputs } = await turn(tools, [wrong, ...THREE_FILES.slice(1)]);
    expect(outputs.map((output) => [output.call_id, 'status' in output ? output.status : null])).toEqual([
      ['call_1', 'failed'],
      ['call_2', 'failed'],
      ['call_3', 'failed'],
    ]);
    expect(outputs[0]!.output).toMatch(/NOT_FOUND.*src\/greet\.ts/s);
    expect(await greet()).toBe(GREET);
    expect(await readFile(join(root, 'old.txt'), 'utf8')).toBe('old\n');
  });

  it('a diff that does not parse fails with the line of its own diff', async () => {
    const { root, greet } = await greetWorkspace();
    const tools = createEditTools({ root, approve: 'allow' });
    const broken = call('1', {
      type: 'update_file',
      path: 'src/greet.ts',
      diff: "-  const greeting = 'Hello';\nnot a diff line\n",
    });
    const ok = call('2', { type: 'create_file', path: 'new.txt', diff: '+new\n' });
    const { outputs } = await turn(tools, [broken, ok]);
    expect(outputs.map((output) => ('status' in output ? output.status : null))).toEqual([
      'failed',
      'failed',
    ]);
    expect(outputs[0]!.output).toMatch(
      /src\/greet\.ts: The diff does not parse: line 2: expected a hunk line/,
    );
    expect(outputs[1]!.output).toMatch(/Not applied.*src\/greet\.ts/);
    expect(await greet()).toBe(GREET);
  });
});
