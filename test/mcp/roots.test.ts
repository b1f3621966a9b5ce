import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema, type Root } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALLOW_ALL_CONFIG, type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** A client that offers MCP roots (and counts how often it is asked). */
async function withClientRoots(args: string[], roots: { current: Root[] }) {
  let listed = 0;
  session = await connectStdio(args, {
    capabilities: { roots: { listChanged: true } },
    setup: (client) =>
      client.setRequestHandler(ListRootsRequestSchema, async () => {
        listed++;
        return { roots: roots.current };
      }),
  });
  return { client: session.client, listed: () => listed };
}

const uri = (path: string) => pathToFileURL(path).href;

describe('--use-client-roots', () => {
  it('narrows to a client root inside the configured root', async () => {
    const root = workspace({
      'editgate.config.json': ALLOW_ALL_CONFIG,
      'sub/x.txt': 'x\n',
      'other/y.txt': 'y\n',
    });
    const { client } = await withClientRoots([root, '--approve', 'policy', '--use-client-roots'], {
      current: [{ uri: uri(join(root, 'sub')) }],
    });
    // Relative paths now resolve against the client's root.
    expect((await call(client, 'read_file', { file_path: 'x.txt' })).isError).toBe(false);
    const other = await call(client, 'read_file', { file_path: join(root, 'other/y.txt') });
    expect(other.structured?.code).toBe('OUTSIDE_ROOT');
    expect(session!.stderr()).toContain(`roots narrowed to the client's: ${join(root, 'sub')}`);
  });

  it('rules still match as written, relative to the configured root: narrowing does not open secrets/** (issue #13)', async () => {
    const root = workspace({
      'editgate.config.json': JSON.stringify({
        deny: ['secrets/**'],
        policy: {
          rules: [
            { path: 'app/**', action: 'allow' },
            { path: 'app/locked/**', action: 'deny' },
          ],
        },
      }),
      'secrets/key.txt': 'k\n',
      'app/a.txt': 'a\n',
      'app/locked/l.txt': 'l\n',
    });
    const narrowed = await withClientRoots([root, '--approve', 'policy', '--use-client-roots'], {
      current: [{ uri: uri(join(root, 'secrets')) }],
    });
    const secret = await call(narrowed.client, 'read_file', { file_path: 'key.txt' });
    expect(secret.structured?.code).toBe('OUTSIDE_ROOT');
    await session?.close();
    const app = await withClientRoots([root, '--approve', 'policy', '--use-client-roots'], {
      current: [{ uri: uri(join(root, 'app')) }],
    });
    await call(app.client, 'read_file', { file_path: 'a.txt' });
    // "app/**" allows: the change is written without anyone asked; "app/locked/**" still denies.
    expect((await call(app.client, 'write_file', { file_path: 'a.txt', content: 'A\n' })).isError).toBe(
      false,
    );
    expect(readFileSync(join(root, 'app/a.txt'), 'utf8')).toBe('A\n');
    await call(app.client, 'read_file', { file_path: 'locked/l.txt' });
    const locked = await call(app.client, 'write_file', { file_path: 'locked/l.txt', content: 'x\n' });
    expect(locked.structured?.code).toBe('DENIED_POLICY');
  });

  it('never widens: a client root around the configured root keeps only the configured root', async () => {
    const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, 'in.txt': 'in\n' });
    const parent = dirname(root);
    const sibling = workspace({ 'secret.txt': 's\n' });
    const { client } = await withClientRoots([root, '--approve', 'policy', '--use-client-roots'], {
      current: [{ uri: uri(parent) }, { uri: uri(sibling) }],
    });
    expect((await call(client, 'read_file', { file_path: join(root, 'in.txt') })).isError).toBe(false);
    const escaped = await call(client, 'read_file', { file_path: join(sibling, 'secret.txt') });
    expect(escaped.structured?.code).toBe('OUTSIDE_ROOT');
    expect(session!.stderr()).toContain('client root ignored');
  });

  it('with no client root inside the configured ones, no file is available', async () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const elsewhere = workspace();
    const { client } = await withClientRoots([root, '--use-client-roots'], {
      current: [{ uri: uri(elsewhere) }],
    });
    const refused = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(refused.structured?.code).toBe('OUTSIDE_ROOT');
    expect(refused.text).toContain("None of the client's workspace roots");
  });

  it('reads the roots again after roots/list_changed', async () => {
    const root = workspace({
      'editgate.config.json': ALLOW_ALL_CONFIG,
      'one/a.txt': 'a\n',
      'two/b.txt': 'b\n',
    });
    const roots = { current: [{ uri: uri(join(root, 'one')) }] };
    const { client, listed } = await withClientRoots(
      [root, '--approve', 'policy', '--use-client-roots'],
      roots,
    );
    expect((await call(client, 'read_file', { file_path: 'a.txt' })).isError).toBe(false);
    expect((await call(client, 'read_file', { file_path: 'a.txt' })).isError).toBe(false);
    expect(listed()).toBe(1);
    roots.current = [{ uri: uri(join(root, 'two')) }];
    await client.sendRootsListChanged();
    await expect.poll(() => session!.stderr()).toContain('the client changed its roots');
    expect((await call(client, 'read_file', { file_path: 'b.txt' })).isError).toBe(false);
    expect((await call(client, 'read_file', { file_path: join(root, 'one/a.txt') })).structured?.code).toBe(
      'OUTSIDE_ROOT',
    );
    expect(listed()).toBe(2);
  });

  it('without the flag, client roots are not asked for', async () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const elsewhere = workspace();
    writeFileSync(join(elsewhere, 'b.txt'), 'b\n');
    const { client, listed } = await withClientRoots([root], { current: [{ uri: uri(elsewhere) }] });
    expect((await call(client, 'read_file', { file_path: 'a.txt' })).isError).toBe(false);
    expect(listed()).toBe(0);
  });
});
