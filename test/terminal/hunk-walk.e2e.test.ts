/**
 * The per-hunk walk on every terminal face (#30), in a real pty (node-pty + headless xterm): h opens it,
 * each hunk is asked alone (y, n then a reason, ...), one line says what will be written, y writes it.
 * A 3-hunk change with hunk 2 refused with a reason writes hunks 1 and 3 byte for byte, and the model
 * reads the reason: the chat's next model request, the CLI's --json result. A sentence full of the walk's
 * keys typed across a hunk's appearance answers nothing. Through the proxy, the walk's part is sent to the
 * upstream server as a write_file of exactly those bytes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TYPING_PAUSE_MS } from '../../src/terminal/typing-guard.js';
import { type FakeModelServer, startFakeModelServer } from '../agent/fake-model-server.js';
import { CHAT_READY, startChat } from '../agent/repl/chat-pty.js';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { type PtyRun, spawnCli, spawnInPty } from '../cli/pty.js';
import { cliWorkspace } from '../cli/run-cli.js';
import { FILESYSTEM_SERVER, workspace } from '../proxy/helpers.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const BEFORE = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
/** Three hunks: lines 2, 15 and 28. */
const AFTER = BEFORE.replace('line 2\n', 'LINE 2\n')
  .replace('line 15\n', 'LINE 15\n')
  .replace('line 28\n', 'LINE 28\n');
/** Hunks 1 and 3 only. */
const PARTIAL = BEFORE.replace('line 2\n', 'LINE 2\n').replace('line 28\n', 'LINE 28\n');
const REASON = 'line 15 is quoted in the docs';
const TOLD = `app.txt hunk 2 of 3 (line 15 as it is now): the user's reason: ${REASON}`;

/** Every walk key, many times over; no Enter, no Esc. */
const SENTENCE = 'yes, and do not add the quick notes to any query, nor say a word';

/** Types `text` at 80-150 ms a key while `appeared` comes; how long typing went on after it. */
async function typeAcross(run: PtyRun, text: string, appeared: Promise<void>) {
  let appearedAt: number | undefined;
  void appeared.then(() => {
    appearedAt = Date.now();
  });
  let before = 0;
  let longestGap = 0;
  let last: number | undefined;
  for (const [typed, char] of [...text].entries()) {
    if (last !== undefined) longestGap = Math.max(longestGap, Date.now() - last);
    last = Date.now();
    run.write(char);
    if (appearedAt === undefined) before = typed + 1;
    await new Promise((resolve) => setTimeout(resolve, 80 + Math.floor(Math.random() * 71)));
  }
  await appeared;
  // Typing speed held, the hunk came up mid-sentence, and the sentence went on well after it.
  expect(longestGap, 'the typist itself stalled').toBeLessThan(TYPING_PAUSE_MS);
  expect(before).toBeGreaterThan(0);
  expect(Date.now() - appearedAt!).toBeGreaterThan(1500);
}

/**
 * The walk, from the question on screen: h; y for hunk 1; the sentence typed across hunk 2's appearance
 * (it answers nothing); n for hunk 2 with the reason; y for hunk 3; y to the summary line.
 */
async function walkOneTwoThree(run: PtyRun, question: string): Promise<void> {
  await run.waitForText(question);
  expect(run.screen().join('\n')).toContain('h hunk by hunk');
  await run.answer('h');
  await run.waitForText('Write hunk 1 of 3 of app.txt?');
  expect(run.screen().join('\n')).toMatch(/y write this hunk · n not this one/);
  await run.answer('y');
  // Typed right after the y (so the run began before hunk 2 was drawn) and for seconds after.
  await typeAcross(run, SENTENCE, run.whenOutput('Write hunk 2 of 3 of app.txt?'));
  expect(run.text()).not.toMatch(/Why not this hunk|Write hunk 3 of 3|Will write/);
  await run.answer('n');
  await run.waitForText('Why not this hunk?');
  run.write(`${REASON}\r`);
  await run.waitForText('Write hunk 3 of 3 of app.txt?');
  await run.answer('y');
  await run.waitForText(`Will write: app.txt: write hunks 1, 3; not 2 (${REASON})`);
  await run.answer('y');
}

