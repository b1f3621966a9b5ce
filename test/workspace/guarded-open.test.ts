/**
 * Guarded opens (issue #13, item 2), one swap at a time: whatever is changed on the checked path between
 * the guard's check and the open (a folder swapped for a link to outside, the file swapped for a link, the
 * folder moved out of the root before the rename), nothing outside is read, written or left behind. The
 * racing version, with a real flipping process over every tool, is test/tools/flipping-folder.test.ts.
 */
import { mkdir, readdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import { Guard } from '../../src/workspace/guard.js';
import { openGuarded, pinFolder } from '../../src/workspace/guarded-open.js';
import { History } from '../../src/workspace/history.js';
import { O_READ } from '../../src/workspace/io.js';
import { readSnapshot } from '../../src/workspace/read.js';
import { Streamer } from '../../src/workspace/stream/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { commitText, tempDir } from './helpers.js';

let base: string;
let root: string;
let outside: string;
let guard: Guard;

beforeEach(async () => {
  base = await realpath(await tempDir('editgate-guarded-'));
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'sub', 'a.txt'), 'inside\n');
  await writeFile(join(outside, 'a.txt'), 'SECRET outside\n');
  guard = await Guard.create({ roots: [root] });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** The folder `sub` becomes a link to outside (the real one kept aside), as a racing process would do. */
async function swapSubForLink(): Promise<void> {
  await rename(join(root, 'sub'), join(root, 'sub-real'));
  await symlink(outside, join(root, 'sub'));
}

async function outsideUntouched(): Promise<void> {
  expect(await readdir(outside)).toEqual(['a.txt']);
  expect(await readFile(join(outside, 'a.txt'), 'utf8')).toBe('SECRET outside\n');
}

function changedOnTheWay(error: unknown): boolean {
  return isEditgateError(error) && error.code === 'OUTSIDE_ROOT' && error.details.reason === 'changed';
}

describe('reading a file the guard checked', () => {
  it('refuses when a folder on the way became a link to outside after the check', async () => {
    const resolved = await guard.resolve('sub/a.txt');
    await swapSubForLink();
    const read = readSnapshot(resolved.absolute, { root: resolved.root, identity: resolved.identity });
    await expect(read).rejects.toSatisfy(changedOnTheWay);
    await expect(read).rejects.toThrow(/changed after it was checked/);
  });

  it('refuses when the file itself became a link, and when it is another file than the one checked', async () => {
    const resolved = await guard.resolve('sub/a.txt');
    await rm(join(root, 'sub', 'a.txt'));
    await symlink(join(outside, 'a.txt'), join(root, 'sub', 'a.txt'));
    await expect(readSnapshot(resolved.absolute, { root: resolved.root })).rejects.toSatisfy(changedOnTheWay);
    await rm(join(root, 'sub', 'a.txt'));
    // Made while the first still exists, so it cannot get the same inode number.
    await writeFile(join(root, 'sub', 'a.txt'), 'the checked file\n');
    const checked = await guard.resolve('sub/a.txt');
    await writeFile(join(root, 'sub', 'other.txt'), 'another file\n');
    await rename(join(root, 'sub', 'other.txt'), join(root, 'sub', 'a.txt'));
    await expect(
      readSnapshot(checked.absolute, { root: checked.root, identity: checked.identity }),
    ).rejects.toSatisfy(changedOnTheWay);
  });

  it('reads the new version of a file an editor replaced after the check (the path is checked again)', async () => {
    const workspace = new Workspace({ guard, history: new History(), streamer: new Streamer() });
    const resolved = await guard.resolve('sub/a.txt');
    await writeFile(join(root, 'sub', 'a.new'), 'saved by an editor\n');
    await rename(join(root, 'sub', 'a.new'), join(root, 'sub', 'a.txt'));
    const opened = await workspace.open(resolved);
    expect(opened.kind === 'memory' && opened.snapshot.text).toBe('saved by an editor\n');
    // ...but not one behind a link to outside: the second check refuses the link itself.
    const again = await guard.resolve('sub/a.txt');
    await swapSubForLink();
    await expect(workspace.open(again)).rejects.toMatchObject({ code: 'OUTSIDE_ROOT' });
  });

  it('refuses a streamed (huge) file behind a swapped folder', async () => {
    await writeFile(join(root, 'sub', 'big.txt'), 'x\n'.repeat(4096));
    await writeFile(join(outside, 'big.txt'), 'SECRET\n'.repeat(4096));
    const resolved = await guard.resolve('sub/big.txt');
    await swapSubForLink();
    const streamer = new Streamer({ threshold: 1024 });
    await expect(
      streamer.open(resolved.absolute, resolved.relative, { root: resolved.root }),
    ).rejects.toSatisfy(changedOnTheWay);
  });
});

describe('writing a file the guard checked', () => {
  it('refuses to commit through a folder that became a link to outside: nothing written, no temp file', async () => {
    const resolved = await guard.resolve('sub/a.txt');
    const snapshot = await readSnapshot(resolved.absolute, {
      root: resolved.root,
      identity: resolved.identity,
    });
    await writeFile(join(outside, 'a.txt'), 'inside\n'); // the same bytes, so only the place can tell
    await swapSubForLink();
    await expect(commitText(snapshot, 'changed\n')).rejects.toSatisfy(changedOnTheWay);
    expect(await readdir(outside)).toEqual(['a.txt']);
    expect(await readFile(join(outside, 'a.txt'), 'utf8')).toBe('inside\n');
    expect(await readdir(join(root, 'sub-real'))).toEqual(['a.txt']);
  });

  it('refuses to create a file under a folder that became a link, making no folder outside', async () => {
    const resolved = await guard.resolve('sub/new/deep/file.txt');
    const snapshot = await readSnapshot(resolved.absolute, { root: resolved.root });
    await swapSubForLink();
    await expect(commitText(snapshot, 'new\n')).rejects.toSatisfy(changedOnTheWay);
    await outsideUntouched();
  });

  it('creates missing folders through the pinned ones, and removes them again when the commit fails', async () => {
    const resolved = await guard.resolve('sub/x/y/file.txt');
    const snapshot = await readSnapshot(resolved.absolute, { root: resolved.root });
    await commitText(snapshot, 'made\n');
    expect(await readFile(join(root, 'sub', 'x', 'y', 'file.txt'), 'utf8')).toBe('made\n');
    const other = await guard.resolve('sub/p/q/file.txt');
    const refused = await readSnapshot(other.absolute, { root: other.root });
    const verify = async () => {
      throw new Error('refused at the last moment');
    };
    await expect(commitText(refused, 'never\n', { verify })).rejects.toThrow();
    expect((await readdir(join(root, 'sub'))).sort()).toEqual(['a.txt', 'x']);
  });

  it('does not write into a folder moved out of the root after it was pinned', async () => {
    const resolved = await guard.resolve('sub/a.txt');
    const snapshot = await readSnapshot(resolved.absolute, {
      root: resolved.root,
      identity: resolved.identity,
    });
    // Runs under the lock right before the rename, after the temp file was made in the pinned folder.
    const verify = async () => {
      await rename(join(root, 'sub'), join(outside, 'moved'));
      await mkdir(join(root, 'sub'));
    };
    await expect(commitText(snapshot, 'changed\n', { verify })).rejects.toSatisfy(changedOnTheWay);
    expect(await readdir(join(outside, 'moved'))).toEqual(['a.txt']);
    expect(await readFile(join(outside, 'moved', 'a.txt'), 'utf8')).toBe('inside\n');
    expect(await readdir(join(root, 'sub'))).toEqual([]);
  });
});

describe('deleting a file the guard checked (#27: deletes and moves go through the root too)', () => {
  /** The outside file holds the inside bytes, so the stale check passes and only the place can tell. */
  async function sameBytesOutside(name: string, text: string): Promise<void> {
    await writeFile(join(outside, name), text);
  }

  it('refuses to delete through a folder that became a link to outside after the deletion was computed', async () => {
    const workspace = new Workspace({ guard, history: new History(), streamer: new Streamer() });
    await sameBytesOutside('a.txt', 'inside\n');
    const change = await workspace.remove(await guard.resolve('sub/a.txt'), { requireRead: false });
    expect(change.base.root).toBe(await realpath(root));
    await swapSubForLink();
    await expect(workspace.commit(change)).rejects.toSatisfy(changedOnTheWay);
    expect(await readdir(outside)).toEqual(['a.txt']);
    expect(await readFile(join(outside, 'a.txt'), 'utf8')).toBe('inside\n');
    expect(await readdir(join(root, 'sub-real'))).toEqual(['a.txt']);
  });

  it('refuses a huge file the same way (the streamed deletion)', async () => {
    const big = 'x\n'.repeat(4096);
    await writeFile(join(root, 'sub', 'big.txt'), big);
    await sameBytesOutside('big.txt', big);
    const workspace = new Workspace({
      guard,
      history: new History(),
      streamer: new Streamer({ threshold: 1024 }),
    });
    const change = await workspace.remove(await guard.resolve('sub/big.txt'), { requireRead: false });
    expect(change.texts).toBeUndefined(); // it took the streamed path
    await swapSubForLink();
    await expect(workspace.commit(change)).rejects.toSatisfy(changedOnTheWay);
    expect((await readdir(outside)).sort()).toEqual(['a.txt', 'big.txt']);
    await workspace.discard(change);
  });

  it('refuses to read for a deletion through a folder swapped after the check (checked again, then refused)', async () => {
    const workspace = new Workspace({ guard, history: new History(), streamer: new Streamer() });
    const resolved = await guard.resolve('sub/a.txt');
    await swapSubForLink();
    await expect(workspace.remove(resolved, { requireRead: false })).rejects.toMatchObject({
      code: 'OUTSIDE_ROOT',
    });
    await outsideUntouched();
  });
});

describe('pinFolder and openGuarded', () => {
  it('walk from the root without following a link, and say null for what does not exist', async () => {
    const place = { root, display: 'sub/a.txt' };
    const pinned = pinFolder(join(root, 'sub'), place);
    expect(pinned).not.toBeNull();
    pinned!.folder.close();
    expect(pinFolder(join(root, 'missing', 'deeper'), place)).toBeNull();
    expect(openGuarded(join(root, 'sub', 'missing.txt'), O_READ, place)).toBeNull();
    await writeFile(join(root, 'plain'), 'a file where a folder is expected\n');
    expect(() => pinFolder(join(root, 'plain', 'x'), place)).toThrow(/changed after it was checked/);
    await symlink(join(root, 'sub'), join(root, 'inner-link'));
    // Even a link that stays inside: the guard resolves links, so a canonical path never goes through one.
    expect(() => pinFolder(join(root, 'inner-link'), place)).toThrow(/changed after it was checked/);
  });
});
