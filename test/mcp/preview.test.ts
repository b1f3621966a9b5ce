import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

async function preview(files: Record<string, string>, args: string[] = []) {
  const root = workspace(files);
  session = await connectStdio([root, '--approve', 'preview', ...args]);
  return { root, client: session.client };
}

describe('preview mode', () => {
  it('a change writes nothing and returns the diff and a change_id; apply_change writes it once', async () => {
    const { root, client } = await preview({ 'a.txt': 'one\ntwo\n' });
    const { tools } = await client.listTools();
    const apply = tools.find((tool) => tool.name === 'apply_change');
    expect(apply?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    });
    expect(apply?.inputSchema.required).toEqual(['change_id']);

    await call(client, 'read_file', { file_path: 'a.txt' });
    const staged = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'two',
      new_string: 'TWO',
    });
    expect(staged.isError).toBe(false);
    expect(staged.text).toContain('NOT yet written');
    expect(staged.text).toContain('+TWO');
    const changeId = staged.structured?.details.changeId as string;
    expect(changeId).toBeTruthy();
    expect(staged.structured?.details).toMatchObject({ written: false });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');

    const applied = await call(client, 'apply_change', { change_id: changeId });
    expect(applied.isError).toBe(false);
    expect(applied.structured?.details).toMatchObject({ written: true, path: 'a.txt' });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');

    const twice = await call(client, 'apply_change', { change_id: changeId });
    expect(twice.isError).toBe(true);
    expect(twice.text).toContain('only once');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
  });

  it('refuses with STALE when the file changed after the diff was made; nothing written', async () => {
    const { root, client } = await preview({ 'a.txt': 'one\n' });
    await call(client, 'read_file', { file_path: 'a.txt' });
    const staged = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: 'ONE',
    });
    writeFileSync(join(root, 'a.txt'), 'someone else\n');
    const applied = await call(client, 'apply_change', { change_id: staged.structured?.details.changeId });
    expect(applied.structured?.code).toBe('STALE');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('someone else\n');
  });

  it('refuses an expired change_id (--change-ttl) and an unknown one', async () => {
    const { root, client } = await preview({ 'a.txt': 'one\n' }, ['--change-ttl', '1ms']);
    await call(client, 'read_file', { file_path: 'a.txt' });
    const staged = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: 'ONE',
    });
    // A round trip to the server takes longer than 1 ms, so the id has expired by the time it is used.
    await call(client, 'read_file', { file_path: 'a.txt' });
    const expired = await call(client, 'apply_change', { change_id: staged.structured?.details.changeId });
    expect(expired.structured?.code).toBe('EXPIRED');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
    const unknown = await call(client, 'apply_change', { change_id: 'not-a-real-id' });
    expect(unknown.structured?.code).toBe('EXPIRED');
  });

  it('says so in the instructions and the tool descriptions', async () => {
    const { client } = await preview({}, ['--change-ttl', '5m']);
    expect(client.getInstructions()).toContain('Approval: preview (chosen with --approve preview)');
    expect(client.getInstructions()).toContain('about 5 minutes');
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'edit_file')?.description).toContain('apply_change');
  });
});
