/**
 * The hook server and its shell entry (src/cli/hook-server.ts, src/cli/hook-entry.sh, src/hooks/hook-wire.ts):
 * the real entry run by /bin/sh with the real curl against a server in this process, and a stand-in for the
 * Node hook that says it ran. What must hold: a call the server answers prints its answer and exit code; no
 * server, or a socket whose process is gone, runs the Node hook on the same standard input; every other
 * failure (the server gone mid-call, an answer that is not editgate's) refuses the call with exit code 2,
 * never lets it through, unless --fail-open; a folder someone else could have planted is never used.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type RequestListener, request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookEndpointPath, readHookEndpoint } from '../../src/cli/hook-endpoint.js';
import {
  type RunningHookServer,
  runningHookServers,
  serveHooks,
  stopHookServers,
} from '../../src/cli/hook-server.js';
import { adapter as claude } from '../../src/hooks/agents/claude-code.js';
import { adapter as codex } from '../../src/hooks/agents/codex.js';
import { adapter as gemini } from '../../src/hooks/agents/gemini-cli.js';
import { adapter as qwen } from '../../src/hooks/agents/qwen-code.js';
import {
  decodeHookCall,
  decodeHookReply,
  encodeHookCall,
  encodeHookReply,
  hookListeningPath,
  hookPidPath,
  hookRunFolder,
  hookSocketPath,
  OTHER_BUILD_REPLY,
} from '../../src/hooks/hook-wire.js';

const ENTRY_SOURCE = join(import.meta.dirname, '../../src/cli/hook-entry.sh');
const IDENTITY = '0123456789abcdef';
const hasCurl = spawnSync('sh', ['-c', 'command -v curl']).status === 0;

let folder: string;
let state: string;
let entry: string;
let nodeHook: string;
let servers: RunningHookServer[];

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'editgate-hook-server-'));
  state = join(folder, 'state');
  mkdirSync(state, { mode: 0o700 });
  // The entry reads the build's identity beside itself, as in dist/cli/.
  const bin = join(folder, 'bin');
  mkdirSync(bin);
  entry = join(bin, 'hook-entry.sh');
  copyFileSync(ENTRY_SOURCE, entry);
  writeFileSync(join(bin, 'hook-identity'), `${IDENTITY}\n`);
  // The Node hook's stand-in: says it ran, with what on standard input, and whether to start the server.
  nodeHook = join(folder, 'node-hook.mjs');
  writeFileSync(
    nodeHook,
    `import { readFileSync } from 'node:fs';
const stdin = readFileSync(0, 'utf8');
process.stdout.write(JSON.stringify({ nodeHook: true, stdin, start: process.env.EDITGATE_HOOK_SERVER ?? null, args: process.argv.slice(2) }));`,
  );
  servers = [];
});

afterEach(async () => {
  for (const server of servers) await server.close();
  rmSync(folder, { recursive: true, force: true });
});

/** The entry as an agent runs it (not spawnSync: the server answering it runs in this process). */
function runEntry(
  event: string,
  args: string[] = ['hook', 'claude-code', '--approve', 'policy'],
  shell = '/bin/sh',
  path = process.env.PATH,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, [entry, process.execPath, nodeHook, ...args], {
      cwd: folder,
      env: { PATH: path, EDITGATE_STATE_DIR: state, HOME: folder },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
    child.stdin.end(event);
  });
}

async function serve(answer: Parameters<typeof serveHooks>[0]['answer']): Promise<RunningHookServer> {
  const started = await serveHooks({ stateDir: state, identity: IDENTITY, answer, watchMs: 100 });
  if ('refused' in started) throw new Error(started.refused);
  servers.push(started);
  return started;
}

