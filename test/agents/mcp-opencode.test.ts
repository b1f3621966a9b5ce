import { describe, it } from 'vitest';
import { opencode } from './clients/opencode.js';
import { checkMcpSession } from './mcp-session.js';

describe('editgate MCP server inside OpenCode (opencode run, fake Chat Completions model)', () => {
  it('offers the tools; read, edit byte-exact, AMBIGUOUS reaches the model', async () => {
    await checkMcpSession(opencode);
  }, 120_000);
});
