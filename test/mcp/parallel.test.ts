import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOW_ALL_CONFIG,
  applyArgs,
  type Connected,
  call,
  connectStdio,
  ensureBuilt,
  workspace,
} from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const N = 50;
const range = Array.from({ length: N }, (_, i) => i);

describe('50 tool calls in parallel', () => {
  it('on different files: every edit lands', async () => {
    const files = Object.fromEntries(range.map((i) => [`f${i}.txt`, `value ${i}\n`]));
    const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, ...files });
    session = await connectStdio([root, '--approve', 'policy']);
    const { client } = session;
    await Promise.all(range.map((i) => call(client, 'read_file', { file_path: `f${i}.txt` })));
    const results = await Promise.all(
      range.map((i) =>
        call(client, 'edit_file', {
          file_path: `f${i}.txt`,
          old_string: `value ${i}`,
          new_string: `VALUE ${i}`,
        }),
      ),
    );
    expect(results.filter((result) => result.isError).map((result) => result.text)).toEqual([]);
    for (const i of range) expect(readFileSync(join(root, `f${i}.txt`), 'utf8')).toBe(`VALUE ${i}\n`);
  });

  it('on the same file: the calls run one after the other, and every edit lands', async () => {
    const original = range.map((i) => `line ${i}`).join('\n') + '\n';
    const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, 'same.txt': original });
    session = await connectStdio([root, '--approve', 'policy']);
    const { client } = session;
    await call(client, 'read_file', { file_path: 'same.txt' });
    const results = await Promise.all(
      range.map((i) =>
        call(client, 'edit_file', {
          file_path: 'same.txt',
          old_string: `line ${i}\n`,
          new_string: `LINE ${i}\n`,
        }),
      ),
    );
    // Serialized per file inside execute: none is computed from a version another call replaced (no STALE).
    expect(results.filter((result) => result.isError).map((result) => result.text)).toEqual([]);
    for (const result of results) expect(result.structured?.details).toMatchObject({ written: true });
    const expected = range.map((i) => `LINE ${i}`).join('\n') + '\n';
    expect(readFileSync(join(root, 'same.txt'), 'utf8')).toBe(expected);

    // The server is still healthy and consistent: a fresh read sees exactly the file.
    const read = await call(client, 'read_file', { file_path: 'same.txt' });
    expect(read.structured?.details).toMatchObject({ lines: N, complete: true });
  });

  it('in preview mode on the same file: changes staged together apply at most once each, the rest STALE', async () => {
    const original = range.map((i) => `line ${i}`).join('\n') + '\n';
    const root = workspace({ 'same.txt': original });
    session = await connectStdio([root, '--approve', 'preview']);
    const { client } = session;
    await call(client, 'read_file', { file_path: 'same.txt' });
    const staged = await Promise.all(
      range.map((i) =>
        call(client, 'edit_file', {
          file_path: 'same.txt',
          old_string: `line ${i}\n`,
          new_string: `LINE ${i}\n`,
        }),
      ),
    );
    expect(staged.filter((result) => result.isError)).toEqual([]);
    const applied = await Promise.all(
      staged.map((result) => call(client, 'apply_change', applyArgs(result.structured?.details))),
    );
    // Every change was computed from the same original, so only one can apply; the others would undo it.
    const succeeded = range.filter((i) => !applied[i]!.isError);
    expect(succeeded).toHaveLength(1);
    for (const i of range) if (applied[i]!.isError) expect(applied[i]!.structured?.code).toBe('STALE');
    const winner = succeeded[0]!;
    expect(readFileSync(join(root, 'same.txt'), 'utf8')).toBe(
      original.replace(`line ${winner}\n`, `LINE ${winner}\n`),
    );
  });
});
