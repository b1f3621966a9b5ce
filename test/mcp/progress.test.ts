/**
 * MCP progress notifications: byte progress of streamed work on a huge file, routed to the call that caused
 * it, and growing with every notification (the spec requires it). A real SDK Client talks to the session
 * server in process (over the SDK's in-memory transport), so the streaming path can be given a low
 * threshold and small chunks: a file of a few MB streams, in many steps.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProgressEvent } from '../../src/core/progress.js';
import { serveOnFirstMessage } from '../../src/mcp/first-message.js';
import type { Logger } from '../../src/mcp/logger.js';
import type { McpServeOptions } from '../../src/mcp/options.js';
import { startProgress } from '../../src/mcp/progress.js';
import { createSessionServer } from '../../src/mcp/session-server.js';
import type { ConfiguredOptions } from '../../src/tools/config.js';
import { tempFolder } from '../temp-folder.js';

const MiB = 1 << 20;

/** `count` lines of 64 bytes ("000001 ... \n"), one of them a marker. */
function bigText(count: number, marker: number): string {
  const out: string[] = [];
  for (let i = 1; i <= count; i++) {
    const text = i === marker ? `MARKER ${i}` : `${String(i).padStart(6, '0')} the quick brown fox`;
    out.push(text.padEnd(63, '.'));
  }
  return `${out.join('\n')}\n`;
}

const silent: Logger = { log() {}, debug() {}, info() {}, warn() {}, error() {} };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function connect(files: Record<string, string>) {
  const root = tempFolder('editgate-mcp-progress-');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content);
  // Small chunks so a few MB take many steps; not a key of the config file, so given here directly.
  const configured: ConfiguredOptions & { streamChunkSize: number } = {
    policy: { rules: [{ action: 'allow' }] },
    streamThreshold: MiB,
    streamChunkSize: 2048,
  };
  const options: McpServeOptions = {
    roots: [root],
    approve: 'policy',
    config: { config: {}, options: configured },
    useClientRoots: false,
    changeTtlMs: 60_000,
    approvalTimeoutMs: 60_000,
    maxInputBytes: 8 * MiB,
    log: silent,
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await serveOnFirstMessage(
    serverSide,
    (first) => createSessionServer(first, options),
    (error) => {
      throw error;
    },
  );
  const client = new Client({ name: 'progress-test', version: '1.0.0' });
  await client.connect(clientSide);
  closers.push(() => client.close());
  return { root, client };
}

/** Calls a tool with a progress token and keeps every notification it gets. */
async function callWithProgress(client: Client, name: string, args: Record<string, unknown>) {
  const updates: Progress[] = [];
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    onprogress: (update) => updates.push(update),
  })) as CallToolResult;
  return { result, updates };
}

function expectGrowing(updates: Progress[]): void {
  for (let i = 1; i < updates.length; i++) {
    expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
  }
}

