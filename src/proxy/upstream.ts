/**
 * The proxy's side as a client of the real server: how to reach it (a child process over stdio, or
 * Streamable HTTP), and the link that keeps one SDK Client connected to it. When the server goes away (it
 * crashed, or an HTTP server forgot the session), requests under way fail with a message that says what
 * happened and what to do; the next request starts it again (or reconnects), so the proxy stays up.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ClientCapabilities,
  ErrorCode,
  type Implementation,
  McpError,
  type Result,
  ResultSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { type ChildSpec, ChildTransport } from './child-transport.js';
import { shellWord } from './shell-words.js';

/** How to reach the upstream server; `open` gives a new, unstarted transport each time. */
export interface UpstreamConnector {
  /** The server as the person configured it (command line or URL), for messages. */
  describe: string;
  /** `restart` for a process editgate starts again; `reconnect` for a server it connects to again. */
  recovery: 'restart' | 'reconnect';
  open(): { transport: Transport; ended: () => string | undefined };
}

export function stdioUpstream(spec: ChildSpec): UpstreamConnector {
  return {
    describe: [spec.command, ...spec.args].map(shellWord).join(' '),
    recovery: 'restart',
    open() {
      const transport = new ChildTransport(spec);
      return { transport, ended: () => transport.describeExit() };
    },
  };
}

export function httpUpstream(url: URL, headers: Record<string, string> = {}): UpstreamConnector {
  return {
    describe: url.href,
    recovery: 'reconnect',
    open: () => ({
      transport: new StreamableHTTPClientTransport(url, { requestInit: { headers } }),
      ended: () => undefined,
    }),
  };
}

/** The upstream server could not be reached, or went away during a request; the message says what to do. */
export class UpstreamUnavailable extends Error {
  override readonly name = 'UpstreamUnavailable';
}

/** Longest wait the SDK's timer allows: the client's own timeout and cancellation govern, not ours. */
export const NO_TIMEOUT = 2_147_483_647;

interface Connection {
  client: Client;
  ended: () => string | undefined;
  /** Set when the connection closed: how it ended. */
  lost?: string;
}

export interface LinkOptions {
  connector: UpstreamConnector;
  /** Who the proxy says it is to the server (the client's own name: servers may adapt to it). */
  clientInfo: Implementation;
  /** The client's capabilities (sampling, elicitation, roots), mirrored so the server may use them. */
  capabilities: ClientCapabilities;
  /** Sets up each new Client before it connects (relays of the server's requests and notifications). */
  install: (client: Client) => void;
  /** Told after the server was started again (its lists may have changed). */
  onReconnect?: () => void;
  log: (level: 'info' | 'warning' | 'error', message: string) => void;
}

export class UpstreamLink {
  private connection?: Connection;
  private connecting?: Promise<Connection>;
  private closing = false;

  constructor(private readonly options: LinkOptions) {}

  /** The first connection; UpstreamUnavailable (saying why) when the server cannot be started or reached. */
  async start(): Promise<Client> {
    return (await this.connect(false)).client;
  }

  /** The connected client, after starting the server again if it went away. */
  async client(): Promise<Client> {
    const current = this.connection;
    if (current && current.lost === undefined) return current.client;
    return (await this.connect(true)).client;
  }

  /** What the server (as last connected) says it can do. */
  get capabilities(): ServerCapabilities {
    return this.connection?.client.getServerCapabilities() ?? {};
  }

  /** Whether the server is connected now. */
  get connected(): boolean {
    return this.connection !== undefined && this.connection.lost === undefined;
  }

  /**
   * A request to the server with no timeout of ours. A lost connection becomes UpstreamUnavailable whose
   * message says what happened; the server's own errors pass as they are.
   */
  async request(
    request: { method: string; params?: Record<string, unknown> },
    options: Pick<RequestOptions, 'signal' | 'onprogress'> = {},
  ): Promise<Result> {
    const client = await this.client();
    const connection = this.connection!;
    try {
      return await client.request(request as Parameters<Client['request']>[0], ResultSchema, {
        ...options,
        timeout: NO_TIMEOUT,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
      // Anything but an MCP error is the transport failing (an HTTP server gone, a broken pipe).
      if (!closed && connection.lost === undefined && error instanceof McpError) throw error;
      this.markLost(connection, error);
      throw new UpstreamUnavailable(this.lostMessage(connection));
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.connection?.client.close().catch(() => {});
  }

  private markLost(connection: Connection, error?: unknown): void {
    if (connection.lost !== undefined) return;
    connection.lost =
      connection.ended() ?? (error instanceof Error ? `failed (${error.message})` : 'closed the connection');
    void connection.client.close().catch(() => {});
  }

  private lostMessage(connection: Connection): string {
    const { describe, recovery } = this.options.connector;
    const again =
      recovery === 'restart'
        ? 'starts it again at the next request'
        : 'connects to it again at the next request';
    return `The upstream MCP server (${describe}) stopped while this request was under way. editgate proxy is still running and ${again}. Whether the call took effect is unknown: check before repeating it. What happened: it ${connection.lost ?? 'went away'}.`;
  }

  private connect(again: boolean): Promise<Connection> {
    this.connecting ??= this.open(again).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(again: boolean): Promise<Connection> {
    const { connector, log } = this.options;
    const { transport, ended } = connector.open();
    const client = new Client(this.options.clientInfo, { capabilities: this.options.capabilities });
    this.options.install(client);
    const connection: Connection = { client, ended };
    client.onclose = () => {
      if (connection.lost !== undefined) return;
      connection.lost = ended() ?? 'closed the connection';
      if (!this.closing) log('warning', `the upstream server (${connector.describe}) ${connection.lost}`);
    };
    try {
      await client.connect(transport, { timeout: 60_000 });
    } catch (error) {
      await client.close().catch(() => {});
      const why = ended() ?? (error instanceof Error ? error.message : String(error));
      const fix =
        connector.recovery === 'restart'
          ? 'Check the command after -- in the client’s configuration of editgate proxy, then restart this MCP server in the client.'
          : 'Check that the server is running at that address, then restart this MCP server in the client.';
      throw new UpstreamUnavailable(
        `editgate proxy could not ${again ? 'start the upstream MCP server again' : 'start the upstream MCP server'} (${connector.describe}): ${why}. ${fix}${again ? ' editgate proxy keeps running and tries again at the next request.' : ''}`,
      );
    }
    this.connection = connection;
    if (again) {
      log('info', `the upstream server (${connector.describe}) is running again`);
      this.options.onReconnect?.();
    }
    return connection;
  }
}
