import { chmod, chown, mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import { commitChange } from '../../src/workspace/commit.js';
import { sha256 } from '../../src/workspace/fingerprint.js';
import { readSnapshot, type Snapshot } from '../../src/workspace/read.js';
import { commitText, deleteFile, isRoot, tempDir } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
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

/** Everything in the folder except the named files: temp litter shows up here. */
async function litter(folder: string, ...expected: string[]) {
  return (await readdir(folder)).filter((name) => !expected.includes(name));
}

type Enc = (text: string) => Buffer;
const utf8: Enc = (t) => Buffer.from(t, 'utf8');
const utf16le: Enc = (t) => Buffer.from(t, 'utf16le');
const utf16be: Enc = (t) => Buffer.from(t, 'utf16le').swap16();
const latin1: Enc = (t) => Buffer.from(t, 'latin1');

interface Sample {
  name: string;
  bom: number[];
  enc: Enc;
  before: string;
  after: string;
  encoding?: string;
}

// Each sample is `before + MARK + after`; the edit replaces MARK, so every other byte must stay identical.
const MARK = 'MARK';
const samples: Sample[] = [
  { name: 'UTF-8', bom: [], enc: utf8, before: 'héllo wörld ✓\nline ', after: ' two\n' },
  { name: 'UTF-8 with BOM', bom: [0xef, 0xbb, 0xbf], enc: utf8, before: 'first\n', after: '\nlast ü\n' },
  { name: 'UTF-16 LE with BOM', bom: [0xff, 0xfe], enc: utf16le, before: 'a\r\nβ ', after: '\r\nc 😀\r\n' },
  { name: 'UTF-16 BE with BOM', bom: [0xfe, 0xff], enc: utf16be, before: 'a\nβ ', after: '\nc 😀\n' },
  {
    name: 'Latin-1 (explicit encoding)',
    bom: [],
    enc: latin1,
    before: 'caf\u00e9\nna\u00efve ',
    after: ' \u00bd\n',
    encoding: 'latin1',
  },
  { name: 'CRLF', bom: [], enc: utf8, before: 'a\r\nb ', after: '\r\nc\r\n' },
  { name: 'CR', bom: [], enc: utf8, before: 'a\rb ', after: '\rc\r' },
  { name: 'mixed line endings', bom: [], enc: utf8, before: 'a\r\nb\n', after: '\rc\r\nd\n' },
  { name: 'no final newline', bom: [], enc: utf8, before: 'a\nb ', after: ' c' },
];

describe('round trips, byte for byte', () => {
  for (const sample of samples) {
    const bytes = (text: string) => Buffer.concat([Buffer.from(sample.bom), sample.enc(text)]);
    const original = bytes(sample.before + MARK + sample.after);
    const options = sample.encoding ? { encoding: sample.encoding } : {};

    it(`${sample.name}: unchanged text writes the same bytes`, async () => {
      const file = join(dir, 'f.txt');
      await writeFile(file, original);
      const snapshot = await readSnapshot(file, options);
      expect(snapshot.text).toBe(sample.before + MARK + sample.after);
      await commitText(snapshot, snapshot.text);
      expect((await readFile(file)).equals(original)).toBe(true);
    });

    it(`${sample.name}: an edit changes only its own bytes`, async () => {
      const file = join(dir, 'f.txt');
      await writeFile(file, original);
      const snapshot = await readSnapshot(file, options);
      // Latin-1 cannot hold ✎; the others get a non-ASCII character in the edit too.
      const replacement = sample.encoding ? 'EDITED \u00e6' : 'EDITED ✎';
      const result = await commitText(snapshot, snapshot.text.replace(MARK, replacement));
      const expected = Buffer.concat([
        Buffer.from(sample.bom),
        sample.enc(sample.before),
        sample.enc(replacement),
        sample.enc(sample.after),
      ]);
      const written = await readFile(file);
      expect(written.equals(expected)).toBe(true);
      expect(result.fingerprint?.hash).toBe(sha256(written));
      expect(result.fingerprint?.size).toBe(written.length);
      expect(await litter(dir, 'f.txt')).toEqual([]);
    });
  }

  it('empty file: stays empty, and an edit writes exactly the new text', async () => {
    const file = join(dir, 'empty.txt');
    await writeFile(file, '');
    const snapshot = await readSnapshot(file);
    expect(snapshot).toMatchObject({ exists: true, text: '' });
    await commitText(snapshot, '');
    expect((await readFile(file)).length).toBe(0);
    await commitText(await readSnapshot(file), 'x\n');
    expect(await readFile(file, 'utf8')).toBe('x\n');
  });

  for (const mode of [0o755, 0o600, 0o640]) {
    it(`keeps file mode ${mode.toString(8)}`, async () => {
      const file = join(dir, 'script.sh');
      await writeFile(file, '#!/bin/sh\necho hi\n');
      await chmod(file, mode);
      const snapshot = await readSnapshot(file);
      expect(snapshot.mode).toBe(mode);
      await commitText(snapshot, '#!/bin/sh\necho bye\n');
      expect((await stat(file)).mode & 0o7777).toBe(mode);
    });
  }

  it.skipIf(!isRoot)('keeps owner and group when running as root', async () => {
    const file = join(dir, 'owned.txt');
    await writeFile(file, 'a\n');
    await chown(file, 4321, 4322);
    await commitText(await readSnapshot(file), 'b\n');
    const info = await stat(file);
    expect([info.uid, info.gid]).toEqual([4321, 4322]);
  });
});

describe('readSnapshot', () => {
  it('a missing file is an empty snapshot with the default codec', async () => {
    const snapshot = await readSnapshot(join(dir, 'nope.txt'));
    expect(snapshot).toMatchObject({ exists: false, text: '', mode: null, fingerprint: null });
    expect(snapshot.codec).toMatchObject({ encoding: 'utf8', bom: false, eol: '\n' });
  });

  it('fingerprints size, mtime and sha256', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'abc\n');
    const snapshot = await readSnapshot(file);
    const info = await stat(file);
    const big = await stat(file, { bigint: true });
    expect(snapshot.fingerprint).toEqual({
      size: 4,
      mtimeMs: info.mtimeMs,
      hash: sha256(Buffer.from('abc\n')),
      stat: `stat1:${big.dev}:${big.ino}:4:${big.mtimeNs}:${big.ctimeNs}`,
    });
    expect((await readSnapshot(file)).fingerprint).toEqual(snapshot.fingerprint);
    expect((await readSnapshot(join(dir, 'missing'))).fingerprint).toBeNull();
  });

  it('binary content passes through as BINARY', async () => {
    const file = join(dir, 'blob.bin');
    await writeFile(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2, 3]));
    expect((await caught(readSnapshot(file))).code).toBe('BINARY');
  });

  it('a folder is IS_DIRECTORY', async () => {
    const error = await caught(readSnapshot(dir, { display: 'src' }));
    expect(error.code).toBe('IS_DIRECTORY');
    expect(error.message).toContain('src');
    expect(error.message).not.toContain(dir);
  });

  it('a name too long is NAME_TOO_LONG, without the absolute path in the message', async () => {
    const error = await caught(readSnapshot(join(dir, 'x'.repeat(300))));
    expect(error.code).toBe('NAME_TOO_LONG');
    expect(error.message).not.toContain(dir);
  });
});

