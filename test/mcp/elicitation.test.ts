import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FASTER_THAN_A_PERSON_MS } from '../../src/gate/no-approver.js';
import { answeredAtOnce } from '../instant-answer.js';
import { type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

interface Asked {
  message: string;
  schema: Record<string, unknown>;
}

/** An answer given after a pause, as a person gives it (not at once, as a client that answers for itself). */
class Paused {
  constructor(
    readonly afterMs: number,
    readonly answer: ElicitResult,
  ) {}
}

/** What a person does: reads for a while, then answers. Long past FASTER_THAN_A_PERSON_MS. */
const byAPerson = (answer: ElicitResult) => new Paused(4 * FASTER_THAN_A_PERSON_MS, answer);

/** A client that declares form elicitation and answers each prompt with the next scripted answer. */
async function eliciting(root: string, answers: (ElicitResult | Paused)[], args: string[] = []) {
  const asked: Asked[] = [];
  session = await connectStdio([root, ...args], {
    capabilities: { elicitation: { form: {} } },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        const params = request.params as { message: string; requestedSchema: Record<string, unknown> };
        asked.push({ message: params.message, schema: params.requestedSchema });
        const answer = answers.shift();
        if (!answer) throw new Error('no scripted answer left');
        if (!(answer instanceof Paused)) return answer;
        await new Promise((resolve) => setTimeout(resolve, answer.afterMs));
        return answer.answer;
      }),
  });
  return { client: session.client, asked };
}

const choose = (decision: string, reason?: string): ElicitResult => ({
  action: 'accept',
  content: reason === undefined ? { decision } : { decision, reason },
});

async function readAndEdit(client: Client, file: string, from: string, to: string) {
  await call(client, 'read_file', { file_path: file });
  return call(client, 'edit_file', { file_path: file, old_string: from, new_string: to });
}

