/**
 * Issue #26: reads through the proxy were not gated at all. `.env` under a deny glob and `.git/config`
 * (always denied to editgate's own tools) were read through the reference filesystem server. Now every
 * path a read tool reads passes the same guard and read policy as editgate's own read tools: deny globs,
 * `.git`, the roots, policy rules (a question when they ask). Run against the real server, as a process.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { stdioUpstream } from '../../src/proxy/upstream.js';
import {
  type Answer,
  allowOnce,
  call,
  connectProxy,
  deny,
  FILESYSTEM_SERVER,
  inProcessUpstream,
  workspace,
} from './helpers.js';

const SECRET = 'API_KEY=sk-live-123';

/** The filesystem server allowed `served` (default: the root), behind a proxy whose root is `root`. */
async function proxied(
  config: Parameters<typeof connectProxy>[0]['config'],
  answers: Answer[] = [],
  served?: (root: string) => string,
) {
  const { root, state } = workspace({
    '.env': `${SECRET}\n`,
    '.git/config': `[remote]\n\turl = https://token:${SECRET}@example.com/\n`,
    'src/app.ts': 'export const app = 1;\n',
    'secrets/key.pem': `${SECRET}\n`,
    'private/notes.md': `${SECRET}\n`,
  });
  const upstream = stdioUpstream({
    command: process.execPath,
    args: [FILESYSTEM_SERVER, served ? served(root) : root],
    onStderr: () => {},
  });
  const connected = await connectProxy({ upstream, roots: [root], stateDir: state, config }, { answers });
  return { ...connected, root, path: (name: string) => join(root, name) };
}

