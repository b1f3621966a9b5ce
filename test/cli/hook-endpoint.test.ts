/**
 * The hook server's loopback endpoint (src/cli/hook-endpoint.ts), what Claude Code's http hooks post to: a
 * real server in this process and real HTTP requests. What must hold: only a call with the token, a Host
 * naming the loopback address and port and no Origin is answered; every other gets 403 and is never handed
 * to the hook; the server listens on 127.0.0.1 alone; the endpoint file is this user's alone and kept.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpServer, request } from 'node:http';
import { connect, createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  endpointHolder,
  ensureHookEndpoint,
  type HookEndpoint,
  hookArgsOfPath,
  hookEndpointPath,
  hookUrl,
  readHookEndpoint,
  refusalOf,
} from '../../src/cli/hook-endpoint.js';
import { type RunningHookServer, serveHooks } from '../../src/cli/hook-server.js';
import type { HookCall } from '../../src/hooks/hook-wire.js';
import { isEditgateHookUrl } from '../../src/hooks/install.js';
import { ensureBuilt, MAIN } from '../built-cli.js';

const IDENTITY = '0123456789abcdef';
const runFile = promisify(execFile);

let state: string;
let servers: RunningHookServer[];
let calls: HookCall[];

beforeEach(() => {
  state = join(mkdtempSync(join(tmpdir(), 'editgate-hook-endpoint-')), 'state');
  mkdirSync(state, { mode: 0o700 });
  servers = [];
  calls = [];
});

afterEach(async () => {
  for (const server of servers) await server.close();
  rmSync(join(state, '..'), { recursive: true, force: true });
});

async function serve(exitCode = 0, stdout = '', stderr?: string): Promise<HookEndpoint> {
  const started = await serveHooks({
    stateDir: state,
    identity: IDENTITY,
    watchMs: 100,
    answer: async (call) => {
      calls.push(call);
      return { stdout, exitCode, ...(stderr ? { stderr } : {}) };
    },
  });
  if ('refused' in started) throw new Error(started.refused);
  servers.push(started);
  const endpoint = readHookEndpoint(state)!;
  expect(started.httpPort).toBe(endpoint.port);
  return endpoint;
}

function post(
  endpoint: HookEndpoint,
  path: string,
  headers: Record<string, string>,
  body = '{"cwd":"/tmp","hook_event_name":"PreToolUse"}',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const asked = request(
      { host: '127.0.0.1', port: endpoint.port, path, method: 'POST', headers, setHost: false },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    asked.on('error', reject);
    asked.end(body);
  });
}

const good = (endpoint: HookEndpoint) => ({
  Host: `127.0.0.1:${endpoint.port}`,
  Authorization: `Bearer ${endpoint.token}`,
});

describe('the loopback endpoint', () => {
  it('answers a call with the token: the hook arguments from the path, the folder from the event', async () => {
    const endpoint = await serve(0, '{"hookSpecificOutput":{}}\n');
    const answer = await post(endpoint, '/hook/claude-code/web', good(endpoint));
    expect(answer).toEqual({ status: 200, body: '{"hookSpecificOutput":{}}\n' });
    expect(calls).toEqual([
      {
        identity: IDENTITY,
        cwd: '/tmp',
        args: ['hook', 'claude-code', '--approve', 'web'],
        event: '{"cwd":"/tmp","hook_event_name":"PreToolUse"}',
      },
    ]);
    await post(endpoint, '/hook/claude-code/policy/fail-open', {
      ...good(endpoint),
      Host: `localhost:${endpoint.port}`,
    });
    expect(calls[1]!.args).toEqual(['hook', 'claude-code', '--approve', 'policy', '--fail-open']);
  });

  it('says nothing as {} and a refusal (exit code 2) as 500, which the agent counts as a blocking failure', async () => {
    const quiet = await serve(0, '');
    expect(await post(quiet, '/hook/claude-code/agent', good(quiet))).toEqual({ status: 200, body: '{}' });
    await servers.pop()!.close();
    const refusing = await serve(2, '', 'editgate hook: no such mode. Nothing was allowed.\n');
    expect(await post(refusing, '/hook/claude-code/agent', good(refusing))).toEqual({
      status: 500,
      body: 'editgate hook: no such mode. Nothing was allowed.\n',
    });
  });

  it('refuses a wrong token, no token, a foreign Host and any Origin, and never calls the hook', async () => {
    const endpoint = await serve(0, '{}');
    const path = '/hook/claude-code/agent';
    const wrong = 'f'.repeat(64) === endpoint.token ? 'e'.repeat(64) : 'f'.repeat(64);
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ...good(endpoint), Authorization: `Bearer ${wrong}` }, /token/],
      [{ ...good(endpoint), Authorization: `Bearer ${endpoint.token}x` }, /token/],
      [{ ...good(endpoint), Authorization: endpoint.token }, /token/],
      [{ Host: `127.0.0.1:${endpoint.port}` }, /token/],
      [{ ...good(endpoint), Host: `evil.example:${endpoint.port}` }, /Host/],
      [{ ...good(endpoint), Host: '127.0.0.1' }, /Host/],
      [{ ...good(endpoint), Host: `127.0.0.1:${endpoint.port + 1}` }, /Host/],
      [{ ...good(endpoint), Origin: 'http://127.0.0.1' }, /web page/],
      [{ ...good(endpoint), Origin: 'null' }, /web page/],
    ];
    for (const [headers, why] of cases) {
      const answer = await post(endpoint, path, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body).toMatch(why);
    }
    expect((await post(endpoint, '/hook/claude-code/always', good(endpoint))).status).toBe(404);
    expect((await post(endpoint, '/stop', good(endpoint))).status).toBe(404);
    expect(calls).toEqual([]);
  });

  it("proves it is editgate's to a question with no token; a stranger or nothing on the port is told apart", async () => {
    const endpoint = await serve(0, '{}');
    expect(await endpointHolder(endpoint)).toEqual({ kind: 'editgate' });
    // The proof is the token's: the same port with another token is not proved.
    const other = { ...endpoint, token: endpoint.token === 'e'.repeat(64) ? 'f'.repeat(64) : 'e'.repeat(64) };
    expect(await endpointHolder(other)).toMatchObject({ kind: 'stranger', why: /without editgate's proof/ });
    // A proof is never answered to a web page, and is asked for 32 bytes in hex.
    const nonce = 'a'.repeat(64);
    const ask = (path: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const asked = request(
          { host: '127.0.0.1', port: endpoint.port, path, headers, setHost: false },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        asked.on('error', reject);
        asked.end();
      });
    const host = { Host: `127.0.0.1:${endpoint.port}` };
    expect(await ask(`/hook/proof/${nonce}`, host)).toBe(200);
    expect(await ask(`/hook/proof/${nonce}`, { ...host, Origin: 'http://127.0.0.1' })).toBe(403);
    expect(await ask(`/hook/proof/${nonce}`, { Host: 'evil.example' })).toBe(403);
    expect(await ask('/hook/proof/xyz', host)).toBe(400);
    expect(calls).toEqual([]);
    await servers.pop()!.close();
    expect(await endpointHolder(endpoint)).toEqual({ kind: 'none' });
    // Programs that are not editgate's: one that answers anything, one that never answers.
    const answersAll = createHttpServer((_req, res) => res.end('{"decision":"allow"}'));
    await new Promise<void>((resolve) => answersAll.listen(endpoint.port, '127.0.0.1', resolve));
    try {
      expect(await endpointHolder(endpoint)).toEqual({
        kind: 'stranger',
        why: "it answered HTTP 200 without editgate's proof",
      });
    } finally {
      await new Promise((resolve) => answersAll.close(resolve));
    }
    // Reads what it is sent (so it sees the asker hang up and the test can close it), answers nothing.
    const silent = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(endpoint.port, '127.0.0.1', resolve));
    try {
      expect(await endpointHolder(endpoint, 200)).toEqual({
        kind: 'stranger',
        why: 'no answer within 0.2 s',
      });
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('hooks status says who holds the port: editgate proved, nothing, or a program that is not editgate', async () => {
    await ensureBuilt();
    // Not execFileSync: the server answering the proof runs in this process.
    const status = async () =>
      (
        await runFile(process.execPath, [MAIN, 'hooks', 'status', 'claude-code'], {
          env: { ...process.env, EDITGATE_STATE_DIR: state, HOME: join(state, '..'), NO_COLOR: '1' },
          encoding: 'utf8',
        })
      ).stdout;
    const endpoint = await serve(0, '{}');
    const at = `Loopback endpoint 127.0.0.1:${endpoint.port}:`;
    expect(await status()).toContain(`${at} editgate's hook server listens there (it proved it).`);
    await servers.pop()!.close();
    expect(await status()).toContain(`${at} nothing listens there now`);
    const stranger = createHttpServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => stranger.listen(endpoint.port, '127.0.0.1', resolve));
    try {
      expect(await status()).toContain(
        `${at} a program that is not editgate's listens there (it answered HTTP 200 without editgate's proof). Claude Code's prompts are blocked until it is gone; find it with: ss -ltnp 'sport = :${endpoint.port}'.`,
      );
    } finally {
      await new Promise((resolve) => stranger.close(resolve));
    }
  }, 60_000);

  it('refuses a caller that is not this machine', () => {
    const endpoint = { port: 4321, token: 'a'.repeat(64) };
    const headers = { host: '127.0.0.1:4321', authorization: `Bearer ${'a'.repeat(64)}` };
    expect(refusalOf({ remoteAddress: '127.0.0.1', headers }, endpoint)).toBeUndefined();
    expect(refusalOf({ remoteAddress: '::ffff:127.0.0.1', headers }, endpoint)).toBeUndefined();
    for (const remoteAddress of ['10.0.0.5', '192.168.1.2', '::1', undefined])
      expect(refusalOf({ remoteAddress, headers }, endpoint)).toMatch(/only this machine/);
  });

  it('listens on 127.0.0.1 alone: the same port on another address of this machine is not answered', async () => {
    const endpoint = await serve(0, '{}');
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((each) => each && each.family === 'IPv4' && !each.internal)
      .map((each) => each!.address);
    for (const address of ['127.0.0.2', ...others]) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = connect(endpoint.port, address);
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      expect(reached, address).toBe(false);
    }
  });

  it("a port still held by another (an older build's server) is taken when it is free again", async () => {
    mkdirSync(join(state, 'run'), { mode: 0o700 });
    const endpoint = await ensureHookEndpoint(state);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(endpoint.port, '127.0.0.1', resolve));
    const warned: string[] = [];
    const started = await serveHooks({
      stateDir: state,
      identity: IDENTITY,
      watchMs: 50,
      warn: (line) => warned.push(line),
      answer: async () => ({ stdout: '{"later":1}', exitCode: 0 }),
    });
    if ('refused' in started) throw new Error(started.refused);
    servers.push(started);
    expect(warned.join('\n')).toMatch(/cannot be listened on .*tried again/);
    await new Promise((resolve) => holder.close(resolve));
    const until = Date.now() + 10_000;
    let answer: { status: number; body: string } | undefined;
    while (!answer && Date.now() < until) {
      answer = await post(endpoint, '/hook/claude-code/agent', good(endpoint)).catch(() => undefined);
      if (!answer) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(answer).toEqual({ status: 200, body: '{"later":1}' });
  });

  it('keeps its endpoint in a file of this user alone, the same across restarts', async () => {
    const first = await serve();
    expect(statSync(hookEndpointPath(state)).mode & 0o777).toBe(0o600);
    expect(statSync(join(state, 'run')).mode & 0o777).toBe(0o700);
    await servers.pop()!.close();
    expect(await serve()).toEqual(first);
    expect(await ensureHookEndpoint(state)).toEqual(first);
  });

  it('names the hook options in the URL, read back the same, and only those', () => {
    const endpoint = { port: 4321, token: 'a'.repeat(64) };
    const url = hookUrl(endpoint, 'claude-code', 'web', true);
    expect(url).toBe('http://127.0.0.1:4321/hook/claude-code/web/fail-open');
    expect(hookArgsOfPath(new URL(url).pathname)).toEqual(['claude-code', '--approve', 'web', '--fail-open']);
    expect(isEditgateHookUrl(url, 'claude-code')).toBe(true);
    expect(isEditgateHookUrl(url, 'codex')).toBe(false);
    expect(isEditgateHookUrl('http://example.com:4321/hook/claude-code/web', 'claude-code')).toBe(false);
    for (const path of [
      '/hook/claude-code/yes',
      '/hook/../stop',
      '/hook/claude-code/web/x',
      '/hook/claude-code/web?x',
    ])
      expect(hookArgsOfPath(path), path).toBeUndefined();
  });
});