describe('approval through elicitation', () => {
  it('auto-detects elicitation, says so, and asks with the path, the counts and the diff', async () => {
    const root = workspace({ 'a.txt': 'one\ntwo\n' });
    const { client, asked } = await eliciting(root, [choose('Allow once')]);
    expect(client.getInstructions()).toContain(
      'Approval: elicit (auto-detected: the client supports elicitation)',
    );
    expect(session!.stderr()).toContain('approval mode elicit');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).not.toContain('apply_change');

    const edit = await readAndEdit(client, 'a.txt', 'two', 'TWO');
    expect(edit.isError).toBe(false);
    expect(edit.structured?.details).toMatchObject({ decision: 'once', decidedBy: 'user', written: true });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');

    expect(asked).toHaveLength(1);
    const prompt = asked[0]!;
    expect(prompt.message).toContain('edit_file wants to modify a.txt (+1 -1)');
    expect(prompt.message).toContain('-two');
    expect(prompt.message).toContain('+TWO');
    expect(prompt.schema).toMatchObject({
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          enum: ['Allow once', 'Allow this file for the session', 'Allow all edits this session', 'Deny'],
          // Accept alone allows once (#28).
          default: 'Allow once',
        },
        reason: { type: 'string' },
      },
      // Optional reason: Codex cannot submit a required field empty (#28).
      required: ['decision'],
    });
  });

  it('a client that fills in the form defaults allows once on Accept alone (#28)', async () => {
    const root = workspace({ 'a.txt': 'one\n' });
    // What a client does with an untouched form: each field's default, nothing else.
    const defaults = (schema: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(schema.properties as Record<string, { default?: unknown }>)
          .filter(([, field]) => field.default !== undefined)
          .map(([name, field]) => [name, field.default]),
      ) as Record<string, string>;
    const asked: Asked[] = [];
    session = await connectStdio([root], {
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'claude-code', version: '2.1.0' },
      setup: (client) =>
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          const params = request.params as { message: string; requestedSchema: Record<string, unknown> };
          asked.push({ message: params.message, schema: params.requestedSchema });
          await new Promise((resolve) => setTimeout(resolve, 4 * FASTER_THAN_A_PERSON_MS));
          return { action: 'accept', content: defaults(params.requestedSchema) };
        }),
    });
    const edit = await readAndEdit(session.client, 'a.txt', 'one', 'ONE');
    expect(edit.structured?.details).toMatchObject({ decision: 'once', decidedBy: 'user', written: true });
    expect(asked).toHaveLength(1);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('ONE\n');
  });

  it('Codex gets the decision alone: its form cannot be sent with an empty text field (#28)', async () => {
    const root = workspace({ 'a.txt': 'one\n' });
    const asked: Asked[] = [];
    session = await connectStdio([root], {
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'codex-mcp-client', version: '0.171.0' },
      setup: (client) =>
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          const params = request.params as { message: string; requestedSchema: Record<string, unknown> };
          asked.push({ message: params.message, schema: params.requestedSchema });
          await new Promise((resolve) => setTimeout(resolve, 4 * FASTER_THAN_A_PERSON_MS));
          return { action: 'accept', content: { decision: 'Allow once' } };
        }),
    });
    const edit = await readAndEdit(session.client, 'a.txt', 'one', 'ONE');
    expect(edit.structured?.details).toMatchObject({ decision: 'once', decidedBy: 'user', written: true });
    expect(Object.keys(asked[0]!.schema.properties as object)).toEqual(['decision']);
    expect(asked[0]!.schema.required).toEqual(['decision']);
    // Nor a box per hunk (#30): Enter on each would move on instead of sending. The change is taken whole.
    const lines = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
    await call(session.client, 'write_file', { file_path: 'b.txt', content: lines });
    await call(session.client, 'read_file', { file_path: 'b.txt' });
    const threeHunks = lines
      .replace('line 2\n', 'LINE 2\n')
      .replace('line 15\n', 'LINE 15\n')
      .replace('line 28\n', 'LINE 28\n');
    const write = await call(session.client, 'write_file', { file_path: 'b.txt', content: threeHunks });
    expect(write.isError).toBe(false);
    expect(Object.keys(asked.at(-1)!.schema.properties as object)).toEqual(['decision']);
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe(threeHunks);
  });

  it('"this file for the session" stops asking for that file only', async () => {
    const root = workspace({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    const { client, asked } = await eliciting(root, [
      choose('Allow this file for the session'),
      choose('Allow once'),
    ]);
    expect((await readAndEdit(client, 'a.txt', 'a1', 'a2')).isError).toBe(false);
    const again = await call(client, 'edit_file', { file_path: 'a.txt', old_string: 'a2', new_string: 'a3' });
    expect(again.structured?.details).toMatchObject({ decidedBy: 'session', written: true });
    expect((await readAndEdit(client, 'b.txt', 'b1', 'b2')).isError).toBe(false);
    expect(asked.map((prompt) => prompt.message.split('\n')[0])).toEqual([
      'edit_file wants to modify a.txt (+1 -1)',
      'edit_file wants to modify b.txt (+1 -1)',
    ]);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a3\n');
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('b2\n');
  });

  it('"all edits this session" stops asking altogether', async () => {
    const root = workspace({ 'a.txt': 'a1\n' });
    const { client, asked } = await eliciting(root, [choose('Allow all edits this session')]);
    expect((await readAndEdit(client, 'a.txt', 'a1', 'a2')).isError).toBe(false);
    expect((await call(client, 'write_file', { file_path: 'c.txt', content: 'c\n' })).isError).toBe(false);
    expect(asked).toHaveLength(1);
    expect(readFileSync(join(root, 'c.txt'), 'utf8')).toBe('c\n');
  });

  it('allow with a reason: written, and the reason reaches the model', async () => {
    const root = workspace({ 'a.txt': 'a1\n' });
    const { client } = await eliciting(root, [choose('Allow once', 'ok, but add a test next')]);
    const allowed = await readAndEdit(client, 'a.txt', 'a1', 'a2');
    expect(allowed.isError).toBe(false);
    expect(allowed.text).toContain('The user approved this change with a note: ok, but add a test next');
    expect(allowed.structured?.details).toMatchObject({ approvalReason: 'ok, but add a test next' });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a2\n');
  });

  it('deny with a reason: nothing written, the reason reaches the model', async () => {
    const root = workspace({ 'a.txt': 'a1\n' });
    const { client } = await eliciting(root, [choose('Deny', 'use a constant instead')]);
    const denied = await readAndEdit(client, 'a.txt', 'a1', 'a2');
    expect(denied.isError).toBe(true);
    expect(denied.structured?.code).toBe('DENIED_USER');
    expect(denied.text).toContain('use a constant instead');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a1\n');
  });

  it("a person's decline and cancel are denials; nothing is written", async () => {
    const root = workspace({ 'a.txt': 'a1\n' });
    const { client } = await eliciting(root, [
      byAPerson({ action: 'decline' }),
      byAPerson({ action: 'cancel' }),
    ]);
    const declined = await readAndEdit(client, 'a.txt', 'a1', 'a2');
    expect(declined.structured?.code).toBe('DENIED_USER');
    const cancelled = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'a1',
      new_string: 'a3',
    });
    expect(cancelled.structured?.code).toBe('DENIED_USER');
    expect(cancelled.text).toContain('dismissed');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a1\n');
  });

  it('a decline or cancel faster than a person can read is no one asked: DENIED_NO_APPROVER, with advice', async () => {
    // What claude -p and codex exec do: decline every elicitation at once.
    const root = workspace({ 'a.txt': 'a1\n' });
    // Each answer at once, however many times a loaded machine makes a call be made again (instant-answer.ts).
    const answers: ElicitResult[] = [];
    const { client, asked } = await eliciting(root, answers);
    answers.push(...Array.from({ length: 5 }, () => ({ action: 'decline' as const })));
    const declined = await answeredAtOnce(() => readAndEdit(client, 'a.txt', 'a1', 'a2'));
    answers.splice(0, answers.length, ...Array.from({ length: 5 }, () => ({ action: 'cancel' as const })));
    const cancelled = await answeredAtOnce(() =>
      call(client, 'edit_file', { file_path: 'a.txt', old_string: 'a1', new_string: 'a3' }),
    );
    expect(asked).toHaveLength(declined.attempts + cancelled.attempts);
    for (const [refused, verb] of [
      [declined.result, 'declined'],
      [cancelled.result, 'cancelled'],
    ] as const) {
      expect(refused.structured?.code).toBe('DENIED_NO_APPROVER');
      expect(refused.text).toContain(`the client ${verb} the approval question`);
      expect(refused.text).toContain('faster than a person can read it');
      expect(refused.text).toContain('editgate trust');
      // Not preview: such a client would run apply_change with no one seeing the diff (#28).
      expect(refused.text).not.toContain('--approve preview');
      expect(refused.text).toContain('run the client interactively');
      expect(refused.text).toContain('--approve web');
      expect(refused.text).not.toMatch(/the user denied/i);
      expect(refused.text).not.toContain('dismissed');
    }
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a1\n');
  });

  it('never asks about a diff longer than the form shows: refused, saying to split it, nothing written', async () => {
    const root = workspace();
    const content = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const short = 'line 1\nline 2\n';
    const { client, asked } = await eliciting(root, [choose('Allow once')]);
    const refused = await call(client, 'write_file', { file_path: 'long.txt', content });
    expect(refused.structured?.code).toBe('TOO_LARGE');
    expect(refused.text).toContain('never asks anyone to approve a change they cannot see whole');
    expect(refused.text).toContain('Split it');
    expect(asked).toEqual([]);
    expect(existsSync(join(root, 'long.txt'))).toBe(false);
    // A first part whose diff fits is asked about, whole.
    expect((await call(client, 'write_file', { file_path: 'long.txt', content: short })).isError).toBe(false);
    expect(asked[0]!.message).toContain('write_file wants to create long.txt (+2 -0)');
    expect(asked[0]!.message).toContain('+line 2');
    expect(readFileSync(join(root, 'long.txt'), 'utf8')).toBe(short);
  });

  it('asks the read question when the policy asks before reading', async () => {
    const config = JSON.stringify({
      policy: { rules: [{ tool: 'read_file', path: 'secret/**', action: 'ask' }] },
    });
    const root = workspace({ 'editgate.config.json': config, 'secret/k.txt': 'k\n' });
    const { client, asked } = await eliciting(root, [choose('Deny', 'private'), choose('Allow once')]);
    const denied = await call(client, 'read_file', { file_path: 'secret/k.txt' });
    expect(denied.structured?.code).toBe('DENIED_USER');
    expect(denied.text).toContain('private');
    expect(asked[0]!.message).toContain('Read secret/k.txt?');
    expect(asked[0]!.schema).toMatchObject({
      properties: { decision: { enum: expect.arrayContaining(['Allow reading this file for the session']) } },
    });
    expect((await call(client, 'read_file', { file_path: 'secret/k.txt' })).isError).toBe(false);
  });

  it('a client without elicitation gets preview mode; --approve elicit there refuses changes', async () => {
    const root = workspace({ 'a.txt': 'a1\n' });
    session = await connectStdio([root]);
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('apply_change');
    await session.close();

    session = await connectStdio([root, '--approve', 'elicit']);
    expect(session.client.getInstructions()).toContain('does not support elicitation');
    const refused = await readAndEdit(session.client, 'a.txt', 'a1', 'a2');
    expect(refused.structured?.code).toBe('DENIED_NO_APPROVER');
    expect(refused.text).toContain('does not support MCP elicitation');
    expect(refused.text).toContain('--approve preview');
    expect(refused.text).not.toMatch(/the user denied/i);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a1\n');
  });

  it('sends progress notifications while a person is deciding', async () => {
    const root = workspace({ 'a.txt': 'a1\n' });
    let progressSeen!: () => void;
    const seen = new Promise<void>((resolve) => {
      progressSeen = resolve;
    });
    const progress: string[] = [];
    session = await connectStdio([root], {
      capabilities: { elicitation: {} },
      setup: (client) =>
        client.setRequestHandler(ElicitRequestSchema, async () => {
          // The person takes their time: answer only once the server has reported progress.
          await seen;
          return choose('Allow once');
        }),
    });
    await call(session.client, 'read_file', { file_path: 'a.txt' });
    const result = await session.client.callTool(
      { name: 'edit_file', arguments: { file_path: 'a.txt', old_string: 'a1', new_string: 'a2' } },
      undefined,
      {
        onprogress: (update) => {
          progress.push(update.message ?? '');
          progressSeen();
        },
      },
    );
    expect(result.isError).toBeFalsy();
    expect(progress[0]).toContain('waiting for the user to approve a.txt');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a2\n');
  });
});

