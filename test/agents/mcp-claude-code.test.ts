import { describe, it } from 'vitest';
import { claudeCode } from './clients/claude-code.js';
import { checkMcpSession } from './mcp-session.js';

describe('editgate MCP server inside Claude Code (claude -p, fake Anthropic Messages model)', () => {
  it('offers the tools; read, edit byte-exact, AMBIGUOUS reaches the model', async () => {
    await checkMcpSession(claudeCode);
  }, 120_000);
});
