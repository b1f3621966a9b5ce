import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyArgs, type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

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
    expect(apply?.inputSchema.required).toEqual(['change_id', 'file_path', 'change_hash']);

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

    const applied = await call(client, 'apply_change', applyArgs(staged.structured?.details));
    expect(applied.isError).toBe(false);
    expect(applied.structured?.details).toMatchObject({ written: true, path: 'a.txt' });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');

    const twice = await call(client, 'apply_change', applyArgs(staged.structured?.details));
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
    const applied = await call(client, 'apply_change', applyArgs(staged.structured?.details));
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
    const expired = await call(client, 'apply_change', applyArgs(staged.structured?.details));
    expect(expired.structured?.code).toBe('EXPIRED');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
    const unknown = await call(client, 'apply_change', {
      ...applyArgs(staged.structured?.details),
      change_id: 'not-a-real-id',
    });
    expect(unknown.structured?.code).toBe('EXPIRED');
  });

  it('apply_change names the file and the change hash the person saw; a mismatch is refused (issue #13)', async () => {
    const { root, client } = await preview({ 'a.txt': 'one\n', 'b.txt': 'safe\n' });
    await call(client, 'read_file', { file_path: 'a.txt' });
    await call(client, 'read_file', { file_path: 'b.txt' });
    // The model shows the person one change and stages another.
    const shown = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: 'ONE',
    });
    const hidden = await call(client, 'edit_file', {
      file_path: 'b.txt',
      old_string: 'safe',
      new_string: 'PWNED',
    });
    const shownHash = shown.structured?.details.changeHash as string;
    const hiddenId = hidden.structured?.details.changeId as string;
    expect(shownHash).toMatch(/^[0-9a-f]{12}$/);
    expect(shown.text).toContain(`change_hash "${shownHash}"`);

    // A bare change_id says nothing the person can check: refused.
    const bare = await call(client, 'apply_change', { change_id: hiddenId });
    expect(bare.structured?.code).toBe('INVALID_INPUT');
    expect(bare.text).toMatch(/file_path/);
    // The file and hash of the change shown, with the id of the other: refused, nothing written.
    for (const args of [
      { change_id: hiddenId, file_path: 'a.txt', change_hash: shownHash },
      { change_id: hiddenId, file_path: 'b.txt', change_hash: shownHash },
    ]) {
      const mismatch = await call(client, 'apply_change', args);
      expect(mismatch.structured?.code).toBe('INVALID_INPUT');
      expect(mismatch.text).toContain('does not match');
    }
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('safe\n');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');

    // Named right, it writes.
    const applied = await call(client, 'apply_change', {
      change_id: shown.structured?.details.changeId,
      file_path: 'a.txt',
      change_hash: shownHash,
    });
    expect(applied.isError).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('ONE\n');
  });

  it('says so in the instructions and the tool descriptions', async () => {
    const { client } = await preview({}, ['--change-ttl', '5m']);
    expect(client.getInstructions()).toContain('Approval: preview (chosen with --approve preview)');
    expect(client.getInstructions()).toContain('about 5 minutes');
    // The change tools named from the tools' own list (#27), and the read rule the tools teach.
    expect(client.getInstructions()).toContain(
      'write_file, edit_file, multi_edit, edit_lines, apply_patch and undo_edit write nothing',
    );
    expect(client.getInstructions()).toContain(
      'Read the lines you will change with read_file before editing them',
    );
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'edit_file')?.description).toContain('apply_change');
  });
});
