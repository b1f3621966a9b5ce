import { describe, it } from 'vitest';
import { codex } from './clients/codex.js';
import { checkMcpSession } from './mcp-session.js';

describe('editgate MCP server inside Codex (codex exec, fake OpenAI Responses model)', () => {
  it('offers the tools; read, edit byte-exact, AMBIGUOUS reaches the model', async () => {
    await checkMcpSession(codex);
  }, 120_000);
});
