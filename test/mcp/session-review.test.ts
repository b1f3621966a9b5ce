/**
 * A session review reaches the model through MCP (#30 item 4): a client connection whose writes a policy
 * rule allowed is one session; `editgate review --session last --approve web` reverts hunk 2 with a
 * reason (answered on the page's JSON API); the result of the connection's next call carries the reason,
 * once. The built server with a real SDK client over stdio.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerOnPage, LINK } from '../web/page-api.js';
import {
  ALLOW_ALL_CONFIG,
  type Connected,
  call,
  connectStdio,
  ensureBuilt,
  MAIN,
  serverEnv,
  workspace,
} from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const ORIGINAL = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
const ALL_THREE = ORIGINAL.replace('line 3\n', 'line three\n')
  .replace('line 15\n', 'line fifteen\n')
  .replace('line 27\n', 'line twenty-seven\n');

/** `editgate review ROOT --session last --approve web`, answered on its page with `decision`. */
async function reviewOnPage(root: string, decision: Record<string, unknown>) {
  const child = spawn(process.execPath, [MAIN, 'review', root, '--session', 'last', '--approve', 'web'], {
    cwd: root,
    env: serverEnv({ BROWSER: 'true' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  const link = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = LINK.exec(stderr);
      if (found) resolve(found[0]);
    });
    void exited.then(() => reject(new Error(`exited before printing a link:\n${stderr}`)));
  });
  const { answer } = await answerOnPage(link, decision);
  expect(answer.status, answer.body).toBe(200);
  expect(await exited, stderr).toBe(0);
  return stdout;
}

describe('session review over MCP', () => {
  it("the next call's result tells the model what was reverted and why, once", async () => {
    const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, 'a.txt': ORIGINAL });
    session = await connectStdio([root, '--approve', 'policy']);
    const { client } = session;
    await call(client, 'read_file', { file_path: 'a.txt' });
    const written = await call(client, 'write_file', { file_path: 'a.txt', content: ALL_THREE });
    expect(written.isError, written.text).toBe(false);

    const said = await reviewOnPage(root, {
      decision: 'once',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'fifteen stays a number' }] } },
    });
    expect(said).toContain('a.txt: reverted hunk 2 (fifteen stays a number) of 3');
    expect(said).toContain('is told what was reverted and why at its next tool call');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(ALL_THREE.replace('line fifteen\n', 'line 15\n'));

    const next = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(next.text).toContain(
      "a.txt hunk 2 of 3 (line 15 as it is now): the user's reason: fifteen stays a number",
    );
    const after = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(after.text).not.toContain('fifteen stays a number');
  }, 60_000);
});
