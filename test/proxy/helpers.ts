/**
 * The proxy in process: a real SDK Client (the "client", e.g. Claude) talks to serveProxy over the SDK's
 * in-memory transport, and the proxy talks to an upstream server that is either a real process (the
 * reference filesystem server) or an SDK server in this process (over another in-memory pair, made anew
 * each time the proxy connects, as a restarted process would be).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolResult,
  type ClientCapabilities,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { type RunningProxy, serveProxy } from '../../src/proxy/serve.js';
import type { ProxyLogLevel, ProxyOptions } from '../../src/proxy/session.js';
import { stdioUpstream, type UpstreamConnector } from '../../src/proxy/upstream.js';
import { onCleanup } from '../cleanup.js';

const require = createRequire(import.meta.url);
/** The reference filesystem server's entry point (the pinned devDependency). */
export const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

export { onCleanup };

/** A temp folder (its real path) with the given files, and a state folder beside it; removed after the test. */
export function workspace(files: Record<string, string | Buffer> = {}): { root: string; state: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-proxy-')));
  const root = join(base, 'project');
  mkdirSync(root);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  const state = join(base, 'state');
  onCleanup(() => rmSync(base, { recursive: true, force: true }));
  return { root, state };
}

/** An upstream that is an SDK server in this process; `build` makes a fresh one for every connection. */
export function inProcessUpstream(
  build: () => McpServer,
  describe = 'the test server',
): UpstreamConnector & {
  /** The server side of the latest connection, to break it as a crash would. */
  latest(): InMemoryTransport | undefined;
  connections(): number;
} {
  let latest: InMemoryTransport | undefined;
  let count = 0;
  return {
    describe,
    recovery: 'restart',
    latest: () => latest,
    connections: () => count,
    open() {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      latest = serverSide;
      count++;
      const server = build();
      void server.connect(serverSide);
      return { transport: clientSide, ended: () => undefined };
    },
  };
}

/** The reference filesystem server on `root`, started as a real process. */
export function filesystemUpstream(root: string): UpstreamConnector {
  return stdioUpstream({ command: process.execPath, args: [FILESYSTEM_SERVER, root], onStderr: () => {} });
}

export interface Logged {
  level: ProxyLogLevel;
  message: string;
}

/** An answer script for the client's elicitation: each question gets the next answer (or a function's). */
export type Answer = ElicitResult | ((message: string) => ElicitResult);

export interface Connected {
  client: Client;
  proxy: RunningProxy;
  /** The messages of every elicitation the client was shown, in order. */
  questions: string[];
  /** The decisions each of those questions offered (its form's "decision" choices), in order. */
  offered: string[][];
  /** Each question's form fields (its requested schema's properties), in order. */
  fields: Record<string, unknown>[];
  logged: Logged[];
  /** Answers still to give. */
  answers: Answer[];
}

export function allowOnce(): ElicitResult {
  return { action: 'accept', content: { decision: 'Allow once' } };
}

export function deny(reason?: string): ElicitResult {
  return { action: 'accept', content: { decision: 'Deny', ...(reason ? { reason } : {}) } };
}

/** Connects a real SDK client to a proxy in process. `elicit` false: a client without elicitation. */
export async function connectProxy(
  options: Partial<ProxyOptions> & Pick<ProxyOptions, 'upstream' | 'roots' | 'stateDir'>,
  client: {
    capabilities?: ClientCapabilities;
    answers?: Answer[];
    setup?: (client: Client) => void;
  } = {},
): Promise<Connected> {
  const logged: Logged[] = [];
  const questions: string[] = [];
  const offered: string[][] = [];
  const fields: Record<string, unknown>[] = [];
  const answers = [...(client.answers ?? [])];
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const proxy = await serveProxy(serverSide, {
    config: {},
    overrides: [],
    approve: 'auto',
    log: (level, message) => logged.push({ level, message }),
    ...options,
  });
  const capabilities = client.capabilities ?? { elicitation: { form: {} } };
  const sdkClient = new Client({ name: 'proxy-test-client', version: '1.0.0' }, { capabilities });
  if (capabilities.elicitation) {
    sdkClient.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(request.params.message);
      const schema = 'requestedSchema' in request.params ? request.params.requestedSchema : undefined;
      const decision = schema?.properties.decision as { enum?: string[] } | undefined;
      offered.push(decision?.enum ?? []);
      fields.push(schema?.properties ?? {});
      const answer = answers.shift();
      if (!answer) return { action: 'decline' };
      return typeof answer === 'function' ? answer(request.params.message) : answer;
    });
  }
  client.setup?.(sdkClient);
  await sdkClient.connect(clientSide);
  onCleanup(async () => {
    await sdkClient.close();
    await proxy.closed;
  });
  return { client: sdkClient, proxy, questions, offered, fields, logged, answers };
}

/** A tool call's result with its text joined. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  return { result, text, isError: result.isError === true };
}
