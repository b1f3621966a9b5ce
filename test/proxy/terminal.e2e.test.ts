/**
 * A client without elicitation: with --approve terminal the proxy asks at the terminal it was started from;
 * with auto it never does (the terminal is the client's screen, #28). A real pseudo-terminal runs an MCP
 * client (fixtures/terminal-client.mjs) that starts the built `editgate proxy` over pipes; the proxy's
 * questions appear on the terminal and are answered with keys, as a person would.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { type PtyRun, spawnInPty } from '../cli/pty.js';
import { answerOnPage, LINK } from '../web/page-api.js';
import { FILESYSTEM_SERVER, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
const stops: Array<() => void> = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
  for (const stop of stops.splice(0)) stop();
});

/** `editgate review ROOT` (the built CLI, over pipes): resolves with its printed sign-in link and pid. */
async function startReview(root: string, state: string): Promise<{ link: string; pid: number }> {
  const child = spawn(process.execPath, [MAIN, 'review', root], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, EDITGATE_STATE_DIR: state, NO_COLOR: '1' },
  });
  stops.push(() => child.kill('SIGKILL'));
  let output = '';
  const link = await new Promise<string>((resolve, reject) => {
    const feed = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = LINK.exec(output);
      if (match) resolve(match[0]);
    };
    child.stdout.on('data', feed);
    child.stderr.on('data', feed);
    child.once('close', (code) => reject(new Error(`editgate review ended (${code}): ${output}`)));
  });
  return { link, pid: child.pid! };
}

const CLIENT = join(import.meta.dirname, 'fixtures', 'terminal-client.mjs');

function start(
  root: string,
  state: string,
  calls: Array<{ name: string; arguments: Record<string, unknown> } | { pause: true }>,
  approve: string[],
) {
  const run = spawnInPty(
    process.execPath,
    [
      CLIENT,
      MAIN,
      JSON.stringify(calls),
      '--root',
      root,
      ...approve,
      '--',
      process.execPath,
      FILESYSTEM_SERVER,
      root,
    ],
    { cwd: root, stateDir: state, cols: 100, rows: 40 },
  );
  runs.push(run);
  return run;
}

describe('editgate proxy asking at the terminal', () => {
  it('a diff: y writes it; a card: n refuses it, and the model reads the refusal', async () => {
    const { root, state } = workspace({ 'a.txt': 'one\ntwo\n' });
    const run = start(
      root,
      state,
      [
        { name: 'write_file', arguments: { path: join(root, 'a.txt'), content: 'one\nTWO\n' } },
        { name: 'move_file', arguments: { source: join(root, 'a.txt'), destination: join(root, 'b.txt') } },
      ],
      ['--approve', 'terminal'],
    );
    // The proxy starts the filesystem server first: slower than the CLI on a loaded machine.
    await run.waitForText('Apply this edit to a.txt?', 30_000);
    expect(run.text()).toContain('2 + TWO');
    await run.answer('y');
    await run.waitForText('RESULT write_file ok');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');

    await run.waitForText('Run it?');
    expect(run.text()).toContain('secure-filesystem-server wants to run move_file (Move File).');
    expect(run.text()).toContain(`source: "${join(root, 'a.txt')}"`);
    expect(run.text()).toContain('t yes to move_file for the rest of the session');
    await run.answer('n');
    await run.waitForText('RESULT move_file error');
    expect(run.text()).toContain('DENIED_USER');
    expect(existsSync(join(root, 'a.txt'))).toBe(true);
    expect(await run.exited()).toBe(0);
  });
});

