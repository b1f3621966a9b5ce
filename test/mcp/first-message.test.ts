/**
 * A client that probes before initialize (Claude Code 2.1.332 sends MCP 2026-07-28's `server/discover`
 * first) still gets the approval mode its initialize asks for (#28): the probe is answered "method not
 * found", the session is built from initialize. On the old code the probe built the session without
 * capabilities: "an unnamed client", preview, and apply_change offered to a client that shows forms.
 * The built server over raw stdio, the messages as Claude Code sent them.
 */
import { spawn } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, serverEnv, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function serve() {
  const child = spawn(process.execPath, [MAIN, 'mcp', workspace({ 'a.txt': 'a\n' })], { env: serverEnv() });
  stops.push(() => child.kill());
  const messages: Record<string, unknown>[] = [];
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (let end = stdout.indexOf('\n'); end !== -1; end = stdout.indexOf('\n')) {
      messages.push(JSON.parse(stdout.slice(0, end)) as Record<string, unknown>);
      stdout = stdout.slice(end + 1);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const answer = async (id: unknown) => {
    for (;;) {
      const found = messages.find((message) => message.id === id);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return {
    send: (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`),
    answer,
    stderr: () => stderr,
  };
}

const CLIENT_INFO = { name: 'claude-code', title: 'Claude Code', version: '2.1.332' };
const CAPABILITIES = { roots: { listChanged: true }, elicitation: { form: {}, url: {} } };

describe('requests before initialize', () => {
  it("a server/discover probe is answered 'method not found', and initialize's capabilities choose elicit", async () => {
    const server = serve();
    server.send({
      jsonrpc: '2.0',
      id: 'server-discover-probe-1',
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
          'io.modelcontextprotocol/clientCapabilities': CAPABILITIES,
        },
      },
    });
    const probe = await server.answer('server-discover-probe-1');
    expect(probe.error).toMatchObject({ code: -32601 });
    server.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect((await server.answer(1)).result).toEqual({});
    server.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: CAPABILITIES, clientInfo: CLIENT_INFO },
    });
    expect((await server.answer(0)).result).toMatchObject({ serverInfo: { name: 'editgate' } });
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const tools = ((await server.answer(2)).result as { tools: Array<{ name: string }> }).tools;
    expect(tools.map((tool) => tool.name)).not.toContain('apply_change');
    expect(tools.map((tool) => tool.name)).toContain('edit_file');
    expect(server.stderr()).toContain('client claude-code 2.1.332: approval mode elicit');
  });
});
