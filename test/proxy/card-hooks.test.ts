/**
 * Hooks for calls that get a card (issue #19: hooks apply to proxied calls exactly as to editgate's own
 * tools). The reference filesystem server runs as a real process behind the proxy; the hooks are a real
 * script named in a trusted editgate.config.json, loaded as every front end loads it. Before-change hooks
 * see move_file and create_directory with their arguments and paths and may veto them (the model reads the
 * reason); after-change hooks run once the server carried a call out, and not when it failed.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE, loadConfig } from '../../src/tools/config.js';
import { trustConfig } from '../trusted-config.js';
import {
  type Answer,
  allowOnce,
  call,
  connectProxy,
  filesystemUpstream,
  inProcessUpstream,
  workspace,
} from './helpers.js';

/**
 * The hook: logs every payload it gets (one JSON line) and denies any call or change that touches a path
 * under frozen/. After a change it says what it saw, for the model.
 */
const HOOK = `
import { appendFileSync } from 'node:fs';
let input = '';
process.stdin.on('data', (chunk) => (input += chunk)).on('end', () => {
  const payload = JSON.parse(input);
  appendFileSync(process.argv[2], JSON.stringify(payload) + '\\n');
  if (payload.event === 'afterChange') {
    console.log('checked ' + payload.tool + ' on ' + ((payload.paths ?? [payload.path]).join(' and ') || 'no paths'));
    return;
  }
  const paths = payload.paths ?? [payload.path];
  const frozen = paths.find((p) => p.startsWith('frozen/'));
  console.log(JSON.stringify(frozen
    ? { decision: 'deny', reason: frozen + ' is frozen: leave frozen/ alone' }
    : { decision: 'allow' }));
});
`;

interface Payload {
  event: string;
  kind: string;
  tool: string;
  server?: string;
  arguments?: Record<string, unknown>;
  paths?: string[];
  absolutePaths?: string[];
}

/** A workspace whose trusted config names the hook script; the proxy runs with that config. */
async function hooked(
  files: Record<string, string>,
  answers: Answer[],
  upstream?: (root: string) => Parameters<typeof connectProxy>[0]['upstream'],
) {
  const { root, state } = workspace(files);
  const base = join(root, '..');
  const script = join(base, 'hook.mjs');
  const log = join(base, 'hook.jsonl');
  const audit = join(base, 'audit.jsonl');
  writeFileSync(script, HOOK);
  writeFileSync(log, '');
  const command = `node '${script}' '${log}'`;
  const configText = JSON.stringify({
    hooks: { beforeChange: [{ command }], afterChange: [{ command }] },
    auditLog: audit,
  });
  writeFileSync(join(root, CONFIG_FILE), configText);
  trustConfig(join(root, CONFIG_FILE), state);
  const loaded = await loadConfig(root, undefined, { stateDir: state });
  expect(loaded.trust?.trusted).toBe(true);
  const connected = await connectProxy(
    {
      upstream: upstream ? upstream(root) : filesystemUpstream(root),
      roots: [root],
      stateDir: state,
      config: loaded.options,
    },
    { answers },
  );
  const payloads = () =>
    readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Payload);
  const audited = () =>
    readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; path: string; decision: string; decidedBy: string });
  return { ...connected, root, path: (name: string) => join(root, name), payloads, audited };
}

