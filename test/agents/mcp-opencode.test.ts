import { describe, it } from 'vitest';
import { opencode } from './clients/opencode.js';
import { checkSession } from './mcp-session.js';
import { MCP_SESSIONS } from './sessions.js';

describe('editgate MCP server inside OpenCode (opencode run, fake Chat Completions model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkSession(opencode, session);
    },
    120_000,
  );
});