describe('stale detection', () => {
  it('a file changed between snapshot and commit is not overwritten', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'one\ntwo\n');
    const snapshot = await readSnapshot(file, { display: 'f.txt' });
    await writeFile(file, 'one\nTWO (someone else)\n');
    const error = await caught(commitText(snapshot, 'one\ntwo edited\n'));
    expect(error.code).toBe('STALE');
    expect(error.message).toMatch(/f\.txt.*read it again/i);
    expect(await readFile(file, 'utf8')).toBe('one\nTWO (someone else)\n');
    expect(await litter(dir, 'f.txt')).toEqual([]);
  });

  it('a change of the same size is caught by the hash', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'aaaa\n');
    const snapshot = await readSnapshot(file);
    const { mtime } = await stat(file);
    await writeFile(file, 'bbbb\n');
    await utimes(file, mtime, mtime); // same size, same mtime: only the content hash can tell
    expect((await caught(commitText(snapshot, 'cccc\n'))).code).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe('bbbb\n');
  });

  it('an mtime-only touch is not stale', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'same\n');
    const snapshot = await readSnapshot(file);
    const later = new Date(Date.now() + 60_000);
    await utimes(file, later, later);
    await commitText(snapshot, 'changed\n');
    expect(await readFile(file, 'utf8')).toBe('changed\n');
  });

  it('a file deleted since the snapshot is STALE and not recreated', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'x\n');
    const snapshot = await readSnapshot(file);
    await rm(file);
    expect((await caught(commitText(snapshot, 'y\n'))).code).toBe('STALE');
    expect(await readdir(dir)).toEqual([]);
  });

  it('a new file that appeared meanwhile is not overwritten', async () => {
    const file = join(dir, 'new.txt');
    const snapshot = await readSnapshot(file);
    await writeFile(file, 'theirs\n');
    const error = await caught(commitText(snapshot, 'mine\n'));
    expect(error.code).toBe('STALE');
    expect(error.details.reason).toBe('created');
    expect(await readFile(file, 'utf8')).toBe('theirs\n');
    expect(await litter(dir, 'new.txt')).toEqual([]);
  });

  it('a new file appearing after the check is still not overwritten (link, not rename)', async () => {
    const file = join(dir, 'new.txt');
    const snapshot = await readSnapshot(file);
    // verify() runs after the check and before the link: the racing writer lands in that window.
    const error = await caught(commitText(snapshot, 'mine\n', { verify: () => writeFile(file, 'theirs\n') }));
    expect(error.code).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe('theirs\n');
    expect(await litter(dir, 'new.txt')).toEqual([]);
  });
});

