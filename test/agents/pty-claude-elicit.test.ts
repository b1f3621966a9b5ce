import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from './clients/claude-code.js';
import type { Turn } from './fake-models/script.js';
import { requestText } from './mcp-session.js';
import { inAgentPty, typePrompt, waitForEditgateInClaude } from './run-agent-pty.js';

const TURNS: Turn[] = [
  { call: [{ tool: 'read_file', input: { file_path: 'notes.txt' } }] },
  {
    call: [{ tool: 'edit_file', input: { file_path: 'notes.txt', old_string: 'beta', new_string: 'BETA' } }],
  },
  { say: 'Done: the edit was approved.' },
];

/**
 * Claude Code's interactive session in a real terminal with editgate on auto-detect (#28): Claude Code
 * 2.1.332 probes with server/discover before initialize, and editgate still chooses elicit from its
 * initialize; the form shows the change with "Allow once" already chosen, so ↓ ↓ Enter (to Accept) allows
 * once, and the file is written.
 */
describe('Claude Code in a terminal: editgate asks with its form (elicitation), answered with keys', () => {
  it('the form shows the change with Allow once preselected; Accept writes it and the model reads the result', async () => {
    await inAgentPty(
      {
        client: claudeCode,
        label: 'claude-elicit',
        files: { 'notes.txt': 'alpha\nbeta\ngamma\n' },
        turns: TURNS,
        askEveryChange: true,
      },
      async ({ workspace, model, terminal }) => {
        // 7 tools: elicit offers no apply_change (preview would: 8).
        await waitForEditgateInClaude(terminal, 7);
        await typePrompt(terminal);
        await terminal.waitForText('wants to modify notes.txt (+1 -1)', 90_000);
        await terminal.waitForText('Accept', 10_000);
        const form = terminal.screen().join('\n');
        console.log(`The form in Claude Code:\n${form}`);
        expect(form).toContain('MCP server “editgate” requests your input');
        expect(form).toMatch(/✔ Decision: ▸ Allow once/);
        expect(form).toContain('Reason (optional): not set');
        terminal.write('\x1b[B');
        await new Promise((r) => setTimeout(r, 700));
        terminal.write('\x1b[B');
        await new Promise((r) => setTimeout(r, 700));
        expect(terminal.screen().join('\n')).toMatch(/❯ Accept/);
        terminal.write('\r');
        await terminal.waitForText('Done: the edit was approved.', 60_000);
        expect(model.problems).toEqual([]);
        expect(readFileSync(join(workspace.root, 'notes.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
        const afterEdit = requestText(model.main()[(claudeCode.preamble?.length ?? 0) + 2]);
        expect(afterEdit).toContain('Edited notes.txt: 1 replacement');
      },
    );
  }, 200_000);
});
