/**
 * End-to-end helpers: a real SDK Client talking to the built `editgate mcp` (dist/cli/main.js) over stdio
 * or Streamable HTTP. There is no TypeScript runner for the child process, so the tests use the build:
 * ensureBuilt() runs `tsc -p tsconfig.build.json` once when dist/cli/main.js is missing or older than any
 * file under src/ (test files run in parallel processes, so a lock folder makes them build one at a time).
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MAIN = join(REPO, 'dist', 'cli', 'main.js');

function newestMtime(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  try {
    return statSync(MAIN).mtimeMs >= newestMtime(join(REPO, 'src'));
  } catch {
    return false;
  }
}

export async function ensureBuilt(): Promise<void> {
  if (isFresh()) return;
  const lock = join(tmpdir(), `editgate-build-${Buffer.from(REPO).toString('hex').slice(-32)}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (isFresh()) return;
    try {
      execFileSync(join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
        cwd: REPO,
        stdio: 'pipe',
      });
    } catch {
      // Type errors elsewhere in the tree still emit JavaScript; what matters is that main.js exists.
    }
    statSync(MAIN);
  } finally {
    rmdirSync(lock);
  }
}

/** A fresh temporary workspace (its real path, so results compare cleanly) with the given files. */
export function workspace(files: Record<string, string | Buffer> = {}): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-mcp-')));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  return root;
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
  options: { capabilities?: ClientCapabilities; setup?: (client: Client) => void } = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp', ...args],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(
    { name: 'editgate-test', version: '1.0.0' },
    { capabilities: options.capabilities ?? {} },
  );
  options.setup?.(client);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, close: () => client.close() };
}

/** Calls a tool and returns the result with its text and structured content at hand. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  const structured = result.structuredContent as
    | { ok: boolean; code?: string; message: string; details: Record<string, unknown> }
    | undefined;
  return { result, text, structured, isError: result.isError === true };
}

/** Spawns `editgate mcp --http 0 ...` and waits for the URL it prints on stderr. */
export async function startHttpServer(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, 'mcp', '--http', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
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
  return {
    url,
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