describe('editgate proxy with --approve auto under a client without elicitation (#28)', () => {
  it("never asks at the client's terminal: the write and the card are refused with advice, nothing changes", async () => {
    const { root, state } = workspace({ 'a.txt': 'one\ntwo\n' });
    const run = start(
      root,
      state,
      [
        { name: 'write_file', arguments: { path: join(root, 'a.txt'), content: 'one\nTWO\n' } },
        { name: 'move_file', arguments: { source: join(root, 'a.txt'), destination: join(root, 'b.txt') } },
      ],
      [],
    );
    // On the old code the proxy asked here ("Apply this edit to a.txt?") and waited for a key.
    await run.waitForText('RESULT move_file error');
    expect(await run.exited()).toBe(0);
    const screen = run.text();
    expect(screen).toContain("approval auto: the client's elicitation if it has it, else refused");
    expect(screen).toContain('never the terminal, which belongs to the client');
    expect(screen).not.toContain('Apply this edit');
    expect(screen).not.toContain('Run it?');
    expect(screen).toMatch(
      /RESULT write_file error: .*\(DENIED_NO_APPROVER\): .*needs approval, and no one could be/,
    );
    expect(screen).toMatch(
      /RESULT move_file error: .*\(DENIED_NO_APPROVER\): .*needs approval, and no one could be/,
    );
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(existsSync(join(root, 'b.txt'))).toBe(false);
  });

  it('asks a write on the page of an editgate review running for the root, never the terminal', async () => {
    const { root, state } = workspace({ 'a.txt': 'one\ntwo\n' });
    const review = await startReview(root, state);
    const run = start(
      root,
      state,
      [{ name: 'write_file', arguments: { path: join(root, 'a.txt'), content: 'one\nTWO\n' } }],
      [],
    );
    await run.waitForText(`editgate review (pid ${review.pid})`);
    expect(run.text()).toContain('else writes on the review page of editgate review');
    const { answer } = await answerOnPage(review.link, { decision: 'once' });
    expect(answer.status).toBe(200);
    await run.waitForText('RESULT write_file ok');
    expect(await run.exited()).toBe(0);
    expect(run.text()).not.toContain('Apply this edit');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
  });
});

describe('editgate proxy asks no more at the terminal later in the session (#28)', () => {
  it('auto: an editgate review started after the proxy is found at the next question', async () => {
    const { root, state } = workspace({ 'a.txt': 'one\ntwo\n' });
    const write = { name: 'write_file', arguments: { path: join(root, 'a.txt'), content: 'one\nTWO\n' } };
    const run = start(root, state, [write, { pause: true }, write], []);
    await run.waitForText('PAUSED');
    expect(run.text()).toMatch(/RESULT write_file error: .*\(DENIED_NO_APPROVER\)/);
    const review = await startReview(root, state);
    await run.answer('\r');
    const { answer } = await answerOnPage(review.link, { decision: 'once' });
    expect(answer.status).toBe(200);
    await run.waitForText('RESULT write_file ok');
    expect(await run.exited()).toBe(0);
    expect(run.text()).not.toContain('Apply this edit');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
  });

  it('--approve web: the write on the page (hunks 1 and 3 of 3 taken), a call that is not a write refused with advice, not asked here', async () => {
    const before = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
    const after = before
      .replace('line 2\n', 'LINE 2\n')
      .replace('line 15\n', 'LINE 15\n')
      .replace('line 28\n', 'LINE 28\n');
    const { root, state } = workspace({ 'a.txt': before });
    const run = start(
      root,
      state,
      [
        { name: 'write_file', arguments: { path: join(root, 'a.txt'), content: after } },
        { name: 'move_file', arguments: { source: join(root, 'a.txt'), destination: join(root, 'b.txt') } },
      ],
      ['--approve', 'web'],
    );
    await run.waitForText('Review changes in your browser');
    const link = LINK.exec(run.text().replace(/\s*\n\s*/g, ''))?.[0];
    expect(link).toBeDefined();
    // The JSON API's hunks, beside the decision: the server is sent a write_file of hunks 1 and 3 only.
    const { answer } = await answerOnPage(link!, {
      decision: 'once',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'line 15 stays' }] } },
    });
    expect(answer.status).toBe(200);
    await run.waitForText('RESULT move_file error');
    expect(await run.exited()).toBe(0);
    const screen = run.text();
    // On the old code the proxy asked "Run it?" here and waited for a key on the client's screen.
    expect(screen).not.toContain('Run it?');
    expect(screen).toContain('RESULT write_file ok');
    expect(screen).toMatch(/RESULT move_file error: .*\(DENIED_NO_APPROVER\)/);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(after.replace('LINE 15\n', 'line 15\n'));
    expect(existsSync(join(root, 'b.txt'))).toBe(false);
  });
});
