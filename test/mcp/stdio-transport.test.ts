// The stdio transport without a process: which lines skip the SDK's message schema (and that skipping it
// changes nothing), and the line reading itself (chunks, CRLF, the size limit, errors).

import { PassThrough } from 'node:stream';
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainRequest, StdioJsonRpcTransport, toMessage } from '../../src/mcp/stdio-transport.js';

/** What the SDK's stdio transport made of a parsed line: the message, or the error it threw. */
function sdkReading(value: unknown): { message: unknown } | { error: string } {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? { message: parsed.data } : { error: parsed.error.message };
}

function ourReading(value: unknown): { message: unknown } | { error: string } {
  try {
    return { message: toMessage(value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** What a tools/call handler is given (the Protocol parses the request with its method's schema), as JSON. */
function handed(message: unknown): string {
  const parsed = CallToolRequestSchema.safeParse(message);
  return JSON.stringify(parsed.success ? parsed.data : parsed.error.issues);
}

const id = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constantFrom(0, -0, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 1e300, true, null),
);
const meta = fc.oneof(
  fc.constant(undefined),
  fc.record({ progressToken: id }),
  fc.record({ progressToken: id, other: fc.jsonValue() }, { requiredKeys: [] }),
  fc.record({ [RELATED_TASK_META_KEY]: fc.oneof(fc.record({ taskId: fc.string() }), fc.jsonValue()) }),
  fc.jsonValue(),
);
const params = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      name: fc.oneof(fc.string(), fc.jsonValue()),
      arguments: fc.jsonValue(),
      _meta: meta,
      task: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);
/** Lines as a client (or a broken one) sends them: mostly request-shaped, with every part varied. */
const messages = fc.oneof(
  fc
    .record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id,
        method: fc.oneof(fc.constantFrom('tools/call', 'ping'), fc.jsonValue()),
        params,
        result: fc.jsonValue(),
        error: fc.jsonValue(),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    )
    // Through JSON, as a line is: undefined fields vanish, keys like __proto__ become own keys.
    .map((value) => JSON.parse(JSON.stringify(value)) as unknown),
  fc.jsonValue(),
);

describe('which lines skip the message schema', () => {
  it('a line taken as it is, is one the SDK accepts, equal to what it makes of it, and handled the same', () => {
    fc.assert(
      fc.property(messages, (value) => {
        const sdk = sdkReading(value);
        expect(ourReading(value)).toEqual(sdk);
        if (isPlainRequest(value)) {
          expect('message' in sdk && sdk.message).toEqual(value);
          expect(handed(value)).toBe(handed((sdk as { message: unknown }).message));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the requests clients send for tool calls, and leaves everything else to the schema', () => {
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'edit_file', arguments: { file_path: 'a.txt' } },
    };
    expect(isPlainRequest(call)).toBe(true);
    expect(isPlainRequest({ ...call, id: 'x' })).toBe(true);
    expect(isPlainRequest({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBe(true);
    expect(isPlainRequest({ ...call, params: { ...call.params, _meta: { progressToken: 3 } } })).toBe(true);
    // Left to the schema: notifications, responses, other _meta, and everything it refuses.
    expect(isPlainRequest({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(false);
    expect(isPlainRequest({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
    expect(isPlainRequest({ ...call, params: { _meta: { [RELATED_TASK_META_KEY]: { taskId: 't' } } } })).toBe(
      false,
    );
    expect(isPlainRequest({ ...call, id: 1.5 })).toBe(false);
    expect(isPlainRequest({ ...call, extra: 1 })).toBe(false);
    expect(isPlainRequest(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{}}'))).toBe(false);
    expect(isPlainRequest([call])).toBe(false);
  });
});

function connected(maxBufferSize?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioJsonRpcTransport(stdin, stdout, maxBufferSize);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = 0;
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  transport.onclose = () => closed++;
  return { stdin, stdout, transport, received, errors, closed: () => closed };
}

const ping = (n: number) => `{"jsonrpc":"2.0","id":${n},"method":"ping"}`;

describe('StdioJsonRpcTransport', () => {
  it('reads lines split across chunks anywhere, several in one chunk, CRLF, and UTF-8 split in two', async () => {
    const { stdin, transport, received, errors } = connected();
    await transport.start();
    const text = `${ping(1)}\r\n${ping(2)}\n{"jsonrpc":"2.0","id":"é€😀","method":"ping"}\n`;
    const bytes = Buffer.from(text);
    // One byte at a time: every line, and the multi-byte characters, arrive in pieces.
    for (let at = 0; at < bytes.length; at++) stdin.write(bytes.subarray(at, at + 1));
    stdin.write(Buffer.from(`${ping(3)}\n${ping(4)}\n`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([]);
    expect(received.map((message) => (message as { id: unknown }).id)).toEqual([1, 2, 'é€😀', 3, 4]);
  });

  it('reports a bad line as the SDK does and reads on; a handler that throws is reported too', async () => {
    const { stdin, transport, received, errors } = connected();
    transport.onmessage = (message) => {
      if ((message as { id?: unknown }).id === 2) throw new Error('handler failed');
      received.push(message);
    };
    await transport.start();
    stdin.write(`{"jsonrpc":"2.0"\n{"jsonrpc":"1.0","id":1,"method":"ping"}\n${ping(2)}\n${ping(3)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([
      (() => {
        try {
          JSON.parse('{"jsonrpc":"2.0"');
        } catch (error) {
          return (error as Error).message;
        }
      })(),
      JSONRPCMessageSchema.safeParse({ jsonrpc: '1.0', id: 1, method: 'ping' }).error?.message,
      'handler failed',
    ]);
    expect(received.map((message) => (message as { id: unknown }).id)).toEqual([3]);
  });

  it('closes when one line outgrows the buffer, reads nothing more, and pauses stdin', async () => {
    const { stdin, transport, received, errors, closed } = connected(64);
    await transport.start();
    stdin.write(`${ping(1)}\n`);
    stdin.write(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"${'y'.repeat(64)}"}}\n${ping(3)}\n`);
    stdin.write(`${ping(4)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(received.map((message) => (message as { id: unknown }).id)).toEqual([1]);
    expect(errors).toEqual(['ReadBuffer exceeded maximum size of 64 bytes']);
    expect(closed()).toBe(1);
    expect(stdin.isPaused()).toBe(true);
  });

  it('writes each message as one JSON line, as the SDK does', async () => {
    const { stdout, transport } = connected();
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'é' } });
    expect(stdout.read().toString('utf8')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb"}}\n{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"é"}}\n',
    );
    await expect(transport.start()).rejects.toThrow('already started');
  });
});
