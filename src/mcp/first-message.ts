import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

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
 * Starts a transport and builds its Server when the first message arrives. Why: the approval mode (and so
 * the tool list and the instructions sent in the initialize result) depends on the capabilities the
 * client declares in that first message, and the SDK fixes a Server's instructions when it is constructed.
 * Messages that arrive while the Server connects are queued and delivered in order.
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