describe('commit', () => {
  it('under the lock, a file the stat token calls unchanged is still compared byte for byte', async () => {
    // What a coarse clock on an older kernel could hide: the same size and the same stat token, other bytes
    // far from the edit. Simulated with a base whose bytes differ from the file's while its token is the file's.
    const file = join(dir, 'f.txt');
    const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')}`).join('\n');
    await writeFile(file, `${lines}\n`);
    const snapshot = await readSnapshot(file);
    const seen = snapshot.text.replace('line 099', 'LINE 099');
    const base = { ...snapshot, text: seen, bytes: Buffer.from(seen) };
    const error = await caught(commitText(base, seen.replace('line 000', 'edited')));
    expect(error.code).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe(`${lines}\n`);
  });

  it('creates a new file and its missing folders', async () => {
    const file = join(dir, 'a/b/c/new.txt');
    const snapshot = await readSnapshot(file);
    const { fingerprint } = await commitText(snapshot, 'hello\n');
    expect(await readFile(file, 'utf8')).toBe('hello\n');
    expect((await readSnapshot(file)).fingerprint).toEqual(fingerprint);
    expect(await litter(join(dir, 'a/b/c'), 'new.txt')).toEqual([]);
  });

  it('a refused verify() writes nothing and removes the folders it created', async () => {
    const file = join(dir, 'a/b/new.txt');
    const snapshot = await readSnapshot(file);
    const refusal = new Error('guard says no');
    await expect(
      commitText(snapshot, 'x', {
        verify: async () => {
          throw refusal;
        },
      }),
    ).rejects.toThrow();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a refused verify() leaves an existing file and no temp file', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'keep\n');
    const snapshot = await readSnapshot(file);
    const error = await caught(
      commitText(snapshot, 'lose\n', {
        verify: async () => {
          const { EditgateError } = await import('../../src/core/errors.js');
          throw new EditgateError('OUTSIDE_ROOT', 'moved');
        },
      }),
    );
    expect(error.code).toBe('OUTSIDE_ROOT');
    expect(await readFile(file, 'utf8')).toBe('keep\n');
    expect(await litter(dir, 'f.txt')).toEqual([]);
  });

  it('two edits in a row, each from the fingerprint the last one returned', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v1\n');
    const first = await readSnapshot(file);
    const { fingerprint } = await commitText(first, 'v2\n');
    await commitText({ ...first, text: 'v2\n', bytes: Buffer.from('v2\n'), fingerprint }, 'v3\n');
    expect(await readFile(file, 'utf8')).toBe('v3\n');
  });

  it('a new file with a name too long is NAME_TOO_LONG and leaves nothing behind', async () => {
    const file = join(dir, `${'n'.repeat(300)}.txt`);
    const error = await caught(
      commitText(await readSnapshot(join(dir, 'ok.txt')).then((s: Snapshot) => ({ ...s, path: file })), 'x'),
    );
    expect(error.code).toBe('NAME_TOO_LONG');
    expect(await readdir(dir)).toEqual([]);
  });

  it('a name near the limit still works: the temp name is shortened, not the target', async () => {
    const file = join(dir, `${'é'.repeat(120)}.md`); // 244 bytes: fits, but not with a suffix added
    await commitText(await readSnapshot(file), 'long\n');
    expect(await readFile(file, 'utf8')).toBe('long\n');
    await commitText(await readSnapshot(file), 'longer\n');
    expect(await readdir(dir)).toEqual([`${'é'.repeat(120)}.md`]);
  });

  it('a target that became a folder is IS_DIRECTORY', async () => {
    const file = join(dir, 'f');
    await writeFile(file, 'x\n');
    const snapshot = await readSnapshot(file, { display: 'f' });
    await rm(file);
    await mkdir(file);
    expect((await caught(commitText(snapshot, 'y\n'))).code).toBe('IS_DIRECTORY');
  });
});

