import { describe, it } from 'vitest';
import { opencode } from './clients/opencode.js';
import { checkSession } from './mcp-session.js';
import { MCP_SESSIONS, OPENCODE_OWN_EDIT } from './sessions.js';

describe('editgate MCP server inside OpenCode (opencode run, fake Chat Completions model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkSession(opencode, session);
    },
    120_000,
  );
});

describe("the harness drives OpenCode's own tools too (what hooks in front of them need)", () => {
  it('scripts its read and edit tools without editgate; the edit is written byte-exact and its result reaches the model', async () => {
    await checkSession(opencode, OPENCODE_OWN_EDIT, { mcp: false, ownEdits: true });
  }, 120_000);
});
