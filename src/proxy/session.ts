/**
 * One client's session of editgate proxy: an MCP server to the client and an MCP client of the upstream
 * server, mirroring each to the other. The server's capabilities, name and instructions are the upstream
 * server's (plus logging, for editgate's own messages); the client's capabilities (roots, sampling,
 * elicitation) are declared to the upstream server as the proxy's, and its requests for them are relayed
 * to the client. Everything is relayed both ways as it is (requests with their cancellation and progress,
 * notifications, requests of methods the SDK does not know), except tools/call, which tool-call.ts serves,
 * and the server's own questions (elicitation), which reach the client labelled as the server's
 * (server-question.ts).
 */

import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolRequest,
  type ClientCapabilities,
  ErrorCode,
  type InitializeRequest,
  type ListToolsResult,
  type LoggingLevel,
  McpError,
  type ServerCapabilities,
  type ServerNotification,
  SetLevelRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Approver } from '../gate/approval.js';
import type { ConfiguredOptions } from '../tools/config.js';
import { type ApproveMode, createApprovals, type TerminalChannel } from './approvals.js';
import { ToolCatalog } from './catalog.js';
import { ChangeWatch } from './change-watch.js';
import { classifyTool } from './classify.js';
import { FILESYSTEM_ADAPTER, type ServerAdapter } from './filesystem-adapter.js';
import type { ToolOverride } from './overrides.js';
import { asNotification, relayToClient, relayToServer } from './relay.js';
import { labelServerQuestion } from './server-question.js';
import { ToolCallHandler } from './tool-call.js';
import { type UpstreamConnector, UpstreamLink } from './upstream.js';
import { WriteGate } from './write-gate.js';

export type ProxyLogLevel = 'debug' | 'info' | 'warning' | 'error';
export type ProxyLog = (level: ProxyLogLevel, message: string) => void;

export interface ProxyOptions {
  upstream: UpstreamConnector;
  /** Absolute workspace roots: writes outside them are refused. */
  roots: string[];
  /** The config's policy rules, deny globs, hooks and audit log. */
  config: Pick<
    ConfiguredOptions,
    'policy' | 'deny' | 'hooks' | 'auditLog' | 'languageServers' | 'languageServerBudgetMs'
  >;
  /** The config's "proxy" section: what the person says about particular tools. */
  overrides: ToolOverride[];
  /** Undo history folder (the one `editgate undo` reads). */
  stateDir: string;
  approve: ApproveMode;
  /** The person at the terminal the proxy was started from, when there is one. */
  terminal?: TerminalChannel;
  /** --approve web: the review page's approver, for writes (the CLI opens the page). */
  web?: Approver;
  /**
   * --approve auto: the page of an `editgate review` running for the root, looked for at each write the
   * client cannot be asked about (the CLI finds it); undefined when none runs at that moment.
   */
  runningWeb?: () => Promise<Approver | undefined>;
  /** How long a question waits for its answer before counting as a no. Default 10 minutes. */
  approvalTimeoutMs?: number;
  /** Built-in adapters (default: the reference filesystem server's). */
  adapters?: readonly ServerAdapter[];
  log: ProxyLog;
}

/** The review page the approvals look up at each question: the one opened for --approve web, or a running one. */
function webPage(options: ProxyOptions): { web?: () => Promise<Approver | undefined> } {
  const opened = options.web;
  if (opened) return { web: async () => opened };
  return options.runningWeb ? { web: options.runningWeb } : {};
}

export interface ProxySession {
  server: Server;
  close(): Promise<void>;
}

const RANK: Record<string, number> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** `given` with its folder's links resolved, as the watch's scan of the canonical roots finds it. */
function canonical(given: string): string {
  const absolute = resolve(given);
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute; // its folder does not exist yet
  }
}