describe('the wire', () => {
  it('carries a call and a reply whole', () => {
    const call = {
      identity: IDENTITY,
      cwd: '/a b',
      args: ['hook', 'codex', '--approve', 'web'],
      event: '{"x":"\\n&"}\n',
    };
    expect(decodeHookCall(encodeHookCall(call))).toEqual(call);
    const reply = { stdout: '{"a":1}\n', stderr: 'one \\ two\nthree\n', exitCode: 2 };
    expect(decodeHookReply(encodeHookReply(reply))).toEqual(reply);
    expect(decodeHookReply(OTHER_BUILD_REPLY)).toBeUndefined();
  });

  it('refuses what is not a call, saying what is wrong', () => {
    expect(() => decodeHookCall('GET / HTTP/1.1\n')).toThrow(/magic line/);
    expect(() => decodeHookCall(`editgate-hook-request 1\n${IDENTITY}\n/\nmany\n&{}`)).toThrow(
      /not a number/,
    );
    expect(() => decodeHookCall(`editgate-hook-request 1\n${IDENTITY}\n/\n2\nhook\n&{}`)).toThrow(
      /argument 2/,
    );
    expect(() => decodeHookCall(`editgate-hook-request 1\n${IDENTITY}\n/\n0\n{}`)).toThrow(/"&"/);
    expect(() => encodeHookCall({ identity: IDENTITY, cwd: 'a\nb', args: [], event: '' })).toThrow(
      /line break/,
    );
    expect(() => decodeHookReply('editgate-hook-reply 1 0\n\n{}')).toThrow(/not whole/);
  });

  it('the entry gives up before any agent stops waiting, and after the server would have answered', () => {
    const seconds = Number(/^MAX_SECONDS=(\d+)$/m.exec(readFileSync(ENTRY_SOURCE, 'utf8'))![1]);
    for (const adapter of [claude, codex, gemini, qwen]) {
      expect(seconds).toBeLessThan(adapter.timeoutSeconds);
      // The runner answers 3 s before the agent's time-out (runner.ts MARGIN_MS).
      expect(seconds).toBeGreaterThan(adapter.timeoutSeconds - 3);
    }
  });
});

describe.skipIf(!hasCurl)('the shell entry', () => {
  it('prints what the server answers, its standard error and its exit code', async () => {
    const seen: string[] = [];
    const server = await serve(async (call) => {
      seen.push(call.event, call.cwd, call.args.join(' '));
      return { stdout: '{"deny":true}\n', stderr: 'why \\ not\nsecond line\n', exitCode: 2 };
    });
    const event = '{"hook_event_name":"PreToolUse","big":"' + 'x'.repeat(200_000) + '"}';
    const result = await runEntry(event);
    expect(result).toEqual({ stdout: '{"deny":true}\n', stderr: 'why \\ not\nsecond line\n', code: 2 });
    expect(seen).toEqual([event, folder, 'hook claude-code --approve policy']);
    expect(server.served()).toBe(1);
    // Only this user may connect: the socket and its folder.
    expect(readFileSync(hookPidPath(server.socketPath), 'utf8').trim()).toBe(String(process.pid));
  });

  it('with no server, runs the Node hook on the same standard input, which starts one', async () => {
    const result = await runEntry('{"event":1}');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      nodeHook: true,
      stdin: '{"event":1}',
      start: 'start',
      args: ['hook', 'claude-code', '--approve', 'policy'],
    });
  });

  it('a socket left by a server that was killed goes to the Node hook, event and all', async () => {
    mkdirSync(hookRunFolder(state), { mode: 0o700 });
    const socketPath = hookSocketPath(state, IDENTITY);
    // A socket file nobody listens on, and a process id that is no one's now.
    execFileSync(process.execPath, [
      '-e',
      `const s = require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => process.exit(0));`,
    ]);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(hookPidPath(socketPath), `${dead.stdout}\n`);
    expect(existsSync(socketPath)).toBe(true);
    const result = await runEntry('{"event":2}');
    expect(JSON.parse(result.stdout)).toMatchObject({ nodeHook: true, stdin: '{"event":2}', start: 'start' });
  });

  it('a server gone mid-call refuses the call (exit code 2), never lets it through', async () => {
    mkdirSync(hookRunFolder(state), { mode: 0o700 });
    const socketPath = hookSocketPath(state, IDENTITY);
    const dying = createNetServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => dying.listen(socketPath, resolve));
    writeFileSync(hookPidPath(socketPath), `${process.pid}\n`);
    try {
      const result = await runEntry('{"event":3}');
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^editgate refused this call: the hook server failed \(curl exit code \d+\)\. Nothing was written\./,
      );
      // --fail-open: the call goes ahead, and the person is told.
      const open = await runEntry('{"event":3}', [
        'hook',
        'claude-code',
        '--approve',
        'policy',
        '--fail-open',
      ]);
      expect(open.code).toBe(0);
      expect(open.stderr).toMatch(/fails open/);
    } finally {
      await new Promise((resolve) => dying.close(resolve));
    }
  });

  it('an answer that is not a hook reply refuses the call', async () => {
    mkdirSync(hookRunFolder(state), { mode: 0o700 });
    const socketPath = hookSocketPath(state, IDENTITY);
    const stranger = createServer((_req, res) =>
      res.end('{"hookSpecificOutput":{"permissionDecision":"allow"}}'),
    );
    await new Promise<void>((resolve) => stranger.listen(socketPath, resolve));
    writeFileSync(hookPidPath(socketPath), `${process.pid}\n`);
    try {
      const result = await runEntry('{"event":4}');
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/answer is not whole/);
    } finally {
      await new Promise((resolve) => stranger.close(resolve));
    }
  });

  it("a socket folder that is not this user's is never used: the Node hook answers", async () => {
    await serve(async () => ({ stdout: 'from the server', exitCode: 0 }));
    chownSync(hookRunFolder(state), 4321, 4321);
    try {
      const result = await runEntry('{"event":5}');
      expect(JSON.parse(result.stdout)).toMatchObject({ nodeHook: true, stdin: '{"event":5}' });
    } finally {
      chownSync(hookRunFolder(state), process.getuid!(), process.getgid!());
    }
  });
});