describe('part of a change through the form (#30)', () => {
  const BEFORE = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
  const AFTER = BEFORE.replace('line 2\n', 'LINE 2\n')
    .replace('line 15\n', 'LINE 15\n')
    .replace('line 28\n', 'LINE 28\n');

  async function readAndWrite(client: Client, content: string) {
    await call(client, 'read_file', { file_path: 'a.txt' });
    return call(client, 'write_file', { file_path: 'a.txt', content });
  }

  it('a box per hunk: hunk 2 unticked with a reason writes 1 and 3 only; the model reads the reason', async () => {
    const root = workspace({ 'a.txt': BEFORE });
    const { client, asked } = await eliciting(root, [
      byAPerson({
        action: 'accept',
        content: {
          decision: 'Allow once',
          hunk_1: true,
          hunk_2: false,
          hunk_3: true,
          reason: 'line 15 is quoted in the docs',
        },
      }),
    ]);
    const result = await readAndWrite(client, AFTER);
    expect(result.isError).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(
      BEFORE.replace('line 2\n', 'LINE 2\n').replace('line 28\n', 'LINE 28\n'),
    );
    const properties = asked[0]!.schema.properties as Record<string, { type: string; title: string }>;
    expect(Object.keys(properties)).toEqual(['decision', 'reason', 'hunk_1', 'hunk_2', 'hunk_3']);
    expect(properties.hunk_2).toMatchObject({
      type: 'boolean',
      title: 'Write hunk 2 of 3 of a.txt (@@ -12,7 +12,7 @@)',
      default: true,
    });
    expect(result.text).toContain('The user accepted only part of your change');
    expect(result.text).toContain(
      "a.txt hunk 2 of 3 (line 15 as it is now): the user's reason: line 15 is quoted in the docs",
    );
    expect(result.text).not.toContain('approved this change with a note');
  });

  it('every box ticked, or none sent, is the whole change; a one-hunk change gets no boxes', async () => {
    const root = workspace({ 'a.txt': BEFORE });
    const { client, asked } = await eliciting(root, [
      byAPerson(choose('Allow once')),
      byAPerson(choose('Allow once')),
    ]);
    expect((await readAndWrite(client, AFTER)).isError).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(AFTER);
    expect((await readAndWrite(client, AFTER.replace('LINE 2\n', 'line 2\n'))).isError).toBe(false);
    expect(Object.keys(asked[1]!.schema.properties as object)).toEqual(['decision', 'reason']);
  });

  it('more hunks than MAX_FORM_HUNKS: no boxes, the change is asked whole', async () => {
    const root = workspace({ 'a.txt': BEFORE });
    const { client, asked } = await eliciting(root, [byAPerson(choose('Deny'))]);
    const many = BEFORE.split('\n')
      .map((line, i) => (i % 3 === 0 && line ? line.toUpperCase() : line))
      .join('\n');
    expect((await readAndWrite(client, many)).isError).toBe(true);
    expect(Object.keys(asked[0]!.schema.properties as object)).toEqual(['decision', 'reason']);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(BEFORE);
  });
});

