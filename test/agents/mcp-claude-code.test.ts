import { describe, it } from 'vitest';
import { claudeCode } from './clients/claude-code.js';
import { checkSession } from './mcp-session.js';
import { CLAUDE_OWN_EDIT, MCP_SESSIONS } from './sessions.js';

describe('editgate MCP server inside Claude Code (claude -p, fake Anthropic Messages model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkSession(claudeCode, session);
    },
    120_000,
  );
});

describe("the harness drives Claude Code's own tools too (what hooks in front of them need)", () => {
  it('scripts Read and Edit without editgate; the edit is written byte-exact and its result reaches the model', async () => {
    await checkSession(claudeCode, CLAUDE_OWN_EDIT, { mcp: false, ownEdits: true });
  }, 120_000);
});
