import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyArgs, type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

// Reads and pending changes belong to one MCP session. A client that connects anew for each call (the MCP
// Inspector's CLI does) loses them between calls; the refusals must say so, or the read that was made
// looks ignored and the change_id just given looks lost.

beforeAll(ensureBuilt, 120_000);

const open: Connected[] = [];
afterEach(async () => {
  for (const session of open.splice(0)) await session.close();
});

async function connect(root: string, args: string[] = []) {
  const session = await connectStdio([root, ...args]);
  open.push(session);
  return session.client;
}

describe('a session per call', () => {
  it('read in one connection, edit in the next: NOT_READ says reads belong to the session', async () => {
    const root = workspace({ 'a.txt': 'one\n' });
    expect(
      (await call(await connect(root, ['--approve', 'policy']), 'read_file', { file_path: 'a.txt' })).isError,
    ).toBe(false);
    const edit = await call(await connect(root, ['--approve', 'policy']), 'edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: 'ONE',
    });
    expect(edit.structured?.code).toBe('NOT_READ');
    expect(edit.text).toContain('Nothing has been read in this session yet');
    expect(edit.text).toContain('one client connection');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('once something was read in the session, NOT_READ for another file says nothing about sessions', async () => {
    const root = workspace({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const client = await connect(root, ['--approve', 'policy']);
    await call(client, 'read_file', { file_path: 'a.txt' });
    const edit = await call(client, 'edit_file', {
      file_path: 'b.txt',
      old_string: 'two',
      new_string: 'TWO',
    });
    expect(edit.structured?.code).toBe('NOT_READ');
    expect(edit.text).not.toContain('session');
  });

  it('a change proposed in one connection, applied in the next: the refusal says change_ids belong to the session', async () => {
    const root = workspace({ 'a.txt': 'one\n' });
    const first = await connect(root, ['--approve', 'preview']);
    await call(first, 'read_file', { file_path: 'a.txt' });
    const staged = await call(first, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: 'ONE',
    });
    expect(staged.isError).toBe(false);
    const applied = await call(
      await connect(root, ['--approve', 'preview']),
      'apply_change',
      applyArgs(staged.structured?.details),
    );
    expect(applied.structured?.code).toBe('EXPIRED');
    expect(applied.text).toContain('belongs to the session that proposed it');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });
});
