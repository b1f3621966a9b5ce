/**
 * Keys typed before a question appears never answer it (issue #30): a person types a sentence full of the
 * questions' keys (a, y, n, r, A, t, v) at typing speed while the question appears, and for seconds after.
 * Nothing is approved or refused, nothing is written; the chat keeps the sentence in its input line. Only
 * the first key after a pause answers. Each face runs in a real pty (node-pty + headless xterm): the chat's
 * card, the CLI's prompt (`editgate edit`), and the proxy's terminal question (a diff, then a card).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_MESSAGE } from '../../src/agent/repl/chat-app.js';
import { STILL_TYPING_HINT } from '../../src/terminal/prompt.js';
import { TYPING_PAUSE_MS } from '../../src/terminal/typing-guard.js';
import { startFakeModelServer } from '../agent/fake-model-server.js';
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

/** Every key the questions know, many times over; no Enter, no Esc. */
const SENTENCE = 'please also update the tests, try again, yes any news? add a note';

/**
 * Types `text` a key at a time, 80-150 ms apart, while waiting for `appeared`; says how many keys were
 * typed before the question was on screen and for how long typing went on after it.
 */
async function typeAcross(
  run: PtyRun,
  text: string,
  appeared: Promise<void>,
): Promise<{ before: number; after: number; msAfter: number; longestGap: number }> {
  let appearedAt: number | undefined;
  let longestGap = 0;
  let last: number | undefined;
  let before = 0;
  void appeared.then(() => {
    appearedAt = Date.now();
  });
  let typed = 0;
  for (const char of text) {
    const now = Date.now();
    if (last !== undefined) longestGap = Math.max(longestGap, now - last);
    last = now;
    run.write(char);
    typed++;
    if (appearedAt === undefined) before = typed;
    await new Promise((resolve) => setTimeout(resolve, 80 + Math.floor(Math.random() * 71)));
  }
  await appeared;
  return {
    before,
    after: text.length - before,
    msAfter: Date.now() - (appearedAt ?? Date.now()),
    longestGap,
  };
}

function expectTypedAcross(typing: Awaited<ReturnType<typeof typeAcross>>): void {
  // Typing speed held (a machine that stalls this process for half a second makes a pause, and a pause
  // may answer: that is the rule, not a failure of it).
  expect(typing.longestGap, 'the typist itself stalled').toBeLessThan(TYPING_PAUSE_MS);
  // The question came up mid-sentence, and the sentence went on for seconds after it.
  expect(typing.before).toBeGreaterThan(0);
  expect(typing.after).toBeGreaterThan(20);
  expect(typing.msAfter).toBeGreaterThan(2000);
}

const APP = 'export const a = 1;\nexport const b = 2;\n';
const READ = { name: 'read_file', input: { file_path: 'app.ts' } };
const EDIT_B = {
  name: 'edit_file',
  input: { file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' },
};

describe('the chat card, with a person typing a message while the model works', () => {
  it('the sentence goes to the input line, nothing is answered or written; after a pause y answers', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const server = await startFakeModelServer([
      { text: 'Let me read the file before I change it.', calls: [READ] },
      { calls: [EDIT_B] },
      { text: 'b is now 3.' },
    ]);
    const run = startChat(ws, server, { cols: 120 });
    runs.push(run);
    await run.waitForText(CHAT_READY);
    run.write('Set b to 3\r');
    const typing = await typeAcross(run, SENTENCE, run.whenOutput('no, and stop the turn'));
    expectTypedAcross(typing);

    await run.waitForText('Apply this edit to app.ts?');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    expect(run.text()).not.toMatch(/applied|denied|Reason \(Enter/);
    // The sentence is kept in the input line, shown under the card.
    await run.waitForText(KEPT_MESSAGE.slice(0, 40));
    expect(run.text()).toContain(`› ${SENTENCE}`);

    await run.answer('y');
    await run.waitForText('b is now 3.');
    expect(run.text()).toContain('✓ applied (you: once)');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
    // Still in the input line, not sent: the model got "Set b to 3" only.
    expect(run.screen().some((row) => row.startsWith(`› ${SENTENCE.slice(0, 60)}`))).toBe(true);
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests.map((request) => request.body))).not.toContain('please also');
  });

  it('the command card too: typing across it runs nothing; after a pause n refuses', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const server = await startFakeModelServer([
      { calls: [{ name: 'bash', input: { command: 'touch TOUCHED' } }] },
      { text: 'Not run, fine.' },
    ]);
    const run = startChat(ws, server, { cols: 120 });
    runs.push(run);
    await run.waitForText(CHAT_READY);
    run.write('Make a file\r');
    const typing = await typeAcross(run, SENTENCE, run.whenOutput('Run this command?'));
    expectTypedAcross(typing);
    expect(run.text()).not.toMatch(/not run \(you\)|Reason \(Enter/);
    expect(() => readFileSync(join(ws.root, 'TOUCHED'))).toThrow();
    await run.answer('n');
    await run.waitForText('Not run, fine.');
    expect(run.text()).toContain('✗ not run (you)');
    expect(() => readFileSync(join(ws.root, 'TOUCHED'))).toThrow();
  });
});

describe('the CLI prompt (editgate edit at a terminal)', () => {
  it('typing across the question answers nothing and writes nothing; after a pause y writes', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = spawnCli(['edit', 'app.ts', '--old', 'b = 2', '--new', 'b = 3'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    runs.push(run);
    // Typing begins while editgate starts (about a second) and goes on past the question.
    const typing = await typeAcross(run, SENTENCE, run.whenOutput('view the whole diff'));
    expectTypedAcross(typing);
    await run.waitForText(STILL_TYPING_HINT.slice(0, 40));
    expect(run.text()).not.toMatch(/✓|✗|Reason \(Enter/);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    await run.answer('y');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
  });
});

describe("the proxy's terminal question", () => {
  it('typing across the diff question and then the card answers neither; after pauses y and n do', async () => {
    const { root, state } = workspace({ 'a.txt': 'one\ntwo\n' });
    const run = spawnInPty(
      process.execPath,
      [
        join(import.meta.dirname, '..', 'proxy', 'fixtures', 'terminal-client.mjs'),
        MAIN,
        JSON.stringify([
          { name: 'write_file', arguments: { path: join(root, 'a.txt'), content: 'one\nTWO\n' } },
          {
            name: 'move_file',
            arguments: { source: join(root, 'a.txt'), destination: join(root, 'b.txt') },
          },
        ]),
        '--root',
        root,
        // The terminal is asked only when the person says so (#28: under auto a client owns it).
        '--approve',
        'terminal',
        '--',
        process.execPath,
        FILESYSTEM_SERVER,
        root,
      ],
      { cwd: root, stateDir: state, cols: 100, rows: 40 },
    );
    runs.push(run);
    const diff = await typeAcross(run, SENTENCE, run.whenOutput('Apply this edit to a.txt?'));
    expectTypedAcross(diff);
    expect(run.text()).not.toContain('RESULT write_file');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    await run.answer('y');
    await run.waitForText('RESULT write_file ok');

    // The card comes right after: typing from the y on runs across it.
    const card = await typeAcross(run, SENTENCE, run.whenOutput('Run it?'));
    expect(card.longestGap, 'the typist itself stalled').toBeLessThan(TYPING_PAUSE_MS);
    expect(card.after).toBeGreaterThan(20);
    expect(card.msAfter).toBeGreaterThan(2000);
    expect(run.text()).not.toContain('RESULT move_file');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
    await run.answer('n');
    await run.waitForText('RESULT move_file error');
    expect(run.text()).toContain('DENIED_USER');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
  });
});