const hasBash = existsSync('/bin/bash');
const POLICY = ['hook', 'codex', '--approve', 'policy'];

/** A socket and live process id where the entry looks, so it goes on to ask (the stand-ins answer nothing). */
async function plantServerFiles(): Promise<() => Promise<void>> {
  mkdirSync(hookRunFolder(state), { mode: 0o700 });
  const socketPath = hookSocketPath(state, IDENTITY);
  const idle = createNetServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => idle.listen(socketPath, resolve));
  writeFileSync(hookPidPath(socketPath), `${process.pid}\n`);
  return () => new Promise((resolve) => idle.close(() => resolve()));
}

/**
 * An HTTP stand-in on the loopback endpoint's place, with a token the entry will send, and (unless `held`
 * is false) the server's word that it holds that port, as a server writes it once it listens there.
 */
async function standIn(handler: RequestListener, held = true): Promise<() => Promise<void>> {
  const stranger = createServer(handler);
  await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve));
  const port = (stranger.address() as { port: number }).port;
  writeFileSync(hookEndpointPath(state), `${port} ${'a'.repeat(64)}\n`, { mode: 0o600 });
  const word = hookListeningPath(hookSocketPath(state, IDENTITY));
  if (held) writeFileSync(word, `${port}\n`, { mode: 0o600 });
  return () =>
    new Promise((resolve) =>
      stranger.close(() => {
        rmSync(word, { force: true });
        resolve();
      }),
    );
}

