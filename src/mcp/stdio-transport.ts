import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's StdioServerTransport, but for how a request is checked. The SDK parses every line with the zod
 * schema of all JSON-RPC messages, and then its Protocol layer checks the message again against each kind
 * (response, error, request, notification) and the handler parses the request once more with its method's
 * schema: three passes over every tool call. Here a line that is plainly a request (the shape every client
 * sends for a tool call) goes to the Protocol as JSON.parse gave it, since the Protocol's own checks then
 * decide; anything else goes through the SDK's schema exactly as before, so a message the SDK refuses is
 * refused here with the same error (logged, not answered), and a line too long closes the session the same
 * way. Responses are written as the SDK writes them: one JSON line each.
 */
export class StdioJsonRpcTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];

  private buffer: Buffer | undefined;
  private started = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxBufferSize = 10 * 1024 * 1024,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioJsonRpcTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    // Paused only when no one else reads stdin, as the SDK's transport does.
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.buffer = undefined;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer): void => {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > this.maxBufferSize) {
      this.buffer = undefined;
      this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`));
      this.close().catch(() => {});
      return;
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const end: number = this.buffer.indexOf(10); // "\n"
      if (end === -1) return;
      const line = this.buffer.toString('utf8', 0, end).replace(/\r$/, '');
      this.buffer = end + 1 === this.buffer.length ? undefined : this.buffer.subarray(end + 1);
      // As in the SDK: a line that cannot be read, or whose handler throws, is reported and the next is read.
      try {
        this.onmessage?.(toMessage(JSON.parse(line)));
      } catch (error) {
        this.onerror?.(error as Error);
      }
      // Closed meanwhile (the buffer is gone then), or nothing left.
      if (this.buffer === undefined) return;
    }
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };
}

/** The message a parsed line is: as it is when it is plainly a request, else as the SDK's schema reads it. */
export function toMessage(value: unknown): JSONRPCMessage {
  return isPlainRequest(value) ? value : JSONRPCMessageSchema.parse(value);
}

/**
 * Whether a parsed line is surely a JSON-RPC request as the SDK's schema accepts it, and the same object
 * the schema would give: "2.0", an id that is a string or a safe integer, a method, params an object (the
 * schema lets any key through) whose _meta is absent or only a progress token, and no other key. A false
 * is no refusal, only "let the schema decide".
 */
export function isPlainRequest(value: unknown): value is JSONRPCRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string' || !isRequestId(message.id))
    return false;
  let keys = 3;
  if (message.params !== undefined) {
    if (!isPlainParams(message.params)) return false;
    keys = 4;
  }
  return Object.keys(message).length === keys;
}

function isPlainParams(params: unknown): boolean {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const meta = (params as Record<string, unknown>)._meta;
  if (meta === undefined) return true;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return false;
  const keys = Object.keys(meta);
  if (keys.length === 0) return true;
  return (
    keys.length === 1 &&
    keys[0] === 'progressToken' &&
    isRequestId((meta as Record<string, unknown>).progressToken)
  );
}

/** A request id or progress token: a string or a safe integer (the SDK's z.number().int()). */
function isRequestId(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value);
}
