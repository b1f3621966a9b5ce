import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codex } from './clients/codex.js';
import type { Turn } from './fake-models/script.js';
import { requestText } from './mcp-session.js';
import { inAgentPty, typePrompt } from './run-agent-pty.js';

const TURNS: Turn[] = [
  { call: [{ tool: 'read_file', input: { file_path: 'notes.txt' } }] },
  {
    call: [{ tool: 'edit_file', input: { file_path: 'notes.txt', old_string: 'beta', new_string: 'BETA' } }],
  },
  { say: 'Done: the edit was approved.' },
];

/**
 * Codex 0.171.0's interactive session in a real terminal with editgate on auto-detect (#28), configured as
 * docs/clients/codex.md says (`default_tools_approval_mode = "approve"`): Codex asks nothing of its own, and
 * shows editgate's form with the diff. Its form cannot be sent with an empty text field, so editgate gives
 * Codex the decision alone, "Allow once" chosen: one Enter allows, one question per edit.
 */
describe('Codex in a terminal: editgate asks with its form (elicitation), answered with one key', () => {
  it('one question with the diff and Allow once chosen; Enter writes it and the model reads the result', async () => {
    await inAgentPty(
      {
        client: codex,
        label: 'codex-elicit',
        files: { 'notes.txt': 'alpha\nbeta\ngamma\n' },
        turns: TURNS,
        askEveryChange: true,
      },
      async ({ workspace, model, terminal }) => {
        // Typed before the footer shows the model, the prompt is kept but not sent (seen: about 40 s to start
        // in the network namespace).
        await terminal.waitForText('fake-model', 120_000);
        await typePrompt(terminal);
        await terminal.waitForText('edit_file wants to modify notes.txt (+1 -1)', 90_000);
        await terminal.waitForText('enter to submit', 10_000);
        const form = terminal.screen().join('\n');
        console.log(`The form in Codex:\n${form}`);
        // Codex's own "Allow the editgate MCP server to run tool edit_file?" is not asked first.
        expect(form).not.toMatch(/Allow the editgate MCP server/);
        expect(form).toContain('+BETA');
        expect(form).toMatch(/› 1\. Allow once/);
        expect(form).not.toContain('Field 1/2');
        expect(form).not.toContain('Reason');
        // As a person answers: a moment after the form is drawn (Codex drops a key typed at once).
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await terminal.answer('\r');
        await terminal.waitForText('Done: the edit was approved.', 60_000);
        expect(model.problems).toEqual([]);
        expect(readFileSync(join(workspace.root, 'notes.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
        const afterEdit = requestText(model.main()[2]);
        expect(afterEdit).toContain('Edited notes.txt: 1 replacement');
      },
    );
  }, 300_000);
});
