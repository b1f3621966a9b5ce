import { describe, it } from 'vitest';
import { geminiCli } from './clients/gemini-cli.js';
import { checkSession } from './mcp-session.js';
import { GEMINI_OWN_EDIT, MCP_SESSIONS } from './sessions.js';

describe('editgate MCP server inside Gemini CLI (gemini -p, fake Gemini generateContent model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkSession(geminiCli, session);
    },
    120_000,
  );
});

describe("the harness drives Gemini CLI's own tools too (what hooks in front of them need)", () => {
  it('scripts its read and edit tools without editgate; the edit is written byte-exact and its result reaches the model', async () => {
    await checkSession(geminiCli, GEMINI_OWN_EDIT, { mcp: false, ownEdits: true });
  }, 120_000);
});
