/**
 * The command card shows a command whole before it is answered (#26): `git status`, 300 spaces and
 * `; touch LONGTAIL` once showed as `$ git status …`, and y ran all of it. The built chat in a real pty,
 * talking to the fake model server.
 */
import { existsSync } from 'node:fs';
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

async function chatAsked(command: string): Promise<{ run: PtyRun; root: string }> {
  const ws = cliWorkspace({ 'app.ts': 'export const a = 1;\n' });
  const server = await startFakeModelServer([
    { calls: [{ name: 'bash', input: { command } }] },
    { text: 'Not run, fine.' },
  ]);
  const run = startChat(ws, server, { rows: 30 });
  runs.push(run);
  await run.waitForText(CHAT_READY);
  run.write('Check the status\r');
  await run.waitForText('Run this command?');
  return { run, root: ws.root };
}

describe('the command card', () => {
  it('a tail behind 300 spaces is on the card, the spaces a visible mark, before the answer', async () => {
    const { run, root } = await chatAsked(`git status${' '.repeat(300)}; touch LONGTAIL`);
    await run.waitForText('$ git status ␣×300 ; touch LONGTAIL');
    await run.answer('n');
    await run.waitForText('Not run, fine.');
    expect(existsSync(join(root, 'LONGTAIL'))).toBe(false);
  });

  it('a command longer than the card: the card says so, v shows every row of it, q comes back', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `echo step ${i}`);
    const { run, root } = await chatAsked([...lines, 'touch TAIL30'].join('\n'));
    await run.waitForText('more rows: v shows the whole command');
    expect(run.screen().join('\n')).not.toContain('touch TAIL30');
    await run.answer('v');
    await run.waitFor(() => run.bufferType() === 'alternate', 'the pager');
    run.write('G');
    await run.waitForText('$ touch TAIL30');
    run.write('q');
    await run.waitFor(() => run.bufferType() === 'normal', 'the card again');
    await run.waitForText('Run this command?');
    await run.answer('n');
    await run.waitForText('Not run, fine.');
    expect(existsSync(join(root, 'TAIL30'))).toBe(false);
  });
});
