// Two processes edit one file at the same time, each its own lines: the file lock plus the stale check
// must make every edit land, with every refusal a STALE that the child retried from a fresh read.
// The children import our TypeScript transpiled on the fly (see transpileForChildren): no build needed.
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures, tempDir, transpileForChildren } from './helpers.js';

const EDITS = 200;

let dir: string;
let compiled: Awaited<ReturnType<typeof transpileForChildren>>;
beforeAll(async () => {
  dir = await tempDir();
  compiled = await transpileForChildren();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await compiled.cleanup();
});

interface Report {
  who: string;
  edits: number;
  attempts: number;
  stale: number;
  other: string[];
}

it(`two processes applying ${EDITS} edits each to one file lose none of them`, async () => {
  const file = join(dir, 'shared.txt');
  const ids = (who: string) => Array.from({ length: EDITS }, (_, i) => `${who}${String(i).padStart(3, '0')}`);
  await writeFile(file, [...ids('a'), ...ids('b')].map((id) => `${id} todo\n`).join(''));

  const children = ['a', 'b'].map((who) => {
    const child = spawn(
      process.execPath,
      [join(fixtures, 'edit-child.mjs'), compiled.src, file, who, String(EDITS)],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
        // Both children share one lock folder (that is what makes them coordinate), private to this test.
        env: { ...process.env, EDITGATE_LOCK_DIR: join(dir, 'locks') },
      },
    );
    const lines = createInterface({ input: child.stdout! });
    let report: Report | undefined;
    const ready = new Promise<void>((resolve) => {
      lines.on('line', (line) => {
        if (line === 'ready') resolve();
        else report = JSON.parse(line) as Report;
      });
    });
    const done = new Promise<Report>((resolve, reject) => {
      child.on('exit', (code) =>
        report && code === 0 ? resolve(report) : reject(new Error(`child ${who} exited ${code}`)),
      );
    });
    return { child, ready, done };
  });
  // Start both at once, so their edits overlap.
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.child.stdin!.write('go\n');
  const reports = await Promise.all(children.map((c) => c.done));

  for (const report of reports) {
    expect(report.other).toEqual([]);
    expect(report.edits).toBe(EDITS);
    expect(report.attempts).toBe(report.edits + report.stale);
  }
  const final = await readFile(file, 'utf8');
  expect(final).toBe([...ids('a'), ...ids('b')].map((id) => `${id} done\n`).join(''));
  console.log(
    `[concurrency] ${reports.map((r) => `child ${r.who}: ${r.edits} edits kept, ${r.stale} STALE refusals retried`).join('; ')}; ` +
      `${reports.reduce((n, r) => n + r.edits, 0)} of ${2 * EDITS} edits present, no other errors`,
  );
});
