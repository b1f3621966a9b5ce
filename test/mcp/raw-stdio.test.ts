/**
 * The built server over raw stdio, line by line, as a client that sends bad input sees it: what comes back
 * (a JSON-RPC error, or nothing), what is logged, and that the session goes on. The SDK's client never
 * sends these, so they are written by hand.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALLOW_ALL_CONFIG, ensureBuilt, MAIN, serverEnv, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

interface Raw {
  child: ChildProcessWithoutNullStreams;
  /** Every message the server wrote to stdout, parsed. */
  messages: Record<string, unknown>[];
  stderr: () => string;
  /** Writes a line (a newline is added). */
  send(line: string): void;
  /** The answer to the request with this id, when it comes. */
  answer(id: number): Promise<Record<string, unknown>>;
  /**
   * Sends a ping with this id and waits for its answer. Messages are read in order and a dropped one is
   * dropped as it is read, so by then every bad line before it has been dealt with.
   */
  sync(id: number): Promise<void>;
  exited: Promise<number | null>;
}

let raw: Raw | undefined;
afterEach(() => {
  raw?.child.kill();
  raw = undefined;
});

function start(args: string[] = []): Raw {
  const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, 'a.txt': 'alpha\n' });
  const child = spawn(process.execPath, [MAIN, 'mcp', root, '--approve', 'policy', ...args], {
    env: serverEnv(),
  });
  const messages: Record<string, unknown>[] = [];
  let stdout = '';
  let stderr = '';
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (let end = stdout.indexOf('\n'); end !== -1; end = stdout.indexOf('\n')) {
      const message = JSON.parse(stdout.slice(0, end)) as Record<string, unknown>;
      stdout = stdout.slice(end + 1);
      messages.push(message);
      waiting.get(message.id as number)?.(message);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const send = (line: string) => child.stdin.write(`${line}\n`);
  const answer = (id: number) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const seen = messages.find((message) => message.id === id);
      if (seen) resolve(seen);
      else waiting.set(id, resolve);
    });
  return {
    child,
    messages,
    stderr: () => stderr,
    send,
    answer,
    sync: async (id) => {
      const answered = answer(id);
      send(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
      await answered;
    },
    exited,
  };
}

/** A session past initialize, as a client that speaks the protocol starts one. */
async function initialized(args: string[] = []): Promise<Raw> {
  raw = start(args);
  raw.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  );
  raw.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  await raw.sync(1);
  raw.messages.length = 0;
  return raw;
}

/** Messages that are answers (they have an id), without the logging notifications. */
const answers = (session: Raw) => session.messages.filter((message) => message.id !== undefined);

/** What the SDK's own stdio transport says of a line it refuses: the JSON or the JSON-RPC schema error. */
function refusal(line: string): string {
  try {
    JSONRPCMessageSchema.parse(JSON.parse(line));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`not refused: ${line}`);
}

