import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/workspace/lock.js';
import { fixtures, tempDir, transpileForChildren } from './helpers.js';

let dir: string;
let lockDir: string;
let compiled: Awaited<ReturnType<typeof transpileForChildren>>;
beforeAll(async () => {
  dir = await tempDir();
  lockDir = await tempDir('editgate-locks-test-');
  compiled = await transpileForChildren('src/workspace/lock.ts');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(lockDir, { recursive: true, force: true });
  await compiled.cleanup();
});

describe('withFileLock', () => {
  it('runs one holder at a time for one path', async () => {
    const file = join(dir, 'shared.txt');
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withFileLock(
          file,
          async () => {
            inside++;
            most = Math.max(most, inside);
            await new Promise((resolve) => setImmediate(resolve));
            inside--;
          },
          { dir: lockDir },
        ),
      ),
    );
    expect(most).toBe(1);
  });

  it('keeps its lock folders out of the workspace and removes them on release', async () => {
    const file = join(dir, 'quiet.txt');
    await writeFile(file, 'x');
    await withFileLock(
      file,
      async () => {
        expect(await readdir(dir)).not.toContain('quiet.txt.lock');
        expect((await readdir(lockDir)).filter((name) => name.endsWith('.lock'))).toHaveLength(1);
      },
      { dir: lockDir },
    );
    expect(await readdir(lockDir)).toEqual([]);
  });

  it('releases when the holder throws', async () => {
    const file = join(dir, 'throws.txt');
    await expect(
      withFileLock(
        file,
        async () => {
          throw new Error('boom');
        },
        { dir: lockDir },
      ),
    ).rejects.toThrow('boom');
    expect(await withFileLock(file, async () => 'again', { dir: lockDir })).toBe('again');
  });

  it('recovers a lock left by a SIGKILLed process (stale lock)', async () => {
    const file = join(dir, 'orphan.txt');
    const child = spawn(
      process.execPath,
      [join(fixtures, 'hold-lock-child.mjs'), compiled.src, file, lockDir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines = createInterface({ input: child.stdout! });
    const [first] = (await once(lines, 'line')) as [string];
    expect(first).toBe('locked');
    child.kill('SIGKILL');
    await once(child, 'exit');
    // The dead holder's lock folder is still there: nothing released it.
    expect((await readdir(lockDir)).filter((name) => name.endsWith('.lock'))).toHaveLength(1);
    // A new holder waits out the stale period (2 s here), then takes over.
    expect(await withFileLock(file, async () => 'taken over', { dir: lockDir, staleMs: 2000 })).toBe(
      'taken over',
    );
    expect(await readdir(lockDir)).toEqual([]);
  });

  it('says the lock was lost when another process took it over while it was held', async () => {
    const file = join(dir, 'taken.txt');
    const error = await withFileLock(
      file,
      async (lock) => {
        expect(lock.held).toBe(true);
        lock.assertHeld();
        // What a takeover looks like from here: the lock folder's mtime is no longer the one written.
        const [name] = (await readdir(lockDir)).filter((entry) => entry.endsWith('.lock'));
        await utimes(join(lockDir, name!), new Date(0), new Date(0));
        // proper-lockfile checks the mtime every staleMs / 2 (at least 1 s).
        for (let waited = 0; lock.held && waited < 5000; waited += 50) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(lock.held).toBe(false);
        try {
          lock.assertHeld();
        } catch (caught) {
          return caught;
        }
        return undefined;
      },
      { dir: lockDir, staleMs: 2000 },
    );
    expect(error).toMatchObject({ code: 'IO', details: { lock: true } });
    expect((error as Error).message).toMatch(/lock was lost while writing/);
  });

  it("hands out a lock that holds no closure over the holder's work", async () => {
    // A closure made inside withFileLock would keep `fn` (for an edit: its bytes and both texts) reachable
    // from the lock; measured, that promoted every edit's texts to the old generation (lock.ts, HeldLock).
    await withFileLock(
      join(dir, 'plain.txt'),
      async (lock) => {
        const own = Object.values(Object.getOwnPropertyDescriptors(lock));
        expect(own.some((field) => typeof field.value === 'function' || field.get || field.set)).toBe(false);
      },
      { dir: lockDir },
    );
  });
});
