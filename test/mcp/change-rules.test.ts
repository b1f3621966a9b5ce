/**
 * Rules on what a change does and secrets (#32) through the MCP server: the elicitation question says which
 * rule asked and shows a secret masked; a deny rule refuses with the rule named; the secret's value is in
 * no result text, no _meta and no question.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FASTER_THAN_A_PERSON_MS } from '../../src/gate/no-approver.js';
import { fakeGithubToken } from '../secret-fixtures.js';
import { type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

beforeAll(ensureBuilt, 300_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const CONFIG = JSON.stringify({
  policy: {
    rules: [
      { path: '**', action: 'allow' },
      { change: { removedOver: 2 }, action: 'ask', name: 'big deletion' },
      { change: { lockfile: true }, action: 'deny' },
    ],
  },
});

/** A client that asks a person (answers after a person's pause) and keeps every question. */
async function eliciting(root: string, answers: ElicitResult[]) {
  const asked: string[] = [];
  session = await connectStdio([root], {
    capabilities: { elicitation: { form: {} } },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push((request.params as { message: string }).message);
        await new Promise((resolve) => setTimeout(resolve, 4 * FASTER_THAN_A_PERSON_MS));
        const answer = answers.shift();
        if (!answer) throw new Error('no scripted answer left');
        return answer;
      }),
  });
  return { client: session.client, asked };
}

describe('editgate mcp and change rules', () => {
  it('a change rule asks past an allow rule; the question names it', async () => {
    const root = workspace({ 'big.txt': 'a\nb\nc\nd\n', 'editgate.config.json': CONFIG });
    const { client, asked } = await eliciting(root, [
      { action: 'accept', content: { decision: 'Allow once' } },
    ]);
    await call(client, 'read_file', { file_path: 'big.txt' });
    const small = await call(client, 'edit_file', {
      file_path: 'big.txt',
      old_string: 'a\n',
      new_string: 'A\n',
    });
    expect(small.isError).toBe(false);
    expect(asked).toHaveLength(0);
    const big = await call(client, 'write_file', { file_path: 'big.txt', content: 'x\n' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Asked by rule:big deletion');
    expect(asked[0]).toContain(
      '! big.txt: removes 4 lines (more than 2): asked by rule big deletion [rule:big deletion]',
    );
    expect(big.structured?.details).toMatchObject({ askedBy: ['rule:big deletion'] });
  });

  it('a deny rule refuses with the rule named', async () => {
    const root = workspace({ 'package-lock.json': '{}\n', 'editgate.config.json': CONFIG });
    const { client, asked } = await eliciting(root, []);
    await call(client, 'read_file', { file_path: 'package-lock.json' });
    const result = await call(client, 'write_file', { file_path: 'package-lock.json', content: '{"a":1}\n' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('DENIED_POLICY');
    expect(result.text).toContain('(rule:lockfile)');
    expect(asked).toHaveLength(0);
    expect(readFileSync(join(root, 'package-lock.json'), 'utf8')).toBe('{}\n');
  });

  it('a secret is asked about masked, and its value is in no question, result text or _meta', async () => {
    const token = fakeGithubToken();
    const root = workspace({ 'app.ts': 'const a = 1;\n', 'editgate.config.json': CONFIG });
    const { client, asked } = await eliciting(root, [
      { action: 'accept', content: { decision: 'Allow once' } },
    ]);
    const result = await call(client, 'write_file', {
      file_path: 'new.ts',
      content: `export const t = "${token}";\n`,
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Asked by secret:github');
    expect(asked[0]).toContain('new.ts:1: Github token (ghp_****');
    expect(asked[0]).not.toContain(token);
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.result)).not.toContain(token);
    expect(result.text).toContain('new.ts:1: Github token');
    // Written as the person approved it: the file holds the real text.
    expect(readFileSync(join(root, 'new.ts'), 'utf8')).toContain(token);
  });
});
