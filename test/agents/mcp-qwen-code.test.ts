import { describe, it } from 'vitest';
import { qwenCode } from './clients/qwen-code.js';
import { checkMcpSession } from './mcp-session.js';

describe('editgate MCP server inside Qwen Code (qwen -p, fake Chat Completions model)', () => {
  it('offers the tools; read, edit byte-exact, AMBIGUOUS reaches the model', async () => {
    await checkMcpSession(qwenCode);
  }, 120_000);
});
