import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';

/** Hands the Server a transport that is already running (started by serveOnFirstMessage). */
class Relay implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  constructor(private readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {}

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * The answer to a request that comes before initialize, given without a Server: a ping is answered, any
 * other method is unknown. Claude Code 2.1 first probes with `server/discover` (MCP 2026-07-28) and, told
 * the method is not found, goes on with initialize; building the session from the probe chose the approval
 * mode without the client's capabilities (preview instead of its elicitation form, #28).
 */
function beforeInitialize(message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  if (message.method === 'ping') return { jsonrpc: '2.0', id: message.id, result: {} };
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: -32601, message: `Method not found: ${message.method} (send initialize first)` },
  };
}

/**
 * Starts a transport and builds its Server when the client's initialize arrives. Why: the approval mode
 * (and so the tool list and the instructions sent in the initialize result) depends on the capabilities
 * the client declares there, and the SDK fixes a Server's instructions when it is constructed. A request
 * before it is answered here (beforeInitialize); messages that arrive while the Server connects are queued
 * and delivered in order.
 */
export async function serveOnFirstMessage(
  transport: Transport,
  build: (first: JSONRPCMessage) => Server,
  onError: (error: Error) => void,
): Promise<{ server: () => Server | undefined; closed: Promise<void> }> {
  const relay = new Relay(transport);
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const queue: [JSONRPCMessage, MessageExtraInfo | undefined][] = [];
  let server: Server | undefined;
  let ready = false;
  transport.onmessage = (message, extra) => {
    if (ready) {
      relay.onmessage?.(message, extra);
      return;
    }
    if (!server && !isInitializeRequest(message)) {
      const answer = beforeInitialize(message);
      if (answer)
        transport
          .send(answer)
          .catch((error: unknown) => onError(error instanceof Error ? error : new Error(String(error))));
      return;
    }
    queue.push([message, extra]);
    if (server) return;
    try {
      server = build(message);
    } catch (error) {
      onError(error instanceof Error ? error : new Error(String(error)));
      transport.close().catch(() => {});
      return;
    }
    server.connect(relay).then(
      () => {
        ready = true;
        for (const [queued, queuedExtra] of queue.splice(0)) relay.onmessage?.(queued, queuedExtra);
      },
      (error: unknown) => onError(error instanceof Error ? error : new Error(String(error))),
    );
  };
  transport.onclose = () => {
    relay.onclose?.();
    markClosed();
  };
  transport.onerror = (error) => {
    onError(error);
    relay.onerror?.(error);
  };
  await transport.start();
  return { server: () => server, closed };
}
