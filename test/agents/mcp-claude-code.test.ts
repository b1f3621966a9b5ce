import { describe, it } from 'vitest';
import { claudeCode } from './clients/claude-code.js';
import { checkMcpSession } from './mcp-session.js';
import { MCP_SESSIONS } from './sessions.js';

describe('editgate MCP server inside Claude Code (claude -p, fake Anthropic Messages model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkMcpSession(claudeCode, session);
    },
    120_000,
  );
});
