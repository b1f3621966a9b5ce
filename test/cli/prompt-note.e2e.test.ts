/**
 * "Yes, and ..." at the CLI's prompt (#30): + opens a note line, Enter approves with the note; the answer
 * line and the result (what a model reads, and --json's approvalReason) say it. A + typed in a run that
 * began before the question appeared does not open it. The built CLI in a real pty.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
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

function cli(args: string[]): { run: PtyRun; root: string } {
  const ws = cliWorkspace({ 'app.ts': APP });
  const run = spawnCli(args, { cwd: ws.root, stateDir: ws.stateDir, cols: 200 });
  runs.push(run);
  return { run, root: ws.root };
}

/** The --json result line in everything the run wrote. */
function jsonResult(run: PtyRun): { ok: boolean; message: string; details: Record<string, unknown> } {
  const raw = run.raw();
  const start = raw.indexOf('{"tool"');
  if (start < 0) throw new Error(`no JSON result in:\n${run.text()}`);
  return JSON.parse(raw.slice(start).split(/\r?\n/)[0]!);
}

describe('editgate edit: yes, with a note', () => {
  it('+ then a note: written; the answer line and the result carry the note', async () => {
    const { run, root } = cli([...EDIT, '--json']);
    await run.waitForText(KEYS_SHOWN);
    expect(run.screen().join('\n')).toContain('+ yes, with a note');
    await run.answer('+');
    await run.waitForText('Note (Enter to approve');
    run.write('rename it next time\r');
    await run.exited();
    expect(run.text()).toContain('✓ Yes: rename it next time');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 22'));
    const result = jsonResult(run);
    expect(result.ok).toBe(true);
    expect(result.details.approvalReason).toBe('rename it next time');
    expect(result.message).toContain('The user approved this change with a note: rename it next time');
  });

  it('Ctrl-C on the note line refuses: nothing written', async () => {
    const { run, root } = cli(EDIT);
    await run.waitForText(KEYS_SHOWN);
    await run.answer('+');
    await run.waitForText('Note (Enter to approve');
    run.write('half a thought\x03');
    await run.exited();
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
  });

  it('a + typed in a run that began before the question appeared opens nothing', async () => {
    const { run, root } = cli(EDIT);
    const shown = run.waitForText(KEYS_SHOWN);
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
    expect(run.text()).not.toContain('Note (Enter to approve');
    await run.answer('n');
    await run.exited();
    expect(run.text()).toContain('✗ No');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP);
  });
});
