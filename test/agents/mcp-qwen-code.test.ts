import { describe, it } from 'vitest';
import { qwenCode } from './clients/qwen-code.js';
import { checkSession } from './mcp-session.js';
import { MCP_SESSIONS } from './sessions.js';

describe('editgate MCP server inside Qwen Code (qwen -p, fake Chat Completions model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkSession(qwenCode, session);
    },
    120_000,
  );
});
