/**
 * A client without elicitation: the proxy asks at the terminal it was started from. A real pseudo-terminal
 * runs an MCP client (fixtures/terminal-client.mjs) that starts the built `editgate proxy` over pipes; the
 * proxy's questions appear on the terminal and are answered with keys, as a person would.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { type PtyRun, spawnInPty } from '../cli/pty.js';
import { FILESYSTEM_SERVER, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const CLIENT = join(import.meta.dirname, 'fixtures', 'terminal-client.mjs');

function start(
  root: string,
  state: string,
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
) {
  const run = spawnInPty(
    process.execPath,
    [CLIENT, MAIN, JSON.stringify(calls), '--root', root, '--', process.execPath, FILESYSTEM_SERVER, root],
    { cwd: root, stateDir: state, cols: 100, rows: 40 },
  );
  runs.push(run);
  return run;
}

describe('editgate proxy asking at the terminal', () => {
  it('a diff: y writes it; a card: n refuses it, and the model reads the refusal', async () => {
    const { root, state } = workspace({ 'a.txt': 'one\ntwo\n' });
    const run = start(root, state, [
      { name: 'write_file', arguments: { path: join(root, 'a.txt'), content: 'one\nTWO\n' } },
      { name: 'move_file', arguments: { source: join(root, 'a.txt'), destination: join(root, 'b.txt') } },
    ]);
    await run.waitForText('Apply this edit to a.txt?');
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