describe('cancellation', () => {
  it('a client that cancels a call waiting for approval gets nothing written; the server says CANCELLED', async () => {
    const root = workspace({ 'a.txt': 'one\ntwo\n' });
    let prompted: () => void = () => {};
    const asked = new Promise<void>((resolve) => {
      prompted = resolve;
    });
    session = await connectStdio([root, '--log-level', 'info'], {
      capabilities: { elicitation: { form: {} } },
      setup: (client) =>
        client.setRequestHandler(ElicitRequestSchema, () => {
          prompted();
          return new Promise<ElicitResult>(() => {}); // the person never answers
        }),
    });
    const { client } = session;
    await call(client, 'read_file', { file_path: 'a.txt' });
    const controller = new AbortController();
    const edit = client.callTool(
      { name: 'edit_file', arguments: { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' } },
      undefined,
      { signal: controller.signal },
    );
    await asked;
    controller.abort();
    await expect(edit).rejects.toThrow();
    // The server logs each call's outcome; the cancelled one ends as CANCELLED, with nothing written.
    for (let i = 0; i < 200 && !session.stderr().includes('edit_file: CANCELLED'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(session.stderr()).toContain('edit_file: CANCELLED');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    // The session goes on.
    expect((await call(client, 'read_file', { file_path: 'a.txt' })).isError).toBe(false);
  });
});
