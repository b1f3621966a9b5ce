/**
 * Serving one client over a transport (stdio for `editgate proxy`, in-memory in tests). The session can be
 * built only once the client's `initialize` is in: its capabilities are what the proxy declares to the
 * upstream server, and the upstream server's answer is what the proxy declares to the client. Messages
 * that arrive meanwhile wait, in order. If the upstream server cannot be started, the client's initialize
 * gets an error that says why and what to do.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type InitializeRequest,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { openProxySession, type ProxyOptions, type ProxySession } from './session.js';

/** Hands the session's Server a transport that is already running. */
class Attached implements Transport {
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

export interface RunningProxy {
  /** Resolves when the client has gone or close() was called (the upstream server is stopped by then). */
  closed: Promise<void>;
  close(): Promise<void>;
  /** The session's server, once the client has initialized. */
  server(): Server | undefined;
}

export async function serveProxy(transport: Transport, options: ProxyOptions): Promise<RunningProxy> {
  const attached = new Attached(transport);
  const queue: Array<[JSONRPCMessage, MessageExtraInfo | undefined]> = [];
  let session: ProxySession | undefined;
  let opening = false;
  let ready = false;
  let gone = false;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  const refuse = (message: JSONRPCMessage, code: number, text: string) => {
    if (!isJSONRPCRequest(message)) return;
    transport.send({ jsonrpc: '2.0', id: message.id, error: { code, message: text } }).catch(() => {});
  };

  const open = (first: InitializeRequest & { jsonrpc: '2.0'; id: string | number }) => {
    opening = true;
    openProxySession(first, options).then(
      async (opened) => {
        session = opened;
        // The client left while the upstream server was starting: stop it again.
        if (gone) return void (await opened.close());
        await opened.server.connect(attached);
        ready = true;
        for (const [message, extra] of queue.splice(0)) attached.onmessage?.(message, extra);
      },
      (error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        options.log('error', text);
        queue.length = 0;
        opening = false;
        refuse(first, ErrorCode.InternalError, text);
      },
    );
  };

  transport.onmessage = (message, extra) => {
    if (ready) {
      attached.onmessage?.(message, extra);
      return;
    }
    if (opening) {
      queue.push([message, extra]);
      return;
    }
    if (!isInitializeRequest(message)) {
      refuse(message, ErrorCode.InvalidRequest, 'The first request must be initialize.');
      return;
    }
    queue.push([message, extra]);
    open(message as InitializeRequest & { jsonrpc: '2.0'; id: string | number });
  };
  transport.onclose = () => {
    gone = true;
    attached.onclose?.();
    void (session?.close() ?? Promise.resolve()).finally(markClosed);
  };
  transport.onerror = (error) => {
    options.log('error', `protocol error: ${error.message}`);
    attached.onerror?.(error);
  };
  await transport.start();
  return {
    closed,
    close: () => transport.close(),
    server: () => session?.server,
  };
}
