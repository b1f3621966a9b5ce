import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import { commitText, readSnapshot } from '../../src/workspace/files.js';
import { History } from '../../src/workspace/history.js';
import { tempDir } from './helpers.js';

let dir: string;
let state: string;
beforeEach(async () => {
  dir = await tempDir();
  state = await tempDir('editgate-state-');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(state, { recursive: true, force: true });
});

/** What the gate does: write through editgate, then record how to go back. */
async function change(history: History, file: string, text: string) {
  const base = await readSnapshot(file);
  const before = base.exists ? await readFile(file) : null;
  const { fingerprint } = await commitText(base, text);
  await history.record(file, { before, after: fingerprint, tool: 'write_file' });
}

async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isEditgateError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('History', () => {
  it('several undos in a row walk back through the changes', async () => {
    const history = new History();
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\r\n');
    for (const v of ['v1\r\n', 'v2\r\n', 'v3\r\n']) await change(history, file, v);
    expect(await history.depth(file)).toBe(3);
    for (const v of ['v2\r\n', 'v1\r\n', 'v0\r\n']) {
      await history.undo(file);
      expect(await readFile(file, 'utf8')).toBe(v);
    }
    expect(await codeOf(history.undo(file))).toBe('NOTHING_TO_UNDO');
  });

  it('undo of a creation deletes the file', async () => {
    const history = new History();
    const file = join(dir, 'new.txt');
    await change(history, file, 'created\n');
    const { fingerprint, entry } = await history.undo(file, { display: 'new.txt' });
    expect(fingerprint).toBeNull();
    expect(entry.before).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  it('STALE when the file changed after editgate wrote it; nothing written, entry kept', async () => {
    const history = new History();
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\n');
    await change(history, file, 'v1\n');
    await writeFile(file, 'someone else\n');
    expect(await codeOf(history.undo(file, { display: 'f.txt' }))).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe('someone else\n');
    expect(await history.depth(file)).toBe(1);
    await rm(file);
    expect(await codeOf(history.undo(file))).toBe('STALE');
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps at most maxEntriesPerFile changes', async () => {
    const history = new History({ maxEntriesPerFile: 2 });
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\n');
    for (const v of ['v1\n', 'v2\n', 'v3\n']) await change(history, file, v);
    expect(await history.depth(file)).toBe(2);
    await history.undo(file);
    await history.undo(file);
    expect(await readFile(file, 'utf8')).toBe('v1\n');
    expect(await codeOf(history.undo(file))).toBe('NOTHING_TO_UNDO');
  });

  it('calls that are not awaited still run in order', async () => {
    const history = new History();
    const file = join(dir, 'f.txt');
    const after = { size: 1, mtimeMs: 1, hash: 'x' };
    void history.record(file, { before: Buffer.from('a'), after });
    void history.record(file, { before: Buffer.from('b'), after });
    void history.pop(file);
    expect((await history.peek(file))?.before?.toString()).toBe('a');
  });

  it('persisted history can be undone from a fresh instance, then leaves no files behind', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\n');
    const first = new History({ stateDir: state });
    await change(first, file, 'v1\n');
    await change(first, file, 'v2\n');
    const created = join(dir, 'sub', 'new.txt');
    await change(first, created, 'new\n');

    // Files are named by hash: no workspace path shows in the state folder.
    const stored = await readdir(join(state, 'history'));
    expect(stored.every((name) => /^[0-9a-f]{64}\./.test(name))).toBe(true);

    const second = new History({ stateDir: state });
    await second.undo(file);
    expect(await readFile(file, 'utf8')).toBe('v1\n');
    const third = new History({ stateDir: state });
    await third.undo(file);
    expect(await readFile(file, 'utf8')).toBe('v0\n');
    expect(await codeOf(third.undo(file))).toBe('NOTHING_TO_UNDO');
    await new History({ stateDir: state }).undo(created);
    expect(await readdir(join(dir, 'sub'))).toEqual([]);
    expect(await readdir(join(state, 'history'))).toEqual([]);
  });
});
