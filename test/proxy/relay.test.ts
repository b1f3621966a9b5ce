/**
 * Everything relayed both ways, over in-memory transports: a real SDK client, the proxy, and an SDK server
 * in this process with a tool, a resource, a prompt and completions of each kind, which also asks the
 * client things (sampling, elicitation, roots) and notifies it. Read-only tools go through untouched; the
 * client's cancellation and progress follow its calls; an upstream crash is a clear error and the next
 * call starts the server again.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  RootsListChangedNotificationSchema,
  SubscribeRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { stdioUpstream } from '../../src/proxy/upstream.js';
import { call, connectProxy, inProcessUpstream, workspace } from './helpers.js';

/** What the upstream server saw, for the assertions. */
interface Seen {
  started: Promise<void>;
  aborted: Promise<string>;
  rootsChanged: number;
  subscribed: string[];
  clientInfo?: { name: string };
  clientCapabilities?: unknown;
}

function upstreamServer(seen: Seen, crash: { now: () => void }) {
  let markAborted!: (reason: string) => void;
  seen.aborted = new Promise((resolve) => {
    markAborted = resolve;
  });
  let markStarted!: () => void;
  seen.started = new Promise((resolve) => {
    markStarted = resolve;
  });
  return () => {
    const server = new McpServer(
      { name: 'test-upstream', version: '3.1.4', title: 'Test Upstream' },
      {
        capabilities: { logging: {}, resources: { subscribe: true, listChanged: true } },
        instructions: 'Be nice.',
      },
    );
    const readOnly = { readOnlyHint: true };
    server.registerTool(
      'echo',
      { inputSchema: { text: z.string() }, annotations: readOnly },
      async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    );
    server.registerTool('wait', { annotations: readOnly }, async (extra) => {
      markStarted();
      await new Promise<void>((resolve) => {
        extra.signal.addEventListener('abort', () => {
          markAborted(String(extra.signal.reason));
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'cancelled' }] };
    });
    server.registerTool('count', { annotations: readOnly }, async (extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; token !== undefined && step <= 3; step++) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, total: 3, message: `step ${step}` },
        });
      }
      return { content: [{ type: 'text', text: 'counted' }] };
    });
    server.registerTool('ask_everything', { annotations: readOnly }, async () => {
      const sampled = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'say hi' } }],
        maxTokens: 10,
      });
      const elicited = await server.server.elicitInput({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      const roots = await server.server.listRoots();
      return {
        content: [
          {
            type: 'text',
            text: JSON.stringify({
              sampled: sampled.content,
              elicited,
              roots: roots.roots.map((r) => r.uri),
            }),
          },
        ],
      };
    });
    server.registerTool('notify', { annotations: readOnly }, async () => {
      server.sendToolListChanged();
      server.sendResourceListChanged();
      server.sendPromptListChanged();
      await server.server.sendLoggingMessage({ level: 'warning', logger: 'upstream', data: 'careful' });
      await server.server.sendResourceUpdated({ uri: 'note://a' });
      return { content: [{ type: 'text', text: 'notified' }] };
    });
    server.registerTool('crash', { annotations: readOnly }, async () => {
      crash.now();
      return new Promise(() => {});
    });
    server.registerResource('note a', 'note://a', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: 'A' }],
    }));
    server.registerResource('crash', 'note://crash', {}, async () => {
      crash.now();
      return new Promise(() => {});
    });
    server.registerResource(
      'notes',
      new ResourceTemplate('note://{id}', {
        list: undefined,
        complete: { id: (value) => ['apple', 'apricot', 'banana'].filter((id) => id.startsWith(value)) },
      }),
      {},
      async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)}` }] }),
    );
    server.registerPrompt('greet', { argsSchema: { who: z.string() } }, ({ who }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }],
    }));
    server.server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      seen.rootsChanged++;
    });
    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      seen.subscribed.push(request.params.uri);
      return {};
    });
    server.server.oninitialized = () => {
      seen.clientInfo = server.server.getClientVersion();
      seen.clientCapabilities = server.server.getClientCapabilities();
    };
    return server;
  };
}

async function setUp() {
  const seen: Seen = {
    started: Promise.resolve(),
    aborted: Promise.resolve(''),
    rootsChanged: 0,
    subscribed: [],
  };
  const crash = { now: () => {} };
  const upstream = inProcessUpstream(upstreamServer(seen, crash));
  crash.now = () => void upstream.latest()?.close();
  const { root, state } = workspace();
  const notifications: string[] = [];
  const connected = await connectProxy(
    { upstream, roots: [root], stateDir: state },
    {
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
      answers: [{ action: 'accept', content: { name: 'Ada' } }],
      setup(client: Client) {
        client.setRequestHandler(CreateMessageRequestSchema, async () => ({
          role: 'assistant',
          content: { type: 'text', text: 'hi from the model' },
          model: 'test-model',
        }));
        client.setRequestHandler(ListRootsRequestSchema, async () => ({
          roots: [{ uri: 'file:///projects/a', name: 'a' }],
        }));
        for (const schema of [
          ToolListChangedNotificationSchema,
          ResourceListChangedNotificationSchema,
          PromptListChangedNotificationSchema,
          ResourceUpdatedNotificationSchema,
        ]) {
          client.setNotificationHandler(schema, (notification) => {
            notifications.push(notification.method);
          });
        }
        client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
          notifications.push(`log ${notification.params.level}: ${String(notification.params.data)}`);
        });
      },
    },
  );
  return { ...connected, seen, upstream, notifications };
}

describe('editgate proxy relays', () => {
  it('mirrors the server (name, capabilities, instructions) and the client (info, capabilities)', async () => {
    const { client, seen } = await setUp();
    expect(client.getServerVersion()).toMatchObject({ name: 'test-upstream', version: '3.1.4' });
    expect(client.getServerVersion()?.title).toBe('Test Upstream (through editgate proxy)');
    expect(client.getInstructions()).toBe('Be nice.');
    const capabilities = client.getServerCapabilities();
    expect(capabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    });
    await client.ping();
    expect(seen.clientInfo).toEqual({ name: 'proxy-test-client', version: '1.0.0' });
    expect(seen.clientCapabilities).toMatchObject({
      sampling: {},
      elicitation: { form: {} },
      roots: { listChanged: true },
    });
  });

  it('tools, resources, prompts and completions, as the server answers them', async () => {
    const { client, seen } = await setUp();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'echo',
      'wait',
      'count',
      'ask_everything',
      'notify',
      'crash',
    ]);
    // Read-only by annotation: relayed without a question.
    expect(await call(client, 'echo', { text: 'hi' })).toMatchObject({ text: 'echo: hi', isError: false });

    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['note://a', 'note://crash']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'note://{id}',
    ]);
    expect((await client.readResource({ uri: 'note://apple' })).contents).toEqual([
      { uri: 'note://apple', text: 'note apple' },
    ]);
    await client.subscribeResource({ uri: 'note://a' });
    expect(seen.subscribed).toEqual(['note://a']);
    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'note://{id}' },
      argument: { name: 'id', value: 'ap' },
    });
    expect(completion.completion.values).toEqual(['apple', 'apricot']);

    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello Ada' });
  });

  it("the server's own requests to the client: sampling, elicitation, roots", async () => {
    const { client, questions } = await setUp();
    const { text } = await call(client, 'ask_everything');
    expect(JSON.parse(text)).toEqual({
      sampled: { type: 'text', text: 'hi from the model' },
      elicited: { action: 'accept', content: { name: 'Ada' } },
      roots: ['file:///projects/a'],
    });
    // Labelled as the server's: a client shows it in the same form as editgate's own questions.
    expect(questions).toEqual(['Question from the Test Upstream server, not from editgate:\n\nYour name?']);
  });

  it('notifications both ways: list changes, logging, resource updates; the client’s roots changes', async () => {
    const { client, seen, notifications } = await setUp();
    await client.setLoggingLevel('debug');
    await call(client, 'notify');
    await client.ping(); // the notifications were sent before the result; a round trip later they are in
    expect(notifications).toEqual(
      expect.arrayContaining([
        'notifications/tools/list_changed',
        'notifications/resources/list_changed',
        'notifications/prompts/list_changed',
        'notifications/resources/updated',
        'log warning: careful',
      ]),
    );
    await client.sendRootsListChanged();
    await client.ping();
    await call(client, 'echo', { text: 'after' });
    expect(seen.rootsChanged).toBe(1);
  });

  it("the client's cancellation reaches the server", async () => {
    const { client, seen } = await setUp();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'wait', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await seen.started;
    controller.abort('the user pressed Esc');
    await expect(pending).rejects.toThrow();
    expect(await seen.aborted).toContain('the user pressed Esc');
    expect(await call(client, 'echo', { text: 'still here' })).toMatchObject({ text: 'echo: still here' });
  });

  it('progress comes back under the client’s own token', async () => {
    const { client } = await setUp();
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.callTool({ name: 'count', arguments: {} }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'counted' }]);
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  it('an upstream crash: a clear error for the call under way, the proxy stays up and starts it again', async () => {
    const { client, upstream, notifications, logged } = await setUp();
    await client.listTools();
    const crashed = await call(client, 'crash');
    expect(crashed.isError).toBe(true);
    expect(crashed.text).toContain('The upstream MCP server (the test server) stopped while this request');
    expect(crashed.text).toContain('What happened: it closed the connection.');
    expect(crashed.text).toContain('editgate proxy is still running and starts it again at the next request');
    expect(
      logged.some((line) => line.level === 'warning' && line.message.includes('closed the connection')),
    ).toBe(true);

    expect(await call(client, 'echo', { text: 'again' })).toMatchObject({
      text: 'echo: again',
      isError: false,
    });
    expect(upstream.connections()).toBe(2);
    await client.ping();
    expect(notifications).toContain('notifications/tools/list_changed');
  });

  it('a request other than a tool call during a crash is an MCP error that says so', async () => {
    const { client, upstream } = await setUp();
    await expect(client.readResource({ uri: 'note://crash' })).rejects.toThrow(
      /The upstream MCP server \(the test server\) stopped while this request was under way/,
    );
    await expect(client.listPrompts()).resolves.toMatchObject({ prompts: [{ name: 'greet' }] });
    expect(upstream.connections()).toBe(2);
  });
});

describe('an upstream server that cannot be started', () => {
  it('fails the client’s initialize with what to do', async () => {
    const { root, state } = workspace();
    const upstream = stdioUpstream({ command: '/nonexistent/mcp-server', args: ['--flag'] });
    await expect(connectProxy({ upstream, roots: [root], stateDir: state })).rejects.toThrow(
      /editgate proxy could not start the upstream MCP server \(\/nonexistent\/mcp-server --flag\): it could not be run \(spawn \/nonexistent\/mcp-server ENOENT\)\. Check the command after -- in the client/,
    );
  });
});
