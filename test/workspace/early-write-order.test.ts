import { fstatSync, readFileSync, writeFileSync } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultCodec } from '../../src/core/text.js';
import { dropEarlyTemp, EarlyWrite } from '../../src/workspace/early-write.js';
import * as io from '../../src/workspace/io.js';
import { tempDir } from './helpers.js';

// The point of a head start is that its fsync runs beside the diff and the decision. The workspace makes the
// diff right after `new EarlyWrite(...)` returns, in the same turn of the event loop, so the fsync must have
// been started by then: any `await` before it (even on a finished write) would queue it behind the diff.
// A file of its own, beside early-write.test.ts: the mock of io.js below applies to every test in a file.

/** The size of each file at the moment its fsync was started. */
const sizesAtSync: number[] = [];

vi.mock('../../src/workspace/io.js', async (original) => {
  const actual = await original<typeof import('../../src/workspace/io.js')>();
  const syncFile = (fd: number) => {
    sizesAtSync.push(fstatSync(fd).size);
    return actual.syncFile(fd);
  };
  return { ...actual, syncFile: vi.fn(syncFile) };
});

const folders: string[] = [];
afterEach(async () => {
  sizesAtSync.length = 0;
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe('early write order', () => {
  it('has started the fsync when the constructor returns', async () => {
    const root = await realpath(await tempDir());
    folders.push(root);
    const path = join(root, 'a.txt');
    writeFileSync(path, 'alpha\n');
    const syncFile = vi.mocked(io.syncFile);
    syncFile.mockClear();
    const early = new EarlyWrite(path, 'beta\n'.repeat(20_000), defaultCodec(), { root, display: 'a.txt' });
    expect(syncFile).toHaveBeenCalledTimes(1);
    expect(sizesAtSync).toEqual([100_000]);
    await early.discard();
  });

  it('fsyncs a write of more than a megabyte (made in the thread pool) only once all of it is written', async () => {
    const root = await realpath(await tempDir());
    folders.push(root);
    const path = join(root, 'a.txt');
    writeFileSync(path, 'alpha\n');
    const big = 'x'.repeat(3 * 1024 * 1024 + 7);
    const early = new EarlyWrite(path, big, defaultCodec(), { root, display: 'a.txt' });
    const temp = await early.take();
    expect(temp).not.toBeNull();
    expect(sizesAtSync).toEqual([big.length]);
    expect(readFileSync(temp!.folder.entry(temp!.name), 'utf8')).toBe(big);
    dropEarlyTemp(temp!);
  });
});
