/**
 * Serving one client over a transport (stdio for `editgate proxy`, in-memory in tests). The session can be
 * built only once the client's `initialize` is in: its capabilities are what the proxy declares to the
 * upstream server, and the upstream server's answer is what the proxy declares to the client. So the
 * transport is started here, messages that arrive while the upstream server starts wait in order, and the
 * session's Server is then connected to the running transport. If the upstream server cannot be started,
 * the client's initialize gets an error that says why and what to do.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type InitializeRequest,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { openProxySession, type ProxyOptions, type ProxySession } from './session.js';

export interface RunningProxy {
  /** Resolves when the client has gone or close() was called (the upstream server is stopped by then). */
  closed: Promise<void>;
  close(): Promise<void>;
  /** The session's server, once the client has initialized. */
  server(): Server | undefined;
}

export async function serveProxy(transport: Transport, options: ProxyOptions): Promise<RunningProxy> {
  const waiting: Array<[JSONRPCMessage, MessageExtraInfo | undefined]> = [];
  let session: ProxySession | undefined;
  let opening = false;
  let connected = false;
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
        // The Server connects to the transport already running: its start is done. The SDK keeps the
        // handlers set below and calls them before its own, so they must let every message through now.
        transport.start = async () => {};
        await opened.server.connect(transport);
        connected = true;
        for (const [message, extra] of waiting.splice(0)) transport.onmessage?.(message, extra);
      },
      (error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        options.log('error', text);
        waiting.length = 0;
        opening = false;
        refuse(first, ErrorCode.InternalError, text);
      },
    );
  };

  transport.onmessage = (message, extra) => {
    if (connected) return;
    if (opening) {
      waiting.push([message, extra]);
      return;
    }
    if (!isInitializeRequest(message)) {
      refuse(message, ErrorCode.InvalidRequest, 'The first request must be initialize.');
      return;
    }
    waiting.push([message, extra]);
    open(message as InitializeRequest & { jsonrpc: '2.0'; id: string | number });
  };
  transport.onclose = () => {
    gone = true;
    void (session?.close() ?? Promise.resolve()).finally(markClosed);
  };
  transport.onerror = (error) => options.log('error', `protocol error: ${error.message}`);
  await transport.start();
  return {
    closed,
    close: () => transport.close(),
    server: () => session?.server,
  };
}
