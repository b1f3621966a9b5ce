/**
 * `e` at the CLI's prompt (#30 item 2): the proposed new text opens in $EDITOR (a script stands in for
 * it), the diff of the person's version is shown and asked once more; y writes exactly their version and
 * the result tells the model what they changed. An editor that fails or saves nothing goes back to the
 * question. The built CLI in a real pty.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { standInEditor } from '../terminal/stand-in-editor.js';
import { type PtyRun, spawnCli } from './pty.js';
import { cliWorkspace } from './run-cli.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const APP = 'const a = 1;\nconst b = 2;\nconst c = 3;\n';
const EDIT = ['edit', 'app.ts', '--old', 'b = 2', '--new', 'b = 22'];
const KEYS_SHOWN = 'v view the whole diff';

function cli(args: string[], editor: Parameters<typeof standInEditor>[1]) {
  const ws = cliWorkspace({ 'app.ts': APP });
  const stand = standInEditor(dirname(ws.root), editor);
  const run = spawnCli(args, { cwd: ws.root, stateDir: ws.stateDir, cols: 200, env: stand.env });
  runs.push(run);
  return { run, root: ws.root, stand };
}

function jsonResult(run: PtyRun): { ok: boolean; message: string; details: Record<string, unknown> } {
  const raw = run.raw();
  const start = raw.indexOf('{"tool"');
  if (start < 0) throw new Error(`no JSON result in:\n${run.text()}`);
  return JSON.parse(raw.slice(start).split(/\r?\n/)[0]!);
}

describe('editgate edit: e, your own version', () => {
  it('e, the editor rewrites a line, the diff of it is asked, y: your version byte-exact, the model told', async () => {
    const { run, root, stand } = cli([...EDIT, '--json'], { from: 'b = 22;', to: 'b = 42; // mine' });
    await run.waitForText(KEYS_SHOWN);
    expect(run.screen().join('\n')).toContain('e edit it in your editor');
    await run.answer('e');
    await run.waitForText('Write your version of app.ts?');
    expect(run.text()).toContain('+ const b = 42; // mine');
    // Nothing is written before the second question is answered.
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
    await run.answer('y');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 42; // mine\nconst c = 3;\n',
    );
    const result = jsonResult(run);
    expect(result.ok).toBe(true);
    expect(result.message).toContain('The user edited your change before approving it');
    expect(result.message).toContain('-const b = 22;\n+const b = 42; // mine');
    // The editor had the terminal, and a private file named with the file's extension.
    expect(stand.runs()).toEqual([{ name: 'proposed.ts', mode: 0o600, dirMode: 0o700, tty: true }]);
  });

  it('n after seeing the diff goes back to the question; n then refuses: nothing written', async () => {
    const { run, root } = cli(EDIT, { from: 'b = 22;', to: 'b = 42;' });
    await run.waitForText(KEYS_SHOWN);
    await run.answer('e');
    await run.waitForText('Write your version of app.ts?');
    await run.answer('n');
    await run.waitFor(
      () => run.text().split('Write your version')[1]?.includes('Apply this edit') === true,
      'the question again',
    );
    await run.answer('n');
    await run.exited();
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
  });

  it('an editor that exits non-zero: back to the question with a note; nothing taken from it', async () => {
    const { run, root } = cli(EDIT, 'fail');
    await run.waitForText(KEYS_SHOWN);
    await run.answer('e');
    await run.waitForText(/Back to the question: the editor .* exited with code 1/);
    await run.answer('y');
    await run.exited();
    // y on the question after it is the proposed change, as shown.
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 22'));
  });

  it('a text saved unchanged: back to the question with a note', async () => {
    const { run, root } = cli(EDIT, 'keep');
    await run.waitForText(KEYS_SHOWN);
    await run.answer('e');
    await run.waitForText('Back to the question: the text was saved unchanged.');
    await run.answer('n');
    await run.exited();
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
  });
});
