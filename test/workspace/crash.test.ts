// Crash safety: a child process rewrites a large file between two known contents and is SIGKILLed at random
// moments, many times. After every kill the file must be exactly one of the two contents.
//
// The child imports our TypeScript transpiled on the fly (see transpileForChildren), so this test does not
// depend on `npm run build`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readSnapshot } from '../../src/workspace/read.js';
import { commitText, fixtures, tempDir, transpileForChildren } from './helpers.js';

const KILLS = 60;

let dir: string;
let locks: string;
let compiled: Awaited<ReturnType<typeof transpileForChildren>>;
beforeAll(async () => {
  dir = await tempDir();
  locks = await tempDir('editgate-crash-locks-');
  compiled = await transpileForChildren();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(locks, { recursive: true, force: true });
  await compiled.cleanup();
});

function content(word: string, lines: number): string {
  let text = '';
  for (let i = 0; i < lines; i++)
    text += `${word} ${String(i).padStart(7, '0')} the quick brown fox jumps over\n`;
  return text;
}

// A fixed number of kills, not a time budget: on a loaded machine the children start slower, so the test
// gets the time that takes.
it(`a file rewritten by a process SIGKILLed ${KILLS} times is always exactly the old or the new content`, {
  timeout: 120_000,
}, async () => {
  const a = content('alpha', 60_000); // ~3.1 MB
  const b = content('beta-beta', 52_000); // a different length, so a torn write cannot pass for either
  const file = join(dir, 'big.txt');
  const aPath = join(locks, 'a.txt');
  const bPath = join(locks, 'b.txt');
  await writeFile(aPath, a);
  await writeFile(bPath, b);
  await writeFile(file, a);
  const aBytes = Buffer.from(a);
  const bBytes = Buffer.from(b);
  const tempPattern = /^\.big\.txt\.editgate-\d+-[0-9a-f]+\.tmp$/;

  let begun = 0;
  let committed = 0;
  let midCommit = 0;
  let mostTemps = 0;
  // Children are started one ahead: the next one loads while the current one runs, and starts rewriting
  // only when told to, after the current one is dead and the file has been checked.
  const start = (run: number) => {
    // Each child gets its own lock folder: a child killed while holding the lock would otherwise make the
    // next one wait out the stale period (that recovery is tested in lock.test.ts).
    const child = spawn(
      process.execPath,
      [join(fixtures, 'rewrite-child.mjs'), compiled.src, file, aPath, bPath],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
        env: { ...process.env, EDITGATE_LOCK_DIR: join(locks, `run-${run}`) },
      },
    );
    const counts = { b: 0, c: 0 };
    const lines = createInterface({ input: child.stdout! });
    const ready = new Promise<void>((resolve) => {
      lines.on('line', (line) => {
        if (line === 'ready') resolve();
        else if (line === 'b') counts.b++;
        else if (line === 'c') counts.c++;
      });
    });
    return { child, counts, ready, exited: once(child, 'exit') };
  };

  let next = start(0);
  for (let run = 0; run < KILLS; run++) {
    const current = next;
    await current.ready;
    if (run + 1 < KILLS) next = start(run + 1);
    current.child.stdin!.write('go\n');
    // A random moment, spread over a few commits, so kills land in every phase of one.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 200));
    current.child.kill('SIGKILL');
    const [code, signal] = (await current.exited) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
    begun += current.counts.b;
    committed += current.counts.c;
    if (current.counts.b > current.counts.c) midCommit++;

    const now = await readFile(file);
    expect(now.equals(aBytes) || now.equals(bBytes), `run ${run}: file is neither old nor new`).toBe(true);
    const others = (await readdir(dir)).filter((name) => name !== 'big.txt');
    expect(
      others.every((name) => tempPattern.test(name)),
      `unexpected files: ${others.join(', ')}`,
    ).toBe(true);
    mostTemps = Math.max(mostTemps, others.length);
  }

  // The next successful write of the file removes temp files left by dead writers.
  const snapshot = await readSnapshot(file);
  await commitText(snapshot, snapshot.text === a ? b : a);
  expect(await readdir(dir)).toEqual(['big.txt']);

  console.log(
    `[crash] ${KILLS} SIGKILLs survived (${midCommit} landed inside a commit), ${begun} commits attempted, ` +
      `${committed} completed; the file was whole after every kill; at most ${mostTemps} temp file(s) left, ` +
      'removed by the next write',
  );
});
