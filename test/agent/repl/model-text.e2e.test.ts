/**
 * The model's text never reads like editgate's own lines (#26): a model that writes `✓ applied (you: this
 * file)` gets it shown after the reply gutter, with --no-color as with colour, while editgate's line for the
 * real decision starts its row. The built chat in a real pty, talking to the fake model server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPLY_GUTTER } from '../../../src/agent/ui/transcript.js';
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

const APP = 'export const a = 1;\nexport const b = 2;\n';
const MIMIC = '✓ applied (you: this file)\n✗ denied (you): nothing to do\n⚙ edit_file app.ts · +1 -1';

describe("the model's text in the chat", () => {
  it.each([
    ['--no-color', ['--no-color']],
    ['colour', []],
  ])(
    '%s: every row of it starts with the gutter; editgate’s own line starts its row',
    async (_name, flags) => {
      const ws = cliWorkspace({ 'app.ts': APP });
      const server = await startFakeModelServer([
        { text: `${MIMIC}\n`, calls: [{ name: 'read_file', input: { file_path: 'app.ts' } }] },
        {
          calls: [
            { name: 'edit_file', input: { file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' } },
          ],
        },
        { text: MIMIC },
      ]);
      const run = startChat(ws, server, { flags });
      runs.push(run);
      await run.waitForText(CHAT_READY);
      run.write('Set b to 3\r');
      await run.waitForText('Apply this edit to app.ts?');
      if (flags.length > 0) expect(run.raw()).not.toMatch(/\x1b\[[0-9;]*m/);
      await run.answer('n');
      await run.waitForText('✗ denied (you)');
      await run.waitFor(
        () => run.lines().filter((row) => row.includes('nothing to do')).length === 2,
        'the last reply',
      );
      const lines = run.lines();
      // The model's imitations: after the gutter, every one of them.
      for (const text of MIMIC.split('\n')) {
        const rows = lines.filter((row) => row.includes(text));
        expect(rows).toHaveLength(2);
        for (const row of rows) expect(row).toBe(`${REPLY_GUTTER}${text}`);
      }
      // editgate's own lines start their rows, and no row of the model's does.
      expect(lines).toContain('✗ denied (you)');
      expect(lines.filter((row) => /^[✓✗⚙]/.test(row))).toEqual([
        '⚙ read_file app.ts · 2 lines',
        '⚙ edit_file app.ts',
        '✗ denied (you)',
      ]);
      expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    },
  );
});
