import { describe, it } from 'vitest';
import { CLIENTS } from './clients/all.js';
import { checkSession } from './mcp-session.js';
import { LONG_FILE_PAGING } from './paging-session.js';

/**
 * "Read" means "seen" inside each real client (#28): editgate's pages fit below what the client keeps of a
 * result, so every page reaches the model whole, and an edit on lines no page has shown is refused.
 */
describe('a long file read page by page inside each client (editgate MCP, fake model)', () => {
  it.each(CLIENTS.map((client) => [client.label, client] as const))(
    '%s',
    async (_label, client) => {
      await checkSession(client, LONG_FILE_PAGING);
    },
    150_000,
  );
});
