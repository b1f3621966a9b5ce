/**
 * `editgate proxy` as a client starts it: the built CLI as a process, a real SDK client on its stdio, the
 * upstream server a real process (or a real Streamable HTTP server), and `editgate undo` run afterwards as
 * a person would, with the state folder in a temp folder (EDITGATE_STATE_DIR).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync as write } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { answerOnPage, LINK, listedChanges, pendingPageHtml } from '../web/page-api.js';
import { FILESYSTEM_SERVER, onCleanup, workspace } from './helpers.js';

const run = promisify(execFile);
const CRASHY = join(import.meta.dirname, 'fixtures', 'crashy-server.mjs');

beforeAll(ensureBuilt, 120_000);

/** The environment of every editgate process of a test: its own state folder, nothing else of ours. */
function environment(state: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'EDITGATE_STATE_DIR') env[key] = value;
  }
  return { ...env, EDITGATE_STATE_DIR: join(state, 'editgate') };
}

async function startProxy(args: string[], state: string, answers: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'proxy', ...args],
    env: environment(state),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const questions: string[] = [];
  const client = new Client(
    { name: 'cli-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    questions.push(request.params.message);
    const decision = answers.shift();
    return decision ? { action: 'accept', content: { decision } } : { action: 'decline' };
  });
  await client.connect(transport);
  onCleanup(() => client.close());
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return {
      isError: result.isError === true,
      text: result.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n'),
    };
  };
  return { client, call, questions, stderr: () => stderr };
}

describe('editgate proxy -- COMMAND', () => {
  it('wraps the filesystem server; an approved write is undone by editgate undo', async () => {
    const { root, state } = workspace({ 'notes.md': '# Notes\n' });
    const proxy = await startProxy(['--root', root, '--', process.execPath, FILESYSTEM_SERVER, root], state, [
      'Allow once',
    ]);
    expect(proxy.client.getServerVersion()?.name).toBe('secure-filesystem-server');
    const result = await proxy.call('write_file', {
      path: join(root, 'notes.md'),
      content: '# Notes\n\n- one\n',
    });
    expect(result.isError).toBe(false);
    expect(proxy.questions[0]).toContain('write_file wants to change notes.md (+2 -0)');
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('# Notes\n\n- one\n');

    // As the proxy words it when a write differs: from any folder, with the root and the absolute path.
    const undone = await run(
      process.execPath,
      [MAIN, 'undo', '--root', root, join(root, 'notes.md'), '--yes'],
      {
        env: environment(state),
      },
    );
    expect(undone.stderr + undone.stdout).toContain('notes.md');
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('# Notes\n');
  });

  it('an upstream crash: the client gets what happened and what to do; the next call runs on a new server', async () => {
    const { root, state } = workspace();
    const proxy = await startProxy(['--root', root, '--', process.execPath, CRASHY], state);
    const before = await proxy.call('pid');
    const crashed = await proxy.call('crash');
    expect(crashed.isError).toBe(true);
    expect(crashed.text).toContain(`The upstream MCP server (${process.execPath} ${CRASHY}) stopped`);
    expect(crashed.text).toContain('editgate proxy is still running and starts it again at the next request');
    expect(crashed.text).toContain('What happened: it exited with code 3; the end of its error output:');
    expect(crashed.text).toContain('TypeError: cannot read properties of undefined');
    const after = await proxy.call('pid');
    expect(after.isError).toBe(false);
    expect(after.text).not.toBe(before.text);
  });
});

/**
 * A Streamable HTTP MCP server in this process whose save_file tool writes the temp folder; `forget` drops
 * its sessions, as a restarted server would.
 */
async function httpServer(): Promise<{ url: string; forget: () => Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const body = async (request: IncomingMessage) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    return text ? JSON.parse(text) : undefined;
  };
  const http = createServer(async (request, response) => {
    const id = request.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport!),
      });
      const server = new McpServer({ name: 'http-notes', version: '1.0.0' });
      server.registerTool(
        'save_file',
        { inputSchema: { path: z.string(), content: z.string() } },
        async (args) => {
          write(args.path, args.content);
          return { content: [{ type: 'text', text: 'saved' }] };
        },
      );
      await server.connect(transport);
    }
    await transport.handleRequest(
      request,
      response,
      request.method === 'POST' ? await body(request) : undefined,
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => http.close(() => resolve())));
  onCleanup(async () => {
    for (const transport of sessions.values()) await transport.close();
  });
  const forget = async () => {
    for (const transport of sessions.values()) await transport.close();
    sessions.clear();
  };
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, forget };
}

