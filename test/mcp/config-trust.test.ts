import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isTrusted } from '../../src/tools/config-trust.js';
import {
  ALLOW_ALL_CONFIG,
  type Connected,
  call,
  connectStdio,
  ensureBuilt,
  STATE_DIR,
  workspace,
} from './helpers.js';

// Issue #13: the MCP server asks about an untrusted editgate.config.json at the first tool call (through
// the client's elicitation form), or tells the model in the first result; a real SDK client over stdio.

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** A workspace whose config (allow every change: it needs trust) is written untrusted. */
function untrusted() {
  const root = workspace({ 'a.txt': 'one\ntwo\n' });
  const config = join(root, 'editgate.config.json');
  writeFileSync(config, ALLOW_ALL_CONFIG);
  return { root, config };
}

async function connect(root: string, answers?: ElicitResult[]) {
  const asked: string[] = [];
  session = await connectStdio([root], {
    capabilities: answers ? { elicitation: { form: {} } } : {},
    setup: (client) => {
      if (!answers) return;
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push((request.params as { message: string }).message);
        const answer = answers.shift();
        if (!answer) throw new Error('no scripted answer left');
        return answer;
      });
    },
  });
  return { client: session.client, asked };
}

const choose = (decision: string): ElicitResult => ({ action: 'accept', content: { decision } });

describe('an untrusted editgate.config.json in the MCP server (issue #13)', () => {
  it('asks at the first tool call, not before; "Trust it" records trust and the config applies whole', async () => {
    const { root, config } = untrusted();
    const { client, asked } = await connect(root, [choose('Trust it')]);
    await client.listTools();
    expect(asked).toEqual([]);
    const read = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(read.isError).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('editgate.config.json, once trusted:');
    expect(asked[0]).toContain('allow every tool on every path');
    expect(read.text).not.toContain('not trusted');
    expect(await isTrusted({ root: root, path: config }, ALLOW_ALL_CONFIG, STATE_DIR)).toBe(true);
    // The allow rule applies now: the edit is written with no question.
    const edit = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'two',
      new_string: 'TWO',
    });
    expect(edit.isError).toBe(false);
    expect(asked).toHaveLength(1);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
  });

  it('"Not now": nothing recorded, the first result says what was ignored and how to trust it', async () => {
    const { root, config } = untrusted();
    const { client, asked } = await connect(root, [choose('Not now'), choose('Deny')]);
    const read = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(read.text).toMatch(/^Note from editgate: .*editgate\.config\.json is not trusted/);
    expect(read.text).toContain('1 allow rule');
    expect(read.text).toContain(`editgate trust ${root}`);
    expect(await isTrusted({ root: root, path: config }, ALLOW_ALL_CONFIG, STATE_DIR)).toBe(false);
    // The allow rule is ignored: the change is asked about (and denied); the note is not repeated.
    const edit = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'two',
      new_string: 'TWO',
    });
    expect(edit.isError).toBe(true);
    expect(asked).toHaveLength(2);
    expect(edit.text).not.toContain('Note from editgate');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('a client without elicitation: the first result carries the note, and the config stays untrusted', async () => {
    const { root, config } = untrusted();
    const { client } = await connect(root);
    const read = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(read.isError).toBe(false);
    expect(read.text).toContain('is not trusted');
    expect(read.text).toContain(`editgate trust ${root}`);
    expect(read.structured?.message).toContain('is not trusted');
    const again = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(again.text).not.toContain('is not trusted');
    // Preview mode, allow rule ignored: the edit is staged, not written.
    const edit = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'two',
      new_string: 'TWO',
    });
    expect(edit.structured?.details.changeId).toBeDefined();
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(await isTrusted({ root: root, path: config }, ALLOW_ALL_CONFIG, STATE_DIR)).toBe(false);
  });

  it('a trusted config is not asked about and no note is added', async () => {
    const root = workspace({ 'a.txt': 'one\n', 'editgate.config.json': ALLOW_ALL_CONFIG });
    const { client, asked } = await connect(root, []);
    const read = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(read.text).not.toContain('not trusted');
    expect(asked).toEqual([]);
  });
});
