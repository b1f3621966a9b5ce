/**
 * "Yes, and ..." on the chat's card (#30): + opens a note line, Enter approves this change with the note,
 * and the model reads the note with the tool's result. A + typed in a run of typing that began before the
 * card was on screen is typing, not an answer. The built chat in a real pty, talking to the fake model
 * server, which records every request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../built-cli.js';
import type { PtyRun } from '../../cli/pty.js';
import { cliWorkspace } from '../../cli/run-cli.js';
import { type FakeModelServer, startFakeModelServer } from '../fake-model-server.js';
import { CHAT_READY, startChat } from './chat-pty.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const APP = 'export const a = 1;\nexport const b = 2;\n';
const EDIT_B = {
  name: 'edit_file',
  input: { file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' },
};
const READ = { name: 'read_file', input: { file_path: 'app.ts' } };
const CARD_KEYS = 'Esc no, and stop the turn';

/** Every message the n-th request carried, as one string. */
function said(server: FakeModelServer, n: number): string {
  return JSON.stringify(server.requests[n - 1]?.body.messages ?? []);
}

async function chatAsked(): Promise<{ run: PtyRun; root: string; server: FakeModelServer }> {
  const ws = cliWorkspace({ 'app.ts': APP });
  const server = await startFakeModelServer([{ calls: [READ] }, { calls: [EDIT_B] }, { text: 'Noted.' }]);
  const run = startChat(ws, server, { cols: 100 });
  runs.push(run);
  await run.waitForText(CHAT_READY);
  return { run, root: ws.root, server };
}

describe('the chat card: yes, with a note', () => {
  it('+ then a note: the change is written and the model reads the note with its result', async () => {
    const { run, root, server } = await chatAsked();
    run.write('Set b to 3\r');
    await run.waitForText(CARD_KEYS);
    expect(run.screen().join('\n')).toContain('+ yes, with a note');
    await run.answer('+');
    await run.waitForText('Note for the model (Enter to approve');
    run.write('also bump the version in package.json\r');
    await run.waitForText('Noted.');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
    expect(run.text()).toContain('✓ applied (you: once, with your note)');
    expect(said(server, 3)).toContain(
      'The user approved this change with a note: also bump the version in package.json',
    );
  });

  it('Esc on the note line goes back to the card; n then refuses, and no note reaches the model', async () => {
    const { run, root, server } = await chatAsked();
    run.write('Set b to 3\r');
    await run.waitForText(CARD_KEYS);
    await run.answer('+');
    await run.waitForText('Note for the model');
    run.write('never mind');
    run.write('\x1b');
    await run.waitForText(CARD_KEYS);
    await run.answer('n');
    await run.waitForText('Noted.');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
    expect(said(server, 3)).not.toContain('never mind');
    expect(said(server, 3)).toContain('The user denied this change');
  });

  it('a + typed in a run that began before the card appeared is typing, kept in the message', async () => {
    const { run, root, server } = await chatAsked();
    run.write('Set b to 3\r');
    // Typing starts before the card is on screen and goes on, fast, for well over a second after it.
    const shown = run.waitForText(CARD_KEYS);
    let appearedAt: number | undefined;
    void shown.then(() => {
      appearedAt = Date.now();
    });
    let longestGap = 0;
    let last = Date.now();
    while (appearedAt === undefined || Date.now() - appearedAt < 1500) {
      run.write('+');
      await new Promise((resolve) => setTimeout(resolve, 100));
      longestGap = Math.max(longestGap, Date.now() - last);
      last = Date.now();
    }
    expect(longestGap, 'the typist itself stalled').toBeLessThan(400);
    expect(run.screen().join('\n')).not.toContain('Note for the model');
    expect(run.screen().join('\n')).toContain('› ++');
    await run.answer('n');
    await run.waitForText('Noted.');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
    expect(said(server, 3)).not.toContain('approved this change with a note');
  });
});