describe('editgate proxy --upstream URL', () => {
  it('wraps a Streamable HTTP server the same way', async () => {
    const { root, state } = workspace();
    const { url, forget } = await httpServer();
    const proxy = await startProxy(['--root', root, '--upstream', url, '--header', 'X-Test: 1'], state, [
      'Deny',
      'Allow once',
    ]);
    const target = join(root, 'out.txt');
    const denied = await proxy.call('save_file', { path: target, content: 'x\n' });
    expect(denied).toMatchObject({ isError: true });
    expect(proxy.questions[0]).toContain('http-notes › save_file wants to create out.txt (+1 -0)');
    const allowed = await proxy.call('save_file', { path: target, content: 'x\n' });
    expect(allowed).toMatchObject({ isError: false, text: 'saved' });
    expect(readFileSync(target, 'utf8')).toBe('x\n');

    // The server forgets the session (it was restarted): the call says so, the next one reconnects.
    await forget();
    const lost = await proxy.call('save_file', { path: target, content: 'x\n' });
    expect(lost.isError).toBe(true);
    expect(lost.text).toContain(`The upstream MCP server (${url}) stopped while this request was under way`);
    expect(lost.text).toContain('connects to it again at the next request');
    expect(await proxy.call('save_file', { path: target, content: 'x\n' })).toMatchObject({ isError: false });
  });
});

describe('the command line', () => {
  it.each([
    [[], 'give the server to wrap: -- COMMAND ARGS (a stdio server) or --upstream URL'],
    [['--upstream', 'ftp://x'], '--upstream must be an http:// or https:// URL (got "ftp://x")'],
    [['--header', 'X: 1', '--', 'node'], '--header applies only with --upstream'],
    [['--upstream', 'http://x/mcp', '--', 'node'], 'give either --upstream URL or -- COMMAND, not both'],
    [
      ['--approve', 'maybe', '--', 'node'],
      '--approve must be one of auto, elicit, terminal, web, policy (got "maybe")',
    ],
    [['server.js'], "unexpected server.js: the server's command goes after --"],
  ])('%j is refused (exit 2) with what to do', async (args, message) => {
    const failed = await run(process.execPath, [MAIN, 'proxy', ...args]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect('code' in failed && failed.code).toBe(2);
    expect((failed as { stderr: string }).stderr).toContain(`editgate proxy: ${message}`);
  });

  it('a root that does not exist, or a bad proxy section in the config, stops it at start-up', async () => {
    const { root } = workspace({
      'editgate.config.json': JSON.stringify({ proxy: { tools: [{ tool: 'x' }] } }),
    });
    const missing = await run(process.execPath, [
      MAIN,
      'proxy',
      '--root',
      join(root, 'nope'),
      '--',
      'node',
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(missing).toMatchObject({ code: 2 });
    expect((missing as { stderr: string }).stderr).toContain('is not an existing folder');
    const bad = await run(process.execPath, [MAIN, 'proxy', '--root', root, '--', 'node']).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain('proxy.tools.0: give exactly one of');
  });
});

describe('editgate proxy --approve web', () => {
  it('asks about a write on the review page (its link logged), without offering edits; the page’s answer counts', async () => {
    const { root, state } = workspace({ 'notes.md': '# Notes\n' });
    // A client that could show a form: with --approve web it is still never asked about a write.
    const proxy = await startProxy(
      ['--root', root, '--approve', 'web', '--', process.execPath, FILESYSTEM_SERVER, root],
      state,
      ['Allow once'],
    );
    while (!LINK.test(proxy.stderr())) await new Promise((resolve) => setTimeout(resolve, 20));
    const link = LINK.exec(proxy.stderr())![0];
    expect(proxy.stderr()).toContain(`Review changes in your browser: ${link}`);

    const denied = proxy.call('write_file', { path: join(root, 'notes.md'), content: '# Notes\n\n- one\n' });
    // The page gets the diff without the texts: no Edit button, so no version of the person's that the
    // server could not write.
    const html = await pendingPageHtml(link);
    expect(html).toContain('notes.md');
    expect(html).toContain('class="file"');
    expect(html).not.toContain('class="edit"');
    const { answer } = await answerOnPage(link, { decision: 'deny', reason: 'not now' });
    expect(answer.status).toBe(200);
    const result = await denied;
    expect(result.isError).toBe(true);
    expect(result.text).toContain('not now');
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('# Notes\n');
    expect(proxy.questions).toEqual([]);

    expect((await listedChanges(link))[0]).toMatchObject({ status: 'answered' });

    const allowed = proxy.call('write_file', { path: join(root, 'notes.md'), content: '# Notes\n\n- two\n' });
    expect((await answerOnPage(link, { decision: 'once' })).answer.status).toBe(200);
    expect((await allowed).isError).toBe(false);
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('# Notes\n\n- two\n');
  });
});
