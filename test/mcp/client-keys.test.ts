import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withoutClientKeys } from '../../src/mcp/client-keys.js';
import { ALLOW_ALL_CONFIG, type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe('keys a client adds to every call (#28)', () => {
  it("Gemini CLI's wait_for_previous is dropped, never an error, and logged once per session", async () => {
    const root = workspace({ 'a.txt': 'one\ntwo\n', 'editgate.config.json': ALLOW_ALL_CONFIG });
    session = await connectStdio([root, '--approve', 'policy'], {
      clientInfo: { name: 'gemini-cli-mcp-client', version: '0.1.0' },
    });
    const { client } = session;
    const read = await call(client, 'read_file', { file_path: 'a.txt', wait_for_previous: true });
    expect(read.isError).toBe(false);
    const edit = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'two',
      new_string: 'TWO',
      wait_for_previous: false,
    });
    expect(edit.isError).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
    const logged = session.stderr().match(/ignoring "wait_for_previous"/g) ?? [];
    expect(logged).toHaveLength(1);
  });

  it('a key the model got wrong is still INVALID_INPUT, with a hint when it is close to a real one', async () => {
    const root = workspace({ 'a.txt': 'one\n', 'editgate.config.json': ALLOW_ALL_CONFIG });
    session = await connectStdio([root, '--approve', 'policy']);
    const { client } = session;
    await call(client, 'read_file', { file_path: 'a.txt' });
    const misspelled = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_strin: 'ONE',
    });
    expect(misspelled.isError).toBe(true);
    expect(misspelled.structured?.code).toBe('INVALID_INPUT');
    expect(misspelled.text).toContain('did you mean "new_string" for "new_strin"?');
    const madeUp = await call(client, 'read_file', { file_path: 'a.txt', wait_for_everything: true });
    expect(madeUp.structured?.code).toBe('INVALID_INPUT');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('drops only the listed keys, and keeps __proto__ an ordinary key for the schema to refuse', () => {
    const dropped: string[] = [];
    const input = JSON.parse('{"file_path":"a","wait_for_previous":true,"__proto__":{"x":1}}');
    const kept = withoutClientKeys(input, (key) => dropped.push(key)) as Record<string, unknown>;
    expect(dropped).toEqual(['wait_for_previous']);
    expect(Object.keys(kept)).toEqual(['file_path', '__proto__']);
    expect(Object.getPrototypeOf(kept)).toBeNull();
    const plain = { file_path: 'a' };
    expect(withoutClientKeys(plain, () => {})).toBe(plain);
    expect(withoutClientKeys('text', () => {})).toBe('text');
  });
});
