import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serveOnFirstMessage } from './first-message.js';
import type { McpServeOptions } from './options.js';
import { createSessionServer } from './session-server.js';

export interface RunningServer {
  /** Resolves when the client has gone (stdin closed) or close() was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * One session over stdin/stdout. stdout carries only protocol messages: every log line goes to stderr
 * and to the client as logging notifications.
 */
export async function serveStdio(options: McpServeOptions): Promise<RunningServer> {
  // The SDK closes the connection when one message outgrows its buffer. Leave room above the argument
  // limit so that oversized arguments get a TOO_LARGE tool result instead.
  const maxBufferSize = options.maxInputBytes * 4 + 1024 * 1024;
  const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize });
  const { closed } = await serveOnFirstMessage(
    transport,
    (first) => createSessionServer(first, options),
    (error) => options.log.error(`protocol error: ${error.message}`),
  );
  const close = () => transport.close();
  // The SDK's stdio transport does not notice the client going away; the end of stdin is that.
  process.stdin.once('end', () => void close());
  process.stdout.once('error', () => void close());
  return { closed, close };
}
