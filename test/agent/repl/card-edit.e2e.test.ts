/**
 * `e` on the chat's card (#30 item 2): the proposed new text opens in $EDITOR (a script stands in for it),
 * the diff of the person's version goes to the transcript and the card asks once more; y writes exactly
 * their version, and the model's next request carries the diff of what they changed. An editor that exits
 * non-zero leaves the card as it was, with a note. The built chat in a real pty, talking to the fake model
 * server, which records every request.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../built-cli.js';
import type { PtyRun } from '../../cli/pty.js';
import { cliWorkspace } from '../../cli/run-cli.js';
import { standInEditor } from '../../terminal/stand-in-editor.js';
import { type FakeModelServer, startFakeModelServer } from '../fake-model-server.js';
import { CHAT_READY, startChat } from './chat-pty.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const APP = 'export const a = 1;\nexport const b = 2;\n';
const READ = { name: 'read_file', input: { file_path: 'app.ts' } };
const EDIT_B = {
  name: 'edit_file',
  input: { file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' },
};
const CARD_KEYS = 'Esc no, and stop the turn';

function said(server: FakeModelServer, n: number): string {
  return JSON.stringify(server.requests[n - 1]?.body.messages ?? []);
}

async function chatAsked(editor: Parameters<typeof standInEditor>[1]) {
  const ws = cliWorkspace({ 'app.ts': APP });
  const stand = standInEditor(dirname(ws.root), editor);
  const server = await startFakeModelServer([
    { calls: [READ] },
    { calls: [EDIT_B] },
    { text: 'Kept yours.' },
  ]);
  const run = startChat(ws, server, { cols: 100, env: stand.env });
  runs.push(run);
  await run.waitForText(CHAT_READY);
  run.write('Set b to 3\r');
  await run.waitForText(CARD_KEYS);
  return { run, root: ws.root, server, stand };
}

describe('the chat card: e, your own version', () => {
  it('e, the editor rewrites a line, its diff and the card again, y: your version written, the model told', async () => {
    const { run, root, server, stand } = await chatAsked({ from: 'b = 3;', to: 'b = 4; // not 3' });
    expect(run.screen().join('\n')).toContain('e edit it');
    await run.answer('e');
    await run.waitForText('Write your version of app.ts?');
    expect(run.text()).toContain('+ export const b = 4; // not 3');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
    await run.answer('y');
    await run.waitForText('Kept yours.');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(
      'export const a = 1;\nexport const b = 4; // not 3\n',
    );
    expect(run.text()).toContain('✓ applied (you: your own version)');
    const next = said(server, 3);
    expect(next).toContain('The user edited your change before approving it');
    expect(next).toContain('-export const b = 3;\\n+export const b = 4; // not 3');
    expect(stand.runs()).toEqual([{ name: 'proposed.ts', mode: 0o600, dirMode: 0o700, tty: true }]);
  });

  it('n on "Write your version?" goes back to the card; n then refuses: nothing written', async () => {
    const { run, root, server } = await chatAsked({ from: 'b = 3;', to: 'b = 4;' });
    await run.answer('e');
    await run.waitForText('Write your version of app.ts?');
    await run.answer('n');
    await run.waitFor(() => !run.screen().join('\n').includes('Write your version of'), 'the card again');
    await run.waitForText(CARD_KEYS);
    await run.answer('n');
    await run.waitForText('Kept yours.');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
    expect(said(server, 3)).not.toContain('The user edited your change');
  });

  it('an editor that exits non-zero: the card stays, with a note; y then writes the proposal', async () => {
    const { run, root, server } = await chatAsked('fail');
    await run.answer('e');
    await run.waitForText('Back to the question: the editor');
    await run.waitForText('exited with code 1; nothing was taken from it.');
    await run.waitForText(CARD_KEYS);
    await run.answer('y');
    await run.waitForText('Kept yours.');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
    expect(said(server, 3)).not.toContain('The user edited your change');
  });
});
