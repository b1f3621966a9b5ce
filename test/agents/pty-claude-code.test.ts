import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { claudeCode } from './clients/claude-code.js';
import type { Turn } from './fake-models/script.js';
import { startScriptedModel } from './fake-models/server.js';
import { installedAgent } from './installed.js';
import { requestText } from './mcp-session.js';
import { runAgentInPty } from './run-agent-pty.js';
import { READ_EDIT_AMBIGUOUS } from './sessions.js';
import { makeWorkspace } from './workspace.js';

/**
 * Claude Code's interactive session in a real terminal, the way a person uses it: the harness waits until
 * `/mcp` shows editgate connected (a prompt sent at once can go out before MCP servers are connected,
 * without editgate's tools), types the prompt, and reads the screen. The base for tests of what the person
 * sees and answers (elicitation forms, approvals).
 */
describe('Claude Code in a terminal (pty), editgate over MCP, fake Anthropic model', () => {
  it('lists editgate with its 7 tools, runs the session byte-exact, and shows the person one line for the calls', async () => {
    await ensureBuilt();
    const workspace = makeWorkspace('claude-pty');
    const turns = READ_EDIT_AMBIGUOUS.turns as Turn[];
    const model = await startScriptedModel({
      protocol: claudeCode.protocol,
      script: [...(claudeCode.preamble ?? []), ...turns],
    });
    for (const [path, content] of Object.entries(READ_EDIT_AMBIGUOUS.files)) {
      writeFileSync(join(workspace.root, path), content);
    }
    const run = claudeCode.prepare({
      workspace,
      model,
      command: installedAgent('claude-code'),
      prompt: '',
      mcp: true,
      interactive: true,
    });
    const terminal = runAgentInPty(run, model, { stateDir: workspace.state });
    try {
      await terminal.waitForText('? for shortcuts', 30_000);
      terminal.write('/mcp');
      await terminal.waitForText('/mcp', 30_000);
      terminal.write('\r');
      await terminal.waitForText(/✔ editgate\s+7 tools/, 30_000);
      terminal.write('\x1b');
      await terminal.waitForText('? for shortcuts', 30_000);
      terminal.write('Make the planned changes.');
      await terminal.waitForText('Make the planned changes.', 30_000);
      terminal.write('\r');
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
    } finally {
      await terminal.stop();
      await model.close();
      workspace.remove();
    }
  }, 150_000);
});