describe.skipIf(!hasBash)('the shell entry run by bash (/dev/tcp, no curl)', () => {
  it('asks the server over its loopback endpoint with the token, with no curl on PATH', async () => {
    const seen: string[] = [];
    const server = await serve(async (call) => {
      seen.push(call.event, call.args.join(' '));
      return { stdout: '{"ok":1}\n\n', stderr: 'note\n', exitCode: 0 };
    });
    const event = `{"hook_event_name":"PreToolUse","text":"${'é'.repeat(5000)}"}`;
    const result = await runEntry(`${event}\n`, POLICY, '/bin/bash', '/nonexistent');
    expect(result).toEqual({ stdout: '{"ok":1}\n\n', stderr: 'note\n', code: 0 });
    expect(seen).toEqual([event, POLICY.join(' ')]);
    expect(server.served()).toBe(1);
  });

  it('a wrong token is refused by the server, and the entry refuses the call (exit code 2)', async () => {
    await serve(async () => ({ stdout: 'allowed', exitCode: 0 }));
    const { port } = readHookEndpoint(state)!;
    writeFileSync(hookEndpointPath(state), `${port} ${'b'.repeat(64)}\n`, { mode: 0o600 });
    const result = await runEntry('{"event":5}', POLICY, '/bin/bash', '/nonexistent');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/the hook server refused the call \(HTTP\/1\.1 403 Forbidden\)/);
  });

  it("an answer cut short or not editgate's refuses the call; --fail-open lets it go, saying so", async () => {
    const closeFiles = await plantServerFiles();
    // Each stand-in reads the whole call before it answers, as a server does: one that answers while the
    // entry is still sending is a server that stopped taking the call (a different refusal, also exit 2).
    const whenRead =
      (answer: RequestListener): RequestListener =>
      (req, res) => {
        req.resume();
        req.on('end', () => answer(req, res));
      };
    const cases: Array<[RequestListener, RegExp]> = [
      [
        whenRead((_req, res) => res.end('{"hookSpecificOutput":{"permissionDecision":"allow"}}')),
        /not whole/,
      ],
      [whenRead((_req, res) => res.end('editgate-hook-reply 1 0\n\n{"allow":true}')), /not whole/],
      [whenRead((req) => req.socket.destroy()), /closed the connection without an answer/],
      [whenRead((_req, res) => res.writeHead(500).end('no')), /refused the call \(HTTP\/1\.1 500/],
    ];
    try {
      for (const [handler, why] of cases) {
        const closeStandIn = await standIn(handler);
        try {
          const result = await runEntry('{"event":6}', POLICY, '/bin/bash', '/nonexistent');
          expect(result.code, result.stderr).toBe(2);
          expect(result.stdout).toBe('');
          expect(result.stderr).toMatch(why);
          const open = await runEntry('{"event":6}', [...POLICY, '--fail-open'], '/bin/bash', '/nonexistent');
          expect(open.code).toBe(0);
          expect(open.stderr).toMatch(/fails open/);
        } finally {
          await closeStandIn();
        }
      }
    } finally {
      await closeFiles();
    }
  });

  it('a port no editgate server says it holds is never posted to: the call goes over the socket', async () => {
    const seen: string[] = [];
    const server = await serve(async (call) => {
      seen.push(call.event);
      return { stdout: 'via the socket', exitCode: 0 };
    });
    // The server holds the endpoint's port and says so; the endpoint file now names another port, where a
    // program that is not editgate's listens (as when the port was taken while no server held it).
    const word = hookListeningPath(server.socketPath);
    expect(readFileSync(word, 'utf8')).toBe(`${server.httpPort}\n`);
    let strangerCalls = 0;
    const closeStranger = await standIn(() => strangerCalls++, false);
    try {
      const result = await runEntry('{"event":8}', POLICY, '/bin/bash');
      expect(result).toEqual({ stdout: 'via the socket', stderr: '', code: 0 });
      // With no word from the server at all, the same.
      rmSync(word);
      const again = await runEntry('{"event":9}', POLICY, '/bin/bash');
      expect(again).toEqual({ stdout: 'via the socket', stderr: '', code: 0 });
      expect(seen).toEqual(['{"event":8}', '{"event":9}']);
      expect(strangerCalls).toBe(0);
    } finally {
      await closeStranger();
    }
  });

  it('nothing listening on the endpoint: the call goes over the socket with curl, event whole', async () => {
    const seen: string[] = [];
    await serve(async (call) => {
      seen.push(call.event);
      return { stdout: 'via the socket', exitCode: 0 };
    });
    const stopped = createNetServer();
    await new Promise<void>((resolve) => stopped.listen(0, '127.0.0.1', resolve));
    const port = (stopped.address() as { port: number }).port;
    await new Promise((resolve) => stopped.close(resolve));
    writeFileSync(hookEndpointPath(state), `${port} ${'a'.repeat(64)}\n`, { mode: 0o600 });
    const result = await runEntry('{"event":7}', POLICY, '/bin/bash');
    expect(result).toEqual({ stdout: 'via the socket', stderr: '', code: 0 });
    expect(seen).toEqual(['{"event":7}']);
  });
});