/** A tools/call's params, checked as far as the proxy reads them (the server checks the rest). */
function callParams(params: unknown): CallToolRequest['params'] {
  const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
  if (
    typeof name !== 'string' ||
    (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
  ) {
    throw new McpError(
      ErrorCode.InvalidParams,
      'tools/call needs a tool name and, optionally, an object of arguments',
    );
  }
  return params as CallToolRequest['params'];
}

/** The client's capabilities as the proxy declares them upstream (task-augmented requests are not relayed). */
function mirroredClientCapabilities(capabilities: ClientCapabilities): ClientCapabilities {
  const { tasks: _tasks, ...rest } = capabilities;
  return rest;
}

function mirroredServerCapabilities(capabilities: ServerCapabilities | undefined): ServerCapabilities {
  const { tasks: _tasks, ...rest } = capabilities ?? {};
  return { ...rest, logging: {} };
}

/**
 * Starts the upstream server for a client that sent `initialize`, and builds the server that answers it.
 * Throws UpstreamUnavailable (with what to do) when the upstream server cannot be started.
 */
export async function openProxySession(
  initialize: InitializeRequest,
  options: ProxyOptions,
): Promise<ProxySession> {
  let server: Server | undefined;
  let catalog: ToolCatalog | undefined;
  let clientLevel: LoggingLevel = 'info';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  /** A line for the log, and for the client when it wants that level. */
  const log: ProxyLog = (level, message) => {
    options.log(level, message);
    if (!server?.transport || RANK[level]! < RANK[clientLevel]!) return;
    server
      .notification({
        method: 'notifications/message',
        params: { level, logger: 'editgate proxy', data: message },
      })
      .catch(() => {});
  };

  const toClient = async (notification: ServerNotification) => {
    await ready;
    await server!.notification(notification).catch((error: unknown) => {
      log(
        'debug',
        `a notification (${notification.method}) could not be passed to the client: ${String(error)}`,
      );
    });
  };

  /** The upstream server as the person knows it, once it has answered initialize. */
  let serverName = options.upstream.describe;
  const install = (client: Client) => {
    client.fallbackRequestHandler = (request, extra) =>
      relayToClient(
        server!,
        ready,
        labelServerQuestion({ method: request.method, params: request.params }, serverName),
        extra,
      ) as never;
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/tools/list_changed') catalog?.invalidate();
      await toClient(asNotification<ServerNotification>(notification));
    };
  };

  const link = new UpstreamLink({
    connector: options.upstream,
    clientInfo: initialize.params.clientInfo,
    capabilities: mirroredClientCapabilities(initialize.params.capabilities),
    install,
    onReconnect: () => {
      catalog?.invalidate();
      const capabilities = link.capabilities;
      if (capabilities.tools) void toClient({ method: 'notifications/tools/list_changed' });
      if (capabilities.resources) void toClient({ method: 'notifications/resources/list_changed' });
      if (capabilities.prompts) void toClient({ method: 'notifications/prompts/list_changed' });
    },
    log: (level, message) => log(level, message),
  });
  const upstream = await link.start();
  const info = upstream.getServerVersion() ?? { name: 'upstream', version: '0' };
  const capabilities = mirroredServerCapabilities(upstream.getServerCapabilities());
  serverName = info.title ?? info.name;
  const instructions = upstream.getInstructions();

  server = new Server(
    {
      name: info.name,
      version: info.version,
      title: `${serverName} (through editgate proxy)`,
    },
    { capabilities, ...(instructions ? { instructions } : {}) },
  );
  const downstream = server;

  const approvals = createApprovals({
    mode: options.approve,
    clientCanElicit: () => Boolean(downstream.getClientCapabilities()?.elicitation?.form),
    elicit: (params, requestOptions) => downstream.elicitInput(params, requestOptions),
    ...(options.terminal ? { terminal: options.terminal } : {}),
    ...webPage(options),
    server: serverName,
    timeoutMs: options.approvalTimeoutMs ?? 10 * 60_000,
  });
  const writeGate = await WriteGate.create({
    roots: options.roots,
    config: options.config,
    stateDir: options.stateDir,
    approve: approvals.change,
    server: serverName,
  });
  const adapters = options.adapters ?? [FILESYSTEM_ADAPTER];
  const seenSchemaChange = new Set<string>();
  catalog = new ToolCatalog(
    (tool) =>
      classifyTool(tool, {
        server: info.name,
        adapters,
        overrides: options.overrides,
        onSchemaChange: (name, adapter) => {
          if (seenSchemaChange.has(name)) return;
          seenSchemaChange.add(name);
          log(
            'warning',
            `${name}'s input schema is not the one ${adapter.label} knows, so the adapter is off for it and the generic rules apply`,
          );
        },
      }),
    async () => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = (await link.request({
          method: 'tools/list',
          params: cursor ? { cursor } : {},
        })) as ListToolsResult;
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    },
  );
  // The roots as the guard knows them (canonical), so the paths the watch finds are the guard's paths.
  const roots = options.roots.map((root) => realpathSync(root));
  const watch = new ChangeWatch({
    roots,
    ignore: [options.stateDir, ...(options.config.auditLog ? [options.config.auditLog] : [])].map(canonical),
    onNotice: (message) => log('warning', message),
  });
  const tools = new ToolCallHandler({
    watch,
    roots,
    link,
    catalog,
    writeGate,
    approvals,
    server: serverName,
    grantedTools: new Set(),
    report: (message) => {
      log('warning', message);
      // The terminal is the person's screen only when questions go there (else it may be the client's).
      if (approvals.channel().name === 'terminal') options.terminal?.notify(message);
    },
  });

  // The client's level applies to editgate's own messages here, and to the server's there.
  server.removeRequestHandler('logging/setLevel');
  server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
    clientLevel = request.params.level;
    if (link.capabilities.logging) await relayToServer(link, request, extra);
    return {};
  });
  // Every request but setLevel is served here, tools/list and tools/call included: registering them would
  // have the SDK check each request and result against its schemas three times over (the client checks the
  // result itself), which was a fifth of the relay's cost.
  server.fallbackRequestHandler = async (request, extra) => {
    const relayed = { method: request.method, params: request.params };
    if (capabilities.tools && request.method === 'tools/call') {
      const result = await tools.handle(callParams(request.params), extra);
      // What a session review reverted, and why, goes to the model with the next call's result, once.
      const reviewed = await writeGate.takeReviewNote();
      return (
        reviewed ? { ...result, content: [...result.content, { type: 'text', text: reviewed }] } : result
      ) as never;
    }
    const result = await relayToServer(link, relayed, extra);
    if (capabilities.tools && request.method === 'tools/list') {
      const page = result as ListToolsResult;
      if (Array.isArray(page.tools)) catalog?.learn(page.tools, page.nextCursor === undefined);
    }
    return result as never;
  };
  server.fallbackNotificationHandler = async (notification) => {
    if (!link.connected) return;
    const client = await link.client();
    await client.notification(asNotification(notification)).catch((error: unknown) => {
      log(
        'debug',
        `a notification (${notification.method}) could not be passed to the server: ${String(error)}`,
      );
    });
  };
  server.oninitialized = () => {
    markReady();
    const channel = approvals.channel();
    const client = downstream.getClientVersion();
    log(
      'info',
      `${client ? `${client.name} ${client.version}` : 'the client'} connected through editgate proxy to ${serverName}; questions: ${channel.name} (${channel.why})`,
    );
  };
  return {
    server,
    close: async () => {
      watch.close();
      await link.close();
    },
  };
}
