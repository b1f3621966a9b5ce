/**
 * /review in the chat (#30 item 4): a turn auto-approved with --yes writes three places of a file; /review
 * walks the session's hunks, reverts the second with a reason, and the model reads the reason with the next
 * message. The built chat in a real pty, talking to the fake model server, which records every request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../built-cli.js';
import type { PtyRun } from '../../cli/pty.js';
import { cliWorkspace } from '../../cli/run-cli.js';
import { startFakeModelServer } from '../fake-model-server.js';
import { CHAT_READY, startChat } from './chat-pty.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const ORIGINAL = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
const ALL_THREE = ORIGINAL.replace('line 3\n', 'line three\n')
  .replace('line 15\n', 'line fifteen\n')
  .replace('line 27\n', 'line twenty-seven\n');
const HUNKS_1_AND_3 = ALL_THREE.replace('line fifteen\n', 'line 15\n');

describe('/review in the chat', () => {
  it('reverts hunk 2 of an auto-approved turn with a reason; the model reads it next turn', async () => {
    const ws = cliWorkspace({ 'a.txt': ORIGINAL });
    const server = await startFakeModelServer([
      { calls: [{ name: 'read_file', input: { file_path: 'a.txt' } }] },
      { calls: [{ name: 'write_file', input: { file_path: 'a.txt', content: ALL_THREE } }] },
      { text: 'Spelled them out.' },
      { text: 'Understood.' },
    ]);
    const run = startChat(ws, server, { flags: ['--yes'], cols: 120 });
    runs.push(run);
    await run.waitForText(CHAT_READY);
    run.write('Spell out three numbers\r');
    await run.waitForText('Spelled them out.');
    expect(readFileSync(join(ws.root, 'a.txt'), 'utf8')).toBe(ALL_THREE);

    await run.answer('/review\r');
    await run.waitForText('Keep this hunk (1/3)');
    await run.answer('y');
    await run.waitForText('Keep this hunk (2/3)');
    await run.answer('n');
    await run.waitForText('Why revert it');
    run.write('fifteen stays a number\r');
    await run.waitForText('Keep this hunk (3/3)');
    await run.answer('y');
    await run.waitForText('Revert these now');
    await run.answer('y');
    await run.waitForText('reverted hunk 2 (fifteen stays a number) of 3');
    expect(readFileSync(join(ws.root, 'a.txt')).equals(Buffer.from(HUNKS_1_AND_3))).toBe(true);

    await run.answer('Anything else?\r');
    await run.waitForText('Understood.');
    const next = JSON.stringify(server.requests[3]?.body.messages ?? []);
    expect(next).toContain(
      "a.txt hunk 2 of 3 (line 15 as it is now): the user's reason: fifteen stays a number",
    );
    expect(next).toContain('Anything else?');
    // Told once: not again with a later message.
    await run.answer('/review\r');
    await run.waitForText('Keep this hunk (1/2)');
    await run.answer('q');
    await run.waitForText('Nothing was reverted.');
  }, 90_000);

  it('a session that changed nothing says so', async () => {
    const ws = cliWorkspace({ 'a.txt': ORIGINAL });
    const server = await startFakeModelServer([]);
    const run = startChat(ws, server, { cols: 120 });
    runs.push(run);
    await run.waitForText(CHAT_READY);
    await run.answer('/review\r');
    await run.waitForText('This session has changed no file yet.');
  }, 60_000);
});
