import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PatchWriter } from '../../src/workspace/reverse-patch.js';

/**
 * Issue #13, item 4: the undo folder lives in the shared temp folder (editgate-undo-<uid>). Another user
 * who makes it first must not get editgate's undo patches written into a folder they control.
 */
describe('the undo folder in the shared temp folder (issue #13)', () => {
  const base = () => mkdtempSync(join(tmpdir(), 'editgate-undo-test-'));

  it('refuses a folder others can write, and a link planted in its place; nothing is written there', async () => {
    const open = join(base(), 'editgate-undo');
    mkdirSync(open);
    chmodSync(open, 0o777);
    await expect(PatchWriter.create(open)).rejects.toMatchObject({ code: 'IO' });
    expect(readdirSync(open)).toEqual([]);

    const elsewhere = join(base(), 'theirs');
    mkdirSync(elsewhere, { mode: 0o700 });
    const link = join(base(), 'editgate-undo');
    symlinkSync(elsewhere, link);
    await expect(PatchWriter.create(link)).rejects.toThrow(/not a folder of this user's/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('makes its own folder private (0700) and writes there', async () => {
    const mine = join(base(), 'editgate-undo');
    const writer = await PatchWriter.create(mine);
    await writer.finish();
    expect(existsSync(mine)).toBe(true);
    expect(readdirSync(mine)).toHaveLength(1);
  });
});
