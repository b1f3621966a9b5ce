// OS refusals map to clear codes with the original untouched and no temp file left. These need things a
// test cannot always have (a filesystem it may mount, an immutable flag); each case probes first and, when
// the machine does not allow it, skips with the reason printed.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import { readSnapshot } from '../../src/workspace/read.js';
import { commitText, isRoot, tempDir, tryRun } from './helpers.js';

function probeMount(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  const probe = execFileSync('mktemp', ['-d']).toString().trim();
  try {
    if (!tryRun('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]))
      return 'mount -t tmpfs is not permitted here';
    tryRun('umount', [probe]);
    return null;
  } finally {
    tryRun('rmdir', [probe]);
  }
}

function probeImmutable(): string | null {
  if (!isRoot) return null; // chmod is enough when permissions apply
  const probe = execFileSync('mktemp', ['-d']).toString().trim();
  try {
    if (!tryRun('chattr', ['+i', probe]))
      return 'running as root (permissions are bypassed) and chattr +i is not available here';
    tryRun('chattr', ['-i', probe]);
    return null;
  } finally {
    tryRun('rmdir', [probe]);
  }
}

const noMount = probeMount();
const noImmutable = probeImmutable();
if (noMount) console.log(`[files-errors] skipping read-only and disk-full tests: ${noMount}`);
if (noImmutable) console.log(`[files-errors] skipping the permission test: ${noImmutable}`);

let dir: string;
const mounts: string[] = [];
const immutables: string[] = [];
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  for (const path of immutables.splice(0)) tryRun('chattr', ['-i', path]);
  for (const path of mounts.splice(0)) tryRun('umount', [path]);
  await chmod(dir, 0o755).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

async function caught(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isEditgateError(error)) return error;
    throw error;
  }
  throw new Error('expected an EditgateError');
}

function mountTmpfs(path: string, options: string) {
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', path]);
  mounts.push(path);
}

/** Forbid changes to `folder`: chmod for a normal user; root ignores that, so the immutable flag. */
function forbid(folder: string) {
  if (isRoot) {
    execFileSync('chattr', ['+i', folder]);
    immutables.push(folder);
  } else {
    execFileSync('chmod', ['0555', folder]);
  }
}

describe('OS errors map to codes, original untouched', () => {
  it.skipIf(noImmutable !== null)('permission denied → PERMISSION', async () => {
    const folder = join(dir, 'locked');
    await mkdir(folder);
    const file = join(folder, 'f.txt');
    await writeFile(file, 'original\n');
    const snapshot = await readSnapshot(file, { display: 'locked/f.txt' });
    const missing = await readSnapshot(join(folder, 'new.txt'), { display: 'locked/new.txt' });
    forbid(folder);

    const error = await caught(commitText(snapshot, 'changed\n'));
    expect(error.code).toBe('PERMISSION');
    expect(error.message).toContain('locked/f.txt');
    expect(error.message).not.toContain(dir);
    expect((await caught(commitText(missing, 'new\n'))).code).toBe('PERMISSION');

    expect(await readFile(file, 'utf8')).toBe('original\n');
    expect(await readdir(folder)).toEqual(['f.txt']);
  });

  it.skipIf(noMount !== null)('read-only filesystem → READ_ONLY', async () => {
    const mount = join(dir, 'ro');
    await mkdir(mount);
    mountTmpfs(mount, 'size=1m');
    const file = join(mount, 'f.txt');
    await writeFile(file, 'original\n');
    const snapshot = await readSnapshot(file, { display: 'ro/f.txt' });
    execFileSync('mount', ['-o', 'remount,ro', mount]);

    const error = await caught(commitText(snapshot, 'changed\n'));
    expect(error.code).toBe('READ_ONLY');
    expect(error.message).toContain('ro/f.txt');
    expect(await readFile(file, 'utf8')).toBe('original\n');
    expect(await readdir(mount)).toEqual(['f.txt']);
  });

  it.skipIf(noMount !== null)('disk full → DISK_FULL, and the temp file is removed', async () => {
    const mount = join(dir, 'small');
    await mkdir(mount);
    mountTmpfs(mount, 'size=64k');
    const file = join(mount, 'f.txt');
    const original = `${'0123456789abcdef\n'.repeat(1000)}`; // ~17 KB
    await writeFile(file, original);
    const snapshot = await readSnapshot(file, { display: 'small/f.txt' });
    // Fill what is left.
    await writeFile(join(mount, 'filler'), Buffer.alloc(1 << 20)).catch((error) => {
      if (error.code !== 'ENOSPC') throw error;
    });

    const error = await caught(commitText(snapshot, original.replace('0123', 'ABCD')));
    expect(error.code).toBe('DISK_FULL');
    expect(error.message).toMatch(/disk is full.*free some space/i);
    expect(await readFile(file, 'utf8')).toBe(original);
    expect((await readdir(mount)).sort()).toEqual(['f.txt', 'filler']);
  });

  it('target is a folder → IS_DIRECTORY', async () => {
    await mkdir(join(dir, 'sub'));
    expect((await caught(readSnapshot(join(dir, 'sub'), { display: 'sub' }))).code).toBe('IS_DIRECTORY');
  });

  it('name too long → NAME_TOO_LONG', async () => {
    const long = join(dir, 'z'.repeat(256));
    expect((await caught(readSnapshot(long))).code).toBe('NAME_TOO_LONG');
    const snapshot = { ...(await readSnapshot(join(dir, 'short'))), path: long };
    expect((await caught(commitText(snapshot, 'x'))).code).toBe('NAME_TOO_LONG');
    expect(await readdir(dir)).toEqual([]);
  });
});
