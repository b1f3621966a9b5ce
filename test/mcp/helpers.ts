/**
 * End-to-end helpers: a real SDK Client talking to the built `editgate mcp` (dist/cli/main.js) over stdio
 * or Streamable HTTP, using the build (see ../built-cli.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

import { RESULT_META_KEY } from '../../src/mcp/result.js';
import { MAIN } from '../built-cli.js';
import { tempFolder, workerTempFolder } from '../temp-folder.js';
import { trustConfig } from '../trusted-config.js';

export { ensureBuilt, MAIN, REPO } from '../built-cli.js';

/**
 * The servers' state folder (history, config trust records): a temp folder, never the real home (kept while the
 * worker runs: the files that share a worker share it).
 */
export const STATE_DIR = workerTempFolder('editgate-mcp-state-');

/**
 * A fresh temporary workspace (its real path, so results compare cleanly) with the given files. A config
 * file among them is trusted, as its author would have (tests of an untrusted one write it afterwards).
 */
export function workspace(files: Record<string, string | Buffer> = {}): string {
  const root = tempFolder('editgate-mcp-');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  if (Object.hasOwn(files, 'editgate.config.json'))
    trustConfig(join(root, 'editgate.config.json'), STATE_DIR);
  return root;
}

/**
 * The environment a spawned server runs in: its state folder (undo history, kept there by default, and the
 * config trust records workspace() writes) is STATE_DIR, never the real home.
 */
export function serverEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, EDITGATE_STATE_DIR: STATE_DIR, ...extra })) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}

export const ALLOW_ALL_CONFIG = JSON.stringify({ policy: { rules: [{ action: 'allow' }] } });

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  close(): Promise<void>;
}

/** Spawns `editgate mcp <args>` and connects a real SDK client to it. */
export async function connectStdio(
  args: string[],
  options: {
    capabilities?: ClientCapabilities;
    /** The name and version the client gives in initialize (the server tells known clients apart by it). */
    clientInfo?: { name: string; version: string };
    setup?: (client: Client) => void;
    env?: Record<string, string>;
  } = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp', ...args],
    stderr: 'pipe',
    env: options.env ?? serverEnv(),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(options.clientInfo ?? { name: 'editgate-test', version: '1.0.0' }, {
    capabilities: options.capabilities ?? {},
  });
  options.setup?.(client);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, close: () => client.close() };
}

/**
 * Calls a tool and returns the result with its text and its data at hand: `structured` is the library's
 * ToolResult again, the text as its message and the rest from `_meta["editgate/result"]`.
 */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  const data = result._meta?.[RESULT_META_KEY] as
    | { ok: boolean; code?: string; details: Record<string, unknown> }
    | undefined;
  const structured = data && { ...data, message: text };
  return { result, text, structured, isError: result.isError === true };
}

/** The apply_change arguments for a staged change: its id, file and change hash, as the proposal states them. */
export function applyArgs(details: Record<string, unknown> | undefined): Record<string, unknown> {
  return { change_id: details?.changeId, file_path: details?.path, change_hash: details?.changeHash };
}

/** Spawns `editgate mcp --http 0 ...` and waits for the URL (and the token) it prints on stderr. */
export async function startHttpServer(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, 'mcp', '--http', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: serverEnv(env),
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /serving Streamable HTTP at (http:\/\/\S+?):?\s/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
  });
  // The token the server made and printed (or the one given it): --http always has one unless --no-token.
  const token = /bearer token: (\S+)/.exec(stderr)?.[1] ?? env.EDITGATE_MCP_TOKEN;
  return {
    url,
    token,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