describe('before-change hooks see calls that get a card', () => {
  it('a hook vetoes move_file: nothing moves, no one is asked, the model reads the reason', async () => {
    const { client, questions, path, payloads, audited } = await hooked({ 'a.txt': 'a\n' }, [allowOnce()]);
    const result = await call(client, 'move_file', {
      source: path('a.txt'),
      destination: path('frozen/a.txt'),
    });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('DENIED_HOOK');
    expect(result.text).toContain('frozen/a.txt is frozen: leave frozen/ alone');
    expect(existsSync(path('a.txt'))).toBe(true);
    expect(existsSync(path('frozen/a.txt'))).toBe(false);
    expect(questions).toEqual([]);
    expect(payloads()).toEqual([
      {
        event: 'beforeChange',
        kind: 'call',
        tool: 'move_file',
        server: 'secure-filesystem-server',
        arguments: { source: path('a.txt'), destination: path('frozen/a.txt') },
        paths: ['a.txt', 'frozen/a.txt'],
        absolutePaths: [path('a.txt'), path('frozen/a.txt')],
      },
    ]);
    expect(audited()).toMatchObject([
      { tool: 'move_file', path: 'a.txt, frozen/a.txt', decision: 'deny', decidedBy: 'hook' },
    ]);
  });

  it('a hook that allows: the person is asked, the server moves the file, the after-change hook speaks to the model', async () => {
    const { client, questions, path, payloads, audited } = await hooked({ 'a.txt': 'a\n' }, [allowOnce()]);
    const result = await call(client, 'move_file', { source: path('a.txt'), destination: path('b.txt') });
    expect(result.isError).toBe(false);
    expect(result.text).toContain('Successfully moved');
    expect(result.text).toContain('checked move_file on a.txt and b.txt');
    expect(questions).toHaveLength(1);
    expect(readFileSync(path('b.txt'), 'utf8')).toBe('a\n');
    expect(payloads().map((payload) => [payload.event, payload.kind, payload.tool, payload.paths])).toEqual([
      ['beforeChange', 'call', 'move_file', ['a.txt', 'b.txt']],
      ['afterChange', 'call', 'move_file', ['a.txt', 'b.txt']],
    ]);
    expect(audited()).toMatchObject([{ tool: 'move_file', decision: 'once', decidedBy: 'user' }]);
  });

  it('the veto holds over a session grant; a call the server refuses reaches no after-change hook', async () => {
    const { client, questions, path, payloads } = await hooked({ 'a.txt': 'a\n', 'b.txt': 'b\n' }, [
      { action: 'accept', content: { decision: 'Allow create_directory for the session' } },
    ]);
    expect((await call(client, 'create_directory', { path: path('made') })).isError).toBe(false);
    const vetoed = await call(client, 'create_directory', { path: path('frozen/new') });
    expect(vetoed.text).toContain('DENIED_HOOK');
    expect(existsSync(path('frozen'))).toBe(false);
    expect(questions).toHaveLength(1);

    // move_file onto a file that exists: the server refuses it, so nothing was done to observe.
    const refused = await call(client, 'move_file', { source: path('a.txt'), destination: path('b.txt') });
    expect(refused.isError).toBe(true);
    expect(readFileSync(path('b.txt'), 'utf8')).toBe('b\n');
    const events = payloads().map(
      (payload) => `${payload.event} ${payload.tool} ${payload.paths?.join(',')}`,
    );
    expect(events).toEqual([
      'beforeChange create_directory made',
      'afterChange create_directory made',
      'beforeChange create_directory frozen/new',
      'beforeChange move_file a.txt,b.txt',
    ]);
  });

  it('the same script for a write it can show as a diff: it sees the diff, vetoes under frozen/, observes after', async () => {
    const { client, path, payloads } = await hooked({ 'a.txt': 'a\n', 'frozen/b.txt': 'b\n' }, [allowOnce()]);
    const vetoed = await call(client, 'write_file', { path: path('frozen/b.txt'), content: 'B\n' });
    expect(vetoed.text).toContain('DENIED_HOOK');
    expect(readFileSync(path('frozen/b.txt'), 'utf8')).toBe('b\n');
    const written = await call(client, 'write_file', { path: path('a.txt'), content: 'A\n' });
    expect(written.isError).toBe(false);
    expect(written.text).toContain('checked write_file on a.txt');
    expect(payloads().map((payload) => [payload.event, payload.kind, payload.tool])).toEqual([
      ['beforeChange', 'modify', 'write_file'],
      ['beforeChange', 'modify', 'write_file'],
      ['afterChange', 'modify', 'write_file'],
    ]);
    expect((payloads()[2] as Payload & { unifiedDiff: string }).unifiedDiff).toContain('+A');
  });

  it('a write that gets a card because it cannot be shown (not text) names its file to the hook', async () => {
    const { client, questions, path, payloads } = await hooked({ 'frozen/keep.txt': 'k\n' }, [allowOnce()]);
    const vetoed = await call(client, 'write_file', { path: path('frozen/blob.bin'), content: 'a\u0000b' });
    expect(vetoed.text).toContain('DENIED_HOOK');
    expect(vetoed.text).toContain('frozen/blob.bin is frozen');
    expect(existsSync(path('frozen/blob.bin'))).toBe(false);
    expect(questions).toEqual([]);
    expect(payloads()[0]).toMatchObject({ kind: 'call', tool: 'write_file', paths: ['frozen/blob.bin'] });
  });

  it('a tool no one knows: the hook gets its arguments and no paths', async () => {
    const upstream = () =>
      inProcessUpstream(() => {
        const server = new McpServer({ name: 'deploy-server', version: '1.0.0' });
        server.registerTool('deploy', { description: 'Deploys' }, async () => ({
          content: [{ type: 'text', text: 'deployed' }],
        }));
        return server;
      });
    const { client, payloads } = await hooked({}, [allowOnce()], upstream);
    const result = await call(client, 'deploy', {});
    expect(result.text).toBe('deployed\nchecked deploy on no paths');
    expect(payloads()[0]).toEqual({
      event: 'beforeChange',
      kind: 'call',
      tool: 'deploy',
      server: 'deploy-server',
      arguments: {},
      paths: [],
      absolutePaths: [],
    });
  });
});