describe('deleteFile', () => {
  it('deletes a file that is still as snapshotted', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'x\n');
    await deleteFile(await readSnapshot(file));
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses with STALE when it changed', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'x\n');
    const snapshot = await readSnapshot(file);
    await writeFile(file, 'y\n');
    expect((await caught(deleteFile(snapshot))).code).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe('y\n');
  });
});

describe('exact bytes (what a shell command replaced, put back)', () => {
  const base = (file: string, bytes: Buffer) => ({
    path: file,
    exists: true,
    fingerprint: { size: bytes.length, mtimeMs: 0, hash: sha256(bytes) },
    display: 'f.bin',
  });

  it('writes the bytes as they are, even ones no text codec would round-trip', async () => {
    const file = join(dir, 'f.bin');
    const now = Buffer.from([0x00, 0xff, 0xfe, 0x0d, 0x0a, 0x80]);
    await writeFile(file, now);
    const before = Buffer.from([0xc3, 0x28, 0x00, 0x0d]);
    const written = await commitChange(base(file, now), { type: 'bytes', bytes: before });
    expect(await readFile(file)).toEqual(before);
    expect(written.fingerprint?.hash).toBe(sha256(before));
    expect(await litter(dir, 'f.bin')).toEqual([]);
  });

  it('refuses (STALE) when the file is no longer what the base says, and writes nothing', async () => {
    const file = join(dir, 'f.bin');
    await writeFile(file, 'as the command left it\n');
    const stale = base(file, Buffer.from('as the command left it\n'));
    await writeFile(file, 'changed again by hand\n');
    const error = await caught(commitChange(stale, { type: 'bytes', bytes: Buffer.from('original\n') }));
    expect(error.code).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe('changed again by hand\n');
    expect(await litter(dir, 'f.bin')).toEqual([]);
  });
});
