import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from './clients/claude-code.js';
import type { Turn } from './fake-models/script.js';
import { requestText } from './mcp-session.js';
import { inAgentPty, typePrompt, waitForEditgateInClaude } from './run-agent-pty.js';
import { READ_EDIT_AMBIGUOUS } from './sessions.js';

/**
 * Claude Code's interactive session in a real terminal, the way a person uses it: the harness waits until
 * `/mcp` shows editgate connected (a prompt sent at once can go out before MCP servers are connected,
 * without editgate's tools), types the prompt, and reads the screen. The base for tests of what the person
 * sees and answers (elicitation forms, approvals).
 */
describe('Claude Code in a terminal (pty), editgate over MCP, fake Anthropic model', () => {
  it('lists editgate with its 7 tools, runs the session byte-exact, and shows the person one line for the calls', async () => {
    await inAgentPty(
      {
        client: claudeCode,
        label: 'claude-pty',
        files: READ_EDIT_AMBIGUOUS.files,
        turns: READ_EDIT_AMBIGUOUS.turns as Turn[],
      },
      async ({ workspace, model, run, terminal }) => {
        await waitForEditgateInClaude(terminal, 7);
        await typePrompt(terminal);
        await terminal.waitForText('Done: one edit made, the other was ambiguous.', 60_000);
        const screen = terminal.screen().join('\n');
        console.log(
          `Claude Code ${run.args.join(' ')} in a 120x40 terminal; the screen at the end:\n${screen}`,
        );

        expect(model.problems).toEqual([]);
        expect(screen).toContain('Called editgate 3 times · 1 failed');
        expect(readFileSync(join(workspace.root, 'notes.txt'), 'utf8')).toBe(
          READ_EDIT_AMBIGUOUS.expectFiles['notes.txt'],
        );
        const main = model.main();
        const afterAmbiguous = requestText(main[(claudeCode.preamble?.length ?? 0) + 3]);
        expect(afterAmbiguous).toContain('matches 2 places (lines 3 and 5)');
      },
    );
  }, 150_000);
});