describe('the server', () => {
  it('refuses a folder someone else owns or others may write', async () => {
    mkdirSync(hookRunFolder(state), { mode: 0o700 });
    chownSync(hookRunFolder(state), 4321, 4321);
    const owned = await serveHooks({
      stateDir: state,
      identity: IDENTITY,
      answer: async () => ({ stdout: '', exitCode: 0 }),
    });
    expect(owned).toMatchObject({ refused: expect.stringMatching(/not yours/) });
    chownSync(hookRunFolder(state), process.getuid!(), process.getgid!());
    chmodSync(state, 0o777);
    const open = await serveHooks({
      stateDir: state,
      identity: IDENTITY,
      answer: async () => ({ stdout: '', exitCode: 0 }),
    });
    expect(open).toMatchObject({ refused: expect.stringMatching(/written by others/) });
  });

  it('answers another build with "other", and a live server of this build is left alone', async () => {
    await serve(async () => ({ stdout: 'ours', exitCode: 0 }));
    const body = encodeHookCall({
      identity: 'fedcba9876543210',
      cwd: '/',
      args: ['hook', 'codex'],
      event: '{}',
    });
    const answer = await new Promise<string>((resolve, reject) => {
      const asked = request(
        { socketPath: hookSocketPath(state, IDENTITY), method: 'POST', path: '/hook' },
        (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve(text));
        },
      );
      asked.on('error', reject);
      asked.end(body);
    });
    expect(answer).toBe(OTHER_BUILD_REPLY);
    const second = await serveHooks({
      stateDir: state,
      identity: IDENTITY,
      answer: async () => ({ stdout: '', exitCode: 0 }),
    });
    expect(second).toMatchObject({ refused: expect.stringMatching(/already answers/) });
  });

  it('says it holds the endpoint port only while it does: not when another holds it, and not once it ends', async () => {
    const first = await serve(async () => ({ stdout: '', exitCode: 0 }));
    const word = hookListeningPath(first.socketPath);
    expect(readFileSync(word, 'utf8')).toBe(`${first.httpPort}\n`);
    await first.close();
    expect(existsSync(word)).toBe(false);
    // A word left by a killed server, and the port taken by another program meanwhile.
    writeFileSync(word, `${first.httpPort}\n`);
    const taker = createNetServer();
    await new Promise<void>((resolve) => taker.listen(first.httpPort, '127.0.0.1', resolve));
    try {
      const second = await serve(async () => ({ stdout: '', exitCode: 0 }));
      expect(second.httpPort).toBeUndefined();
      expect(existsSync(word)).toBe(false);
    } finally {
      await new Promise((resolve) => taker.close(resolve));
    }
  });

  it('ends when its socket file goes, and is listed and stopped by the state folder', async () => {
    const server = await serve(async () => ({ stdout: '', exitCode: 0 }));
    expect((await runningHookServers(state)).map((each) => each.identity)).toEqual([IDENTITY]);
    expect(await stopHookServers(state)).toBe(1);
    await server.ended;
    expect(existsSync(server.socketPath)).toBe(false);
    const again = await serve(async () => ({ stdout: '', exitCode: 0 }));
    rmSync(again.socketPath);
    await again.ended;
    expect(await runningHookServers(state)).toEqual([]);
  });
});
