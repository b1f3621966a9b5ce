import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/tools/index.js';
import { defaultPatchDir, PatchWriter } from '../../src/workspace/reverse-patch.js';
import { tempFolder } from '../temp-folder.js';

/** Another local user: the tests run as root (as CI does), so they can give a folder away with chown. */
const OTHER_UID = 12345;

/**
 * Issue #13, item 4: the undo folder lives in the shared temp folder (editgate-undo-<uid>). Another user
 * who makes it first must not get editgate's undo patches written into a folder they control.
 */
describe('the undo folder in the shared temp folder (issue #13)', () => {
  const base = () => tempFolder('editgate-undo-test-');

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

  it('refuses a folder another user made first (their uid, mode 0700), whatever its mode', async () => {
    const theirs = join(base(), 'editgate-undo');
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, OTHER_UID, OTHER_UID);
    expect(lstatSync(theirs).uid).toBe(OTHER_UID);
    await expect(PatchWriter.create(theirs)).rejects.toThrow(/another user may have made it/);
    expect(readdirSync(theirs)).toEqual([]);

    // World-writable with the sticky bit, as /tmp itself is: still another user's, still refused.
    const sticky = join(base(), 'editgate-undo');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    chownSync(sticky, OTHER_UID, OTHER_UID);
    await expect(PatchWriter.create(sticky)).rejects.toMatchObject({ code: 'IO' });
    expect(readdirSync(sticky)).toEqual([]);
  });

  it("an edit whose undo would go into another user's folder is refused: nothing written, nothing left there", async () => {
    // The shared temp folder, as another user leaves it: editgate-undo-<our uid> made first, and theirs.
    const shared = base();
    const root = join(base(), 'root');
    mkdirSync(root);
    const text = `${'x\n'.repeat(2000)}target\n`;
    writeFileSync(join(root, 'big.txt'), text);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = shared;
    try {
      const undo = defaultPatchDir();
      expect(undo.startsWith(shared)).toBe(true);
      mkdirSync(undo, { mode: 0o777 });
      chmodSync(undo, 0o777);
      chownSync(undo, OTHER_UID, OTHER_UID);
      // A file this size is streamed (streamThreshold), and its undo patch goes to the undo folder.
      const tools = createEditTools({ root, approve: () => 'once', streamThreshold: 1000 });
      expect((await tools.execute('read_file', { file_path: 'big.txt' })).ok).toBe(true);
      const edit = await tools.execute('edit_file', {
        file_path: 'big.txt',
        old_string: 'target',
        new_string: 'changed',
      });
      expect(edit).toMatchObject({ ok: false, code: 'IO' });
      expect(edit.message).toContain('another user may have made it');
      expect(readFileSync(join(root, 'big.txt'), 'utf8')).toBe(text);
      expect(readdirSync(undo)).toEqual([]);
      // No history to undo from their folder either.
      expect(await tools.execute('undo_edit', { file_path: 'big.txt' })).toMatchObject({
        ok: false,
        code: 'NOTHING_TO_UNDO',
      });
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });
});
