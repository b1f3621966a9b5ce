import { describe, it } from 'vitest';
import { codex } from './clients/codex.js';
import { checkSession } from './mcp-session.js';
import { CODEX_OWN_PATCH, MCP_SESSIONS } from './sessions.js';

describe('editgate MCP server inside Codex (codex exec, fake OpenAI Responses model)', () => {
  it.each(MCP_SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      await checkSession(codex, session);
    },
    120_000,
  );
});

describe("the harness drives Codex's own tools too (what hooks in front of them need)", () => {
  it('scripts its freeform apply_patch without editgate; the patch is written byte-exact and its result reaches the model', async () => {
    await checkSession(codex, CODEX_OWN_PATCH, { mcp: false, ownEdits: true });
  }, 120_000);
});