describe('editgate mcp over raw stdio: bad input', () => {
  it('drops a message that is not JSON-RPC, logs why, answers nothing for it and serves the next', async () => {
    const session = await initialized();
    const bad = [
      '{"jsonrpc":"2.0","id":10,"method":"tools/list"', // broken JSON
      '{"jsonrpc":"1.0","id":11,"method":"tools/list"}', // wrong version
      '{"jsonrpc":"2.0","id":12,"params":{}}', // a request without method
      '{"jsonrpc":"2.0","id":13,"method":"tools/list","extra":true}', // a key JSON-RPC does not have
      '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', // an id that is no integer
      '{"jsonrpc":"2.0","id":true,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":14,"method":"tools/list","params":[]}', // params not an object
      '{"jsonrpc":"2.0","id":15,"method":"tools/list","params":null}',
      '{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{"_meta":{"progressToken":1.5}}}',
      '{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{"_meta":[]}}',
      '{"jsonrpc":"2.0","id":18,"method":3}',
      '{"jsonrpc":"2.0","id":19,"method":"tools/list","__proto__":{}}',
      '[{"jsonrpc":"2.0","id":20,"method":"tools/list"}]', // a batch
      '"just a string"',
      'null',
    ];
    for (const line of bad) session.send(line);
    await session.sync(100);
    expect(answers(session)).toEqual([{ jsonrpc: '2.0', id: 100, result: {} }]);
    const errors = session.stderr().match(/editgate mcp: error: protocol error: /g) ?? [];
    expect(errors).toHaveLength(bad.length);
    for (const line of bad) expect(session.stderr()).toContain(`protocol error: ${refusal(line)}\n`);
    // Still serving: a valid request with one of the ids is answered.
    const list = session.answer(13);
    session.send(JSON.stringify({ jsonrpc: '2.0', id: 13, method: 'tools/list' }));
    expect(((await list).result as { tools: unknown[] }).tools).toHaveLength(7);
  });

  it('answers a tools/call whose params are wrong with a JSON-RPC error, and one with a progress token', async () => {
    const session = await initialized();
    const calls = [
      { id: 20, params: {} },
      { id: 21, params: { name: 'read_file', arguments: ['a.txt'] } },
      {
        id: 22,
        params: { name: 'read_file', arguments: { file_path: 'a.txt' }, _meta: { progressToken: 'p' } },
      },
      { id: 23, params: { name: 7 } },
    ];
    for (const { id, params } of calls)
      session.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }));
    session.send(JSON.stringify({ jsonrpc: '2.0', id: 24, method: 'no/such/method' }));
    // A call asking for a task: this server declares no tasks, so the Protocol refuses it before any handler.
    session.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 25,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { file_path: 'a.txt' }, task: { ttl: 1000 } },
      }),
    );
    const [missing, notRecord, read, notString, unknown, task] = await Promise.all(
      [20, 21, 22, 23, 24, 25].map((id) => session.answer(id)),
    );
    for (const [answer, path, expected] of [
      [missing, ['params', 'name'], 'expected string, received undefined'],
      [notRecord, ['params', 'arguments'], 'expected record, received array'],
      [notString, ['params', 'name'], 'expected string, received number'],
    ] as const) {
      const error = answer!.error as { code: number; message: string };
      expect(error.code).toBe(-32603);
      const issues = JSON.parse(error.message) as { code: string; path: string[]; message: string }[];
      expect(issues).toEqual([
        expect.objectContaining({ code: 'invalid_type', path, message: `Invalid input: ${expected}` }),
      ]);
    }
    const result = read!.result as { isError: boolean; _meta: Record<string, { ok: boolean }> };
    expect(result.isError).toBe(false);
    expect(result._meta['editgate/result']!.ok).toBe(true);
    expect(unknown!.error).toEqual({ code: -32601, message: 'Method not found' });
    expect(task!.error).toEqual({
      code: -32603,
      message: 'Server does not support task creation (required for tools/call)',
    });
  });

  it('closes the session when one line outgrows the buffer, and says so', async () => {
    // --max-input 1kb: the buffer holds 4 KiB above 1 MiB.
    const session = await initialized(['--max-input', '1kb']);
    session.send(`{"jsonrpc":"2.0","id":30,"method":"ping","params":{"x":"${'y'.repeat(1_100_000)}"}}`);
    session.send(JSON.stringify({ jsonrpc: '2.0', id: 31, method: 'ping' }));
    session.child.stdin.end();
    expect(await session.exited).toBe(0);
    expect(answers(session)).toEqual([]);
    expect(session.stderr()).toContain('protocol error: ReadBuffer exceeded maximum size of 1052672 bytes');
  });

  it('drops a bad first message and starts the session at the next one', async () => {
    raw = start();
    raw.send('{"jsonrpc":"2.0","id":0,"method":"initialize"');
    raw.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    );
    await raw.sync(2);
    expect(answers(raw).map((message) => message.id)).toEqual([1, 2]);
    expect(raw.stderr()).toContain('client raw 1: approval mode policy');
  });
});
