import { describe, it } from 'vitest';
import { geminiCli } from './clients/gemini-cli.js';
import { checkSession } from './mcp-session.js';
import { MCP_SESSIONS } from './sessions.js';

describe('editgate MCP server inside Gemini CLI (gemini -p, fake Gemini generateContent model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkSession(geminiCli, session);
    },
    120_000,
  );
});