describe('the walk at the CLI prompt', () => {
  it('writes hunks 1 and 3 only, and the result tells hunk 2 with the reason', async () => {
    const ws = cliWorkspace({ 'app.txt': BEFORE });
    const run = spawnCli(['write', 'app.txt', '--content', AFTER, '--json'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      cols: 120,
      rows: 40,
    });
    runs.push(run);
    await walkOneTwoThree(run, 'v view the whole diff');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(ws.root, 'app.txt'), 'utf8')).toBe(PARTIAL);
    expect(run.text()).toContain('✓ Yes to the hunks you chose');
    const raw = run.raw();
    const result = JSON.parse(raw.slice(raw.indexOf('{"tool"')).split(/\r?\n/)[0]!) as {
      ok: boolean;
      message: string;
    };
    expect(result.ok).toBe(true);
    expect(result.message).toContain('The user accepted only part of your change');
    expect(result.message).toContain(TOLD);
  });

  it('q goes back to the question; a one-hunk change offers no walk', async () => {
    const ws = cliWorkspace({ 'app.txt': BEFORE });
    const run = spawnCli(['write', 'app.txt', '--content', AFTER], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      cols: 120,
      rows: 40,
    });
    runs.push(run);
    await run.waitForText('h hunk by hunk');
    await run.answer('h');
    await run.waitForText('Write hunk 1 of 3');
    await run.answer('q');
    await run.waitFor(() => run.text().split('h hunk by hunk').length === 3, 'the question drawn again');
    await run.answer('n');
    expect(await run.exited()).not.toBe(0);
    expect(readFileSync(join(ws.root, 'app.txt'), 'utf8')).toBe(BEFORE);

    const one = spawnCli(['write', 'app.txt', '--content', BEFORE.replace('line 2\n', 'LINE 2\n')], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      cols: 120,
    });
    runs.push(one);
    await one.waitForText('v view the whole diff');
    expect(one.screen().join('\n')).not.toContain('hunk by hunk');
    await one.answer('h');
    await one.answer('n');
    await one.exited();
    expect(one.text()).not.toContain('Write hunk');
  });
});

/** Every message the n-th request carried, as one string. */
function said(server: FakeModelServer, n: number): string {
  return JSON.stringify(server.requests[n - 1]?.body.messages ?? []);
}

describe("the walk on the chat's card", () => {
  it('writes hunks 1 and 3 only; the model reads the reason; typing across a hunk stays in the message', async () => {
    const ws = cliWorkspace({ 'app.txt': BEFORE });
    const server = await startFakeModelServer([
      { calls: [{ name: 'read_file', input: { file_path: 'app.txt' } }] },
      { calls: [{ name: 'write_file', input: { file_path: 'app.txt', content: AFTER } }] },
      { text: 'Understood.' },
    ]);
    const run = startChat(ws, server, { cols: 120, rows: 50 });
    runs.push(run);
    await run.waitForText(CHAT_READY);
    run.write('Capitalise three lines\r');
    await walkOneTwoThree(run, 'Esc no, and stop the turn');
    await run.waitForText('Understood.');
    expect(readFileSync(join(ws.root, 'app.txt'), 'utf8')).toBe(PARTIAL);
    expect(run.text()).toContain('applied (you: the hunks you chose)');
    expect(said(server, 3)).toContain('The user accepted only part of your change');
    expect(said(server, 3)).toContain(TOLD);
    // The sentence typed across hunk 2 went to the message line, not to the walk, and was not sent.
    expect(run.text()).toContain(`› ${SENTENCE}`);
    expect(JSON.stringify(server.requests.map((request) => request.body))).not.toContain('quick notes');
  });
});

describe("the proxy's terminal question", () => {
  it('h walks the hunks; the server is sent a write_file of hunks 1 and 3 only', async () => {
    const { root, state } = workspace({ 'app.txt': BEFORE });
    const run = spawnInPty(
      process.execPath,
      [
        join(import.meta.dirname, '..', 'proxy', 'fixtures', 'terminal-client.mjs'),
        MAIN,
        JSON.stringify([{ name: 'write_file', arguments: { path: join(root, 'app.txt'), content: AFTER } }]),
        '--root',
        root,
        '--approve',
        'terminal',
        '--',
        process.execPath,
        FILESYSTEM_SERVER,
        root,
      ],
      { cwd: root, stateDir: state, cols: 120, rows: 40 },
    );
    runs.push(run);
    // The proxy starts the filesystem server first: slower than the CLI on a loaded machine.
    await run.waitForText('h hunk by hunk', 30_000);
    await walkOneTwoThree(run, 'h hunk by hunk');
    await run.waitForText('RESULT write_file ok');
    expect(readFileSync(join(root, 'app.txt'), 'utf8')).toBe(PARTIAL);
  });
});
