import { describe, it } from 'vitest';
import { geminiCli } from './clients/gemini-cli.js';
import { checkMcpSession } from './mcp-session.js';

describe('editgate MCP server inside Gemini CLI (gemini -p, fake Gemini generateContent model)', () => {
  it('offers the tools; read, edit byte-exact, AMBIGUOUS reaches the model', async () => {
    await checkMcpSession(geminiCli);
  }, 120_000);
});