describe('reads through the reference filesystem server', () => {
  it('a deny glob and .git refuse every read tool, as for editgate’s own; other files read as before', async () => {
    const { client, questions, path } = await proxied({ deny: ['**/.env'] });
    const refused = [
      ['read_text_file', { path: path('.env') }],
      ['read_file', { path: path('.env') }],
      ['read_text_file', { path: path('.git/config') }],
      ['read_media_file', { path: path('.git/config') }],
      ['read_multiple_files', { paths: [path('src/app.ts'), path('.git/config')] }],
      ['get_file_info', { path: path('.env') }],
      ['list_directory', { path: path('.git') }],
      ['directory_tree', { path: path('.git') }],
      ['search_files', { path: path('.git'), pattern: '*' }],
      // Relative paths: the server resolves them against its allowed directory, and so does editgate.
      ['read_text_file', { path: '.env' }],
    ] as const;
    for (const [tool, args] of refused) {
      const result = await call(client, tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(result.text).toContain('(OUTSIDE_ROOT)');
      expect(result.text).toContain('is denied by workspace rule');
      expect(result.text).not.toContain(SECRET);
    }
    const read = await call(client, 'read_text_file', { path: path('src/app.ts') });
    expect(read).toMatchObject({ isError: false, text: 'export const app = 1;\n' });
    const listed = await call(client, 'list_directory', { path: path('src') });
    expect(listed.text).toContain('[FILE] app.ts');
    expect(questions).toEqual([]);
  });

  it('a link inside the root to a denied file is refused by where it leads', async () => {
    const { client, path } = await proxied({});
    symlinkSync(path('.git/config'), path('src/config-link'));
    const result = await call(client, 'read_text_file', { path: path('src/config-link') });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("denied by workspace rule '**/.git/**'");
    expect(result.text).not.toContain(SECRET);
  });

  it('a file outside the roots is refused even where the server itself would read it', async () => {
    // The server is allowed the folder above the root; editgate's root is narrower.
    const { client, root } = await proxied({}, [], (folder) => dirname(folder));
    const outside = join(dirname(root), 'outside.txt');
    writeFileSync(outside, `${SECRET}\n`);
    const result = await call(client, 'read_text_file', { path: outside });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('(OUTSIDE_ROOT)');
    // Worded for the proxied server, which takes absolute paths: not editgate's "relative to the root".
    expect(result.text).toContain(`outside the folder ${root}`);
    expect(result.text).toContain("written as this server's tools take paths");
    expect(result.text).not.toContain('relative to');
    expect(result.text).not.toContain(SECRET);
  });

  it('read policy: a deny rule refuses; an ask rule asks the person, whose no refuses and yes reads', async () => {
    const { client, questions, path } = await proxied(
      {
        policy: {
          rules: [
            { tool: 'read_file', path: 'secrets/**', action: 'deny' },
            { path: 'private/**', action: 'ask' },
          ],
        },
      },
      [deny('not that one'), allowOnce()],
    );
    const denied = await call(client, 'read_text_file', { path: path('secrets/key.pem') });
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain('(DENIED_POLICY)');
    expect(denied.text).not.toContain(SECRET);
    const listing = await call(client, 'list_directory', { path: path('secrets') });
    expect(listing.isError).toBe(true);

    const refused = await call(client, 'read_text_file', { path: path('private/notes.md') });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('not that one');
    expect(questions[0]).toBe('secure-filesystem-server › read_text_file: Read private/notes.md?');
    const allowed = await call(client, 'read_text_file', { path: path('private/notes.md') });
    expect(allowed).toMatchObject({ isError: false, text: `${SECRET}\n` });
    expect(questions).toHaveLength(2);
  });
});

describe('listings through the reference filesystem server', () => {
  it('leave out what editgate’s own listings leave out: denied globs, .git, paths read policy denies', async () => {
    const { client, root, path } = await proxied({
      deny: ['**/.env'],
      policy: { rules: [{ tool: 'read_file', path: 'secrets/**', action: 'deny' }] },
    });
    const hiddenNames = ['.env', '.git', 'secrets', 'key.pem', 'config'];
    const listed = await call(client, 'list_directory', { path: root });
    expect(listed.text.split('\n').sort()).toEqual(['[DIR] private', '[DIR] src']);
    const sized = await call(client, 'list_directory_with_sizes', { path: root });
    const sizedNames = sized.text
      .split('\n')
      .filter((line) => /^\[(?:FILE|DIR)\] /.test(line))
      .map((line) => line.split(/\s+/)[1]);
    expect(sizedNames.sort()).toEqual(['private', 'src']);
    const tree = await call(client, 'directory_tree', { path: root });
    const names = JSON.stringify(JSON.parse(tree.text));
    for (const name of hiddenNames) expect(names).not.toContain(`"${name}"`);
    expect(names).toContain('"app.ts"');
    const found = await call(client, 'search_files', { path: root, pattern: '**/*' });
    expect(found.text.split('\n').sort()).toEqual(
      [path('private'), path('private/notes.md'), path('src'), path('src/app.ts')].sort(),
    );
    // What the client reads as structured content is filtered alike.
    const structured = await client.callTool({ name: 'list_directory', arguments: { path: root } });
    expect(JSON.stringify(structured.structuredContent)).not.toContain('.env');
  });
});

describe('a read-only tool of another server with a path argument', () => {
  it('is checked inside the roots; a path outside them is the server’s business', async () => {
    const { root, state } = workspace({ '.env': `${SECRET}\n`, 'a.txt': 'a\n' });
    mkdirSync(join(root, 'sub'));
    const { client } = await connectProxy({
      upstream: inProcessUpstream(() => {
        const server = new McpServer({ name: 'viewer', version: '1.0.0' });
        server.registerTool(
          'show',
          { inputSchema: { file_path: z.string() }, annotations: { readOnlyHint: true } },
          async ({ file_path }) => ({ content: [{ type: 'text', text: `showing ${file_path}` }] }),
        );
        return server;
      }),
      roots: [root],
      stateDir: state,
      config: { deny: ['**/.env'] },
    });
    const refused = await call(client, 'show', { file_path: join(root, '.env') });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('(OUTSIDE_ROOT)');
    expect((await call(client, 'show', { file_path: join(root, 'a.txt') })).isError).toBe(false);
    expect((await call(client, 'show', { file_path: '/api/v1/users' })).isError).toBe(false);
    expect((await call(client, 'show', { file_path: 'relative/name' })).isError).toBe(false);
    // A relative path is taken from the first root: `.env` there is denied.
    expect((await call(client, 'show', { file_path: '.env' })).text).toContain('(OUTSIDE_ROOT)');
    expect((await call(client, 'show', { file_path: '../outside/x' })).isError).toBe(false);
  });
});
