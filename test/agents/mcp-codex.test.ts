import { describe, it } from 'vitest';
import { codex } from './clients/codex.js';
import { checkSession } from './mcp-session.js';
import { MCP_SESSIONS } from './sessions.js';

describe('editgate MCP server inside Codex (codex exec, fake OpenAI Responses model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkSession(codex, session);
    },
    120_000,
  );
});