describe('progress notifications for streamed work', () => {
  it('edit_file on a huge file: bytes written (it searches as it writes), growing, with the size as total', async () => {
    const text = bigText(64 * 1024, 60_000); // 4 MiB
    const { root, client } = await connect({ 'big.sql': text });
    const size = Buffer.byteLength(text);
    await client.callTool({
      name: 'read_file',
      arguments: { file_path: 'big.sql', offset: 59_999, limit: 3 },
    });

    // The index is cached by the read: this edit's one pass is the write (searching as it goes).
    const { result, updates } = await callWithProgress(client, 'edit_file', {
      file_path: 'big.sql',
      old_string: 'MARKER 60000',
      new_string: 'CHANGED 60000',
    });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(root, 'big.sql'), 'utf8')).toContain('CHANGED 60000');
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expectGrowing(updates);
    for (const update of updates) {
      expect(update.total).toBe(size);
      expect(update.progress).toBeLessThanOrEqual(size);
      expect(update.message).toMatch(/^writing big\.sql: [\d.]+ (bytes|KB|MB) of 4\.0 MB$/);
    }
    expect(updates.at(-1)).toMatchObject({ progress: size, message: 'writing big.sql: 4.0 MB of 4.0 MB' });
  });

  it('an edit that takes several passes (exact finds nothing, then tolerant) keeps growing', async () => {
    const text = bigText(32 * 1024, 30_000).replace(/MARKER 30000\.+/, 'MARKER 30000');
    const { root, client } = await connect({ 'big.sql': text });
    const size = Buffer.byteLength(text);
    await client.callTool({
      name: 'read_file',
      arguments: { file_path: 'big.sql', offset: 30_000, limit: 1 },
    });
    const { result, updates } = await callWithProgress(client, 'edit_file', {
      file_path: 'big.sql',
      old_string: 'MARKER 30000   \n', // the file has no trailing spaces: only a tolerant tier matches
      new_string: 'CHANGED\n',
    });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(root, 'big.sql'), 'utf8')).toContain('CHANGED');
    expectGrowing(updates);
    const phases = updates.map((update) => update.message!.split(' ')[0]);
    expect(phases).toContain('searching');
    expect(updates.at(-1)!.progress).toBe(updates.at(-1)!.total);
    expect(updates.at(-1)!.total).toBeGreaterThan(size);
  });

  it('read_file that indexes the file first: the index pass, then the read counted on top', async () => {
    const text = bigText(64 * 1024, 1);
    const { client } = await connect({ 'big.sql': text });
    const size = Buffer.byteLength(text);
    const { result, updates } = await callWithProgress(client, 'read_file', {
      file_path: 'big.sql',
      offset: 1000,
      limit: 2000,
    });
    expect(result.isError).toBeFalsy();
    expectGrowing(updates);
    const indexing = updates.filter((update) => update.message?.startsWith('indexing big.sql: '));
    expect(indexing.length).toBeGreaterThanOrEqual(2);
    expect(indexing.at(-1)).toMatchObject({ progress: size, total: size });
    // The read starts a second pass: progress goes on from the index's end, the total grows with it.
    const reading = updates.filter((update) => update.message?.startsWith('reading big.sql: '));
    for (const update of reading) {
      expect(update.progress).toBeGreaterThan(size);
      expect(update.total).toBe(2 * size);
    }
  });

  it('parallel calls each get the progress of their own file only', async () => {
    const { client } = await connect({
      'a.sql': bigText(48 * 1024, 40_000),
      'b.sql': bigText(64 * 1024, 50_000),
    });
    const [a, b] = await Promise.all([
      callWithProgress(client, 'read_file', { file_path: 'a.sql', offset: 40_000, limit: 1 }),
      callWithProgress(client, 'read_file', { file_path: 'b.sql', offset: 50_000, limit: 1 }),
    ]);
    for (const [call, name] of [
      [a, 'a.sql'],
      [b, 'b.sql'],
    ] as const) {
      expect(call.result.isError).toBeFalsy();
      expect(call.updates.length).toBeGreaterThanOrEqual(2);
      expectGrowing(call.updates);
      for (const update of call.updates) expect(update.message).toContain(` ${name}: `);
    }
    // A call without a progress token gets none, and sends none to the others.
    const quiet = await client.callTool({ name: 'read_file', arguments: { file_path: 'a.sql', limit: 1 } });
    expect((quiet as CallToolResult).isError).toBeFalsy();
  });

  it('a call without a progress token beside one with a token: the one with it gets its own progress only', async () => {
    const { client } = await connect({
      'a.sql': bigText(48 * 1024, 40_000),
      'b.sql': bigText(64 * 1024, 50_000),
    });
    // A notification with a token the client did not give would reach onerror.
    const strays: string[] = [];
    client.onerror = (error) => strays.push(error.message);
    const [a, quiet] = await Promise.all([
      callWithProgress(client, 'read_file', { file_path: 'a.sql', offset: 40_000, limit: 1 }),
      client.callTool({ name: 'read_file', arguments: { file_path: 'b.sql', offset: 50_000, limit: 1 } }),
    ]);
    expect((quiet as CallToolResult).isError).toBeFalsy();
    expect(a.result.isError).toBeFalsy();
    expect(a.updates.length).toBeGreaterThanOrEqual(2);
    for (const update of a.updates) expect(update.message).toContain(' a.sql: ');
    expect(strays).toEqual([]);
  });
});

describe('startProgress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const event = (phase: ProgressEvent['phase'], done: number, total = 1000): ProgressEvent => ({
    path: 'big.sql',
    phase,
    done,
    total,
    elapsedMs: 0,
  });

  function record() {
    const sent: Progress[] = [];
    const send = async (notification: ServerNotification) => {
      if (notification.method === 'notifications/progress') sent.push(notification.params as Progress);
    };
    return { sent, send };
  }

  it('sends nothing without a progress token', () => {
    vi.useFakeTimers();
    const { sent, send } = record();
    const progress = startProgress(undefined, send, () => 'running');
    progress.onProgress(event('write', 500));
    vi.advanceTimersByTime(5000);
    progress.stop();
    expect(sent).toEqual([]);
  });

  it('ticks while nothing streams, counts bytes while something does, and never goes back', () => {
    vi.useFakeTimers();
    const { sent, send } = record();
    let status = 'running edit_file on big.sql';
    const progress = startProgress('t', send, () => status);
    vi.advanceTimersByTime(2000);
    expect(sent.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, undefined, 'running edit_file on big.sql (1s)'],
      [2, undefined, 'running edit_file on big.sql (2s)'],
    ]);

    progress.onProgress(event('index', 100));
    vi.advanceTimersByTime(150);
    progress.onProgress(event('index', 1000));
    // The next pass starts from 0: it is counted on top of the first.
    vi.advanceTimersByTime(150);
    progress.onProgress(event('write', 300));
    // No bytes more than before: left out.
    progress.onProgress(event('write', 300));
    vi.advanceTimersByTime(150);
    progress.onProgress(event('write', 1000));
    expect(sent.slice(2).map((p) => [p.progress, p.total, p.message])).toEqual([
      [100, 1000, 'indexing big.sql: 100 bytes of 1000 bytes'],
      [1000, 1000, 'indexing big.sql: 1000 bytes of 1000 bytes'],
      [1300, 2000, 'writing big.sql: 300 bytes of 1000 bytes'],
      [2000, 2000, 'writing big.sql: 1000 bytes of 1000 bytes'],
    ]);

    // Then a person reads the diff: once a second has passed without bytes, ticks again, above the bytes,
    // without a total.
    status = 'waiting for the user to approve big.sql';
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(6);
    vi.advanceTimersByTime(600);
    expect(sent.at(-1)).toEqual({
      progressToken: 't',
      progress: 2001,
      message: 'waiting for the user to approve big.sql (4s)',
    });
    progress.stop();
    progress.onProgress(event('write', 1000));
    vi.advanceTimersByTime(5000);
    expect(sent).toHaveLength(7);
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.progress).toBeGreaterThan(sent[i - 1]!.progress);
  });
});
