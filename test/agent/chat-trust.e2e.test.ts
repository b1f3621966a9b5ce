import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isTrusted } from '../../src/tools/config-trust.js';
import { ensureBuilt } from '../built-cli.js';
import { type PtyRun, spawnCli } from '../cli/pty.js';
import { cliWorkspace } from '../cli/run-cli.js';
import { type FakeModelServer, startFakeModelServer } from './fake-model-server.js';

// Issue #13: an untrusted project config is asked about in the chat (trust it / not now), not only noticed.
// The built CLI in a real pseudo-terminal, with the fake model server.

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const APP = 'export const a = 1;\nexport const b = 2;\n';
/** Loosens protection (an allow rule), so it needs trust. */
const CONFIG = `${JSON.stringify({ policy: { rules: [{ tool: 'edit_file', path: 'app.ts', action: 'allow' }] } })}\n`;
const QUESTION = "Trust this project's editgate.config.json?";
const CARD_KEYS = 'Esc no, and stop the turn';

async function chatWithUntrustedConfig(server: FakeModelServer) {
  const ws = cliWorkspace({ 'app.ts': APP });
  // Written after the workspace: cliWorkspace would trust a config given with the files.
  const config = join(ws.root, 'editgate.config.json');
  writeFileSync(config, CONFIG);
  const run = spawnCli(['chat', '--model', 'anthropic/fake', '--base-url', server.baseURL], {
    cwd: ws.root,
    stateDir: ws.stateDir,
    cols: 110,
    rows: 40,
    env: {
      XDG_CONFIG_HOME: join(ws.stateDir, '..', 'config'),
      ANTHROPIC_API_KEY: 'test-key',
    },
  });
  runs.push(run);
  return { ws, run, config };
}

const EDIT_B = {
  name: 'edit_file',
  input: { file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' },
};
const READ = { name: 'read_file', input: { file_path: 'app.ts' } };

describe('editgate chat with an untrusted editgate.config.json (issue #13)', () => {
  it('asks; y records trust as editgate trust does, and the config applies whole', async () => {
    const server = await startFakeModelServer([{ calls: [READ] }, { calls: [EDIT_B] }, { text: 'Done.' }]);
    const { ws, run, config } = await chatWithUntrustedConfig(server);
    await run.waitForText(QUESTION);
    expect(run.text()).toContain('allow edit_file on "app.ts"');
    expect(await isTrusted({ root: ws.root, path: config }, CONFIG, ws.stateDir)).toBe(false);
    await run.answer('y');
    await run.waitForText('Trusted. A change to the file makes it untrusted again.');
    expect(await isTrusted({ root: ws.root, path: config }, CONFIG, ws.stateDir)).toBe(true);
    run.write('Set b to 3\r');
    await run.waitForText('Done.');
    // The allow rule applies now: written with no card.
    expect(run.text()).not.toContain(CARD_KEYS);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
  });

  it('n (not now): nothing recorded, the notice says how to trust it, and the allow rule is ignored', async () => {
    const server = await startFakeModelServer([{ calls: [READ] }, { calls: [EDIT_B] }, { text: 'Done.' }]);
    const { ws, run, config } = await chatWithUntrustedConfig(server);
    await run.waitForText(QUESTION);
    await run.answer('n');
    await run.waitForText('editgate trust');
    expect(await isTrusted({ root: ws.root, path: config }, CONFIG, ws.stateDir)).toBe(false);
    run.write('Set b to 3\r');
    // The change is asked about: the untrusted allow rule did not apply.
    await run.waitForText(CARD_KEYS);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    await run.answer('n');
    await run.waitForText('Done.');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });
});
