import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hostCases } from '../core/loopback-hosts.js';
import { ALLOW_ALL_CONFIG, call, ensureBuilt, startHttpServer, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** The token of the server the test started last: clients and raw requests send it unless told not to. */
let serverToken: string | undefined;

async function server(args: string[], env: Record<string, string> = {}) {
  const started = await startHttpServer(args, env);
  cleanups.push(started.stop);
  serverToken = started.token;
  return started;
}

/** `token: ''` connects without one. */
async function connect(url: string, options: { token?: string; elicit?: boolean } = {}) {
  const client = new Client(
    { name: 'editgate-http-test', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  const token = options.token ?? serverToken;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
});

/** A raw POST with the headers given and the server's token (node:http, since fetch will not send a foreign Host). */
function rawPost(url: string, headers: Record<string, string>, body = INITIALIZE) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(serverToken ? { Authorization: `Bearer ${serverToken}` } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        // An accepted initialize answers with an event stream that stays open: enough is known once it starts.
        if (res.statusCode === 200) {
          resolve({ status: 200, body: '' });
          res.destroy();
        }
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('editgate mcp over Streamable HTTP', () => {
  it('serves the same flow: initialize, list, read, edit, undo', async () => {
    const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, 'a.txt': 'one\ntwo\n' });
    const { url } = await server([root, '--approve', 'policy']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(url);
    expect(client.getServerVersion()?.name).toBe('editgate');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('multi_edit');
    await call(client, 'read_file', { file_path: 'a.txt' });
    const edit = await call(client, 'multi_edit', {
      file_path: 'a.txt',
      edits: [
        { old_string: 'one', new_string: 'ONE' },
        { old_string: 'two', new_string: 'TWO' },
      ],
    });
    expect(edit.isError).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('ONE\nTWO\n');
    expect((await call(client, 'undo_edit', { file_path: 'a.txt' })).isError).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    const outside = await call(client, 'read_file', { file_path: '../x' });
    expect(outside.structured?.code).toBe('OUTSIDE_ROOT');
  });

  it('asks through elicitation on the call’s own stream; sessions keep their own grants', async () => {
    const root = workspace({ 'a.txt': 'a1\n' });
    const { url } = await server([root]);
    const client = await connect(url, { elicit: true });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push((req.params as { message: string }).message);
      return { action: 'accept', content: { decision: 'Allow all edits this session' } };
    });
    await call(client, 'read_file', { file_path: 'a.txt' });
    expect(
      (await call(client, 'edit_file', { file_path: 'a.txt', old_string: 'a1', new_string: 'a2' })).isError,
    ).toBe(false);
    expect(asked[0]).toContain('edit_file wants to modify a.txt (+1 -1)');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a2\n');

    // A second client is a second session: the first one's "all edits" grant does not reach it.
    const other = await connect(url);
    expect(other.getInstructions()).toContain('Approval: preview');
    await call(other, 'read_file', { file_path: 'a.txt' });
    const staged = await call(other, 'edit_file', { file_path: 'a.txt', old_string: 'a2', new_string: 'a3' });
    expect(staged.structured?.details).toMatchObject({ written: false });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a2\n');
  });

  it('refuses a foreign Host or Origin', async () => {
    const root = workspace();
    const { url } = await server([root]);
    const port = new URL(url).port;
    expect((await rawPost(url, {})).status).toBe(200);
    expect((await rawPost(url, { Origin: `http://localhost:${port}` })).status).toBe(200);
    const evilOrigin = await rawPost(url, { Origin: 'https://evil.example' });
    expect(evilOrigin.status).toBe(403);
    expect(evilOrigin.body).toContain('Origin');
    const rebound = await rawPost(url, { Host: `evil.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('Host');
    expect((await rawPost(url, { Origin: 'null' })).status).toBe(403);
  });

  it('accepts and refuses the same Host headers as the review page (core/loopback-host.ts)', async () => {
    const { url } = await server([workspace()]);
    for (const { host, accepted, why } of hostCases(Number(new URL(url).port))) {
      const answer = await rawPost(url, { Host: host });
      expect(answer.status, `${host}: ${why}`).toBe(accepted ? 200 : 403);
    }
  });

  it('with a token, refuses requests without it or with a wrong one', async () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const token = 'test-token-0123456789';
    const { url, stderr } = await server([root], { EDITGATE_MCP_TOKEN: token });
    expect(stderr()).toContain('bearer token required');
    const missing = await rawPost(url, { Authorization: '' });
    expect(missing.status).toBe(401);
    expect((await rawPost(url, { Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await rawPost(url, { Authorization: `Bearer ${token}` })).status).toBe(200);
    await expect(connect(url, { token: '' })).rejects.toThrow();
    const client = await connect(url, { token });
    expect((await call(client, 'read_file', { file_path: 'a.txt' })).isError).toBe(false);
  });

  it('answers unknown sessions, other paths and bad JSON with HTTP errors', async () => {
    const root = workspace();
    const { url } = await server([root]);
    expect((await rawPost(url, { 'Mcp-Session-Id': 'nope' })).status).toBe(404);
    expect((await rawPost(url.replace('/mcp', '/other'), {})).status).toBe(404);
    expect((await rawPost(url, {}, '{not json')).status).toBe(400);
    const notInit = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await rawPost(url, {}, notInit)).status).toBe(400);
  });
});
