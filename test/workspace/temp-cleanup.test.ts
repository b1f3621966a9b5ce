/**
 * Issue #13, item 4: a streamed edit killed or interrupted leaves no full-size temp copy behind (nor does a
 * small file's edit written ahead while it is decided on, #12). A real
 * child process (fixtures/stream-child.mjs, the built library with the CLI's signal cleanup) is killed
 * while it writes the temp file, and while the finished temp file waits for approval: SIGINT and SIGTERM
 * remove it before the process ends by that signal; after a SIGKILL (which nothing can catch) the next
 * write to that folder removes it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/tools/index.js';
import { ensureBuilt, REPO } from '../built-cli.js';
import { fixtures, tempDir } from './helpers.js';

let root: string;
/** 4 MiB: streamed (threshold 1 MiB), a thousand chunks of 4 KiB in the child; one place to change. */
const BIG = `START\n${`${'x'.repeat(63)}\n`.repeat(1 << 16)}`;

beforeAll(async () => {
  await ensureBuilt();
  root = await realpath(await tempDir('editgate-temp-cleanup-'));
}, 180_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const temps = async (folder: string) =>
  (await readdir(folder)).filter((name) => /\.editgate-\d+-[0-9a-f]+\.tmp$/.test(name));

/** Starts the child on `file`, resolves once it says it is in the middle (see the fixture). */
async function startChild(file: string, when: 'writing' | 'asked' | 'early'): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [join(fixtures, 'stream-child.mjs'), join(REPO, 'dist'), root, file, when],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = await Promise.race([
    once(lines, 'line') as Promise<string[]>,
    once(child, 'exit').then(([code]) => {
      throw new Error(`the child ended (exit ${code}) before the middle: ${stderr}`);
    }),
  ]);
  expect(line).toBe('mid');
  return child;
}

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<NodeJS.Signals | null> {
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  child.kill(signal);
  const [, by] = await exited;
  return by;
}

describe('a streamed edit ended by a signal', () => {
  for (const [signal, when] of [
    ['SIGTERM', 'writing'],
    ['SIGINT', 'writing'],
    ['SIGINT', 'asked'],
  ] as const) {
    it(`${signal} while ${when === 'writing' ? 'the temp file is written' : 'the full temp file waits for approval'}: removed, file unchanged`, {
      timeout: 60_000,
    }, async () => {
      const name = `${signal}-${when}.txt`;
      await writeFile(join(root, name), BIG);
      const child = await startChild(name, when);
      // Proof that the kill lands in the middle: the temp file is there now.
      expect((await temps(root)).length).toBe(1);
      // The process still ends by the signal (its exit status says so), after removing it.
      expect(await kill(child, signal)).toBe(signal);
      expect(await temps(root)).toEqual([]);
      expect(await readFile(join(root, name), 'utf8')).toBe(BIG);
    });
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} while a small file's edit, written ahead, is decided on: removed, file unchanged`, {
      timeout: 60_000,
    }, async () => {
      const name = `${signal}-early.txt`;
      await writeFile(join(root, name), 'START small\n');
      const child = await startChild(name, 'early');
      expect((await temps(root)).length).toBe(1);
      expect(await kill(child, signal)).toBe(signal);
      expect(await temps(root)).toEqual([]);
      expect(await readFile(join(root, name), 'utf8')).toBe('START small\n');
    });
  }

  it('SIGKILL: the temp file stays until the next streamed write to that folder removes it', {
    timeout: 60_000,
  }, async () => {
    await writeFile(join(root, 'killed.txt'), BIG);
    const child = await startChild('killed.txt', 'writing');
    expect(await kill(child, 'SIGKILL')).toBe('SIGKILL');
    const left = await temps(root);
    expect(left).toHaveLength(1);
    await writeFile(join(root, 'next.txt'), BIG);
    const tools = createEditTools({
      root,
      approve: 'allow',
      requireReadBeforeEdit: false,
      streamThreshold: 1 << 20,
    });
    const next = await tools.execute('edit_file', {
      file_path: 'next.txt',
      old_string: 'START',
      new_string: 'BEGIN',
    });
    expect(next.ok).toBe(true);
    expect(await temps(root)).toEqual([]);
    expect(await readFile(join(root, 'killed.txt'), 'utf8')).toBe(BIG);
  });
});
