/**
 * --approve auto under a client without elicitation (#28): the proxy runs as the client's child, so the
 * terminal it could open is the client's own screen. Auto never asks there, even when a terminal channel is
 * at hand; it asks on a review page running for the root (writes only; looked for at each question), else
 * refuses with advice. --approve web does not give the terminal back for calls that are not writes.
 * The real filesystem server behind the proxy, a real SDK client, the disk checked after each call.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, Approver } from '../../src/gate/approval.js';
import type { TerminalChannel } from '../../src/proxy/approvals.js';
import { call, connectProxy, filesystemUpstream, workspace } from './helpers.js';

/** A terminal that records every use: under auto, none may happen. */
function watchedTerminal(): { terminal: TerminalChannel; used: string[] } {
  const used: string[] = [];
  return {
    used,
    terminal: {
      change: async (request) => {
        used.push(`change ${request.path}`);
        return 'once' as const;
      },
      card: async (request) => {
        used.push(`card ${request.tool}`);
        return 'once';
      },
      notify: (message) => used.push(`notify ${message}`),
    },
  };
}

describe('--approve auto, a client without elicitation', () => {
  it('never asks the terminal, even given one (the old fallback allowed both calls here)', async () => {
    const { root, state } = workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const { terminal, used } = watchedTerminal();
    const { client, logged } = await connectProxy(
      { upstream: filesystemUpstream(root), roots: [root], stateDir: state, terminal },
      { capabilities: {} },
    );
    const written = await call(client, 'write_file', { path: join(root, 'a.txt'), content: 'A\n' });
    const moved = await call(client, 'move_file', {
      source: join(root, 'b.txt'),
      destination: join(root, 'c.txt'),
    });
    expect(used).toEqual([]);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(join(root, 'b.txt'))).toBe(true);
    for (const refused of [written, moved]) {
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain('(DENIED_NO_APPROVER)');
      expect(refused.text).toContain('the terminal belongs to the client');
      expect(refused.text).toContain('--approve web');
      expect(refused.text).toContain('--approve terminal');
      expect(refused.text).not.toMatch(/the user denied|DENIED_USER/);
    }
    expect(logged.map((line) => line.message).join('\n')).toMatch(/questions: none \(.*terminal belongs/);
  });

  it('asks writes on the running review page; a card, which the page cannot show, is refused', async () => {
    const { root, state } = workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const { terminal, used } = watchedTerminal();
    const asked: ApprovalRequest[] = [];
    const web: Approver = async (request) => {
      asked.push(request);
      return 'once' as const;
    };
    const { client, logged } = await connectProxy(
      {
        upstream: filesystemUpstream(root),
        roots: [root],
        stateDir: state,
        terminal,
        runningWeb: async () => web,
      },
      { capabilities: {} },
    );
    const written = await call(client, 'write_file', { path: join(root, 'a.txt'), content: 'A\n' });
    expect(written.isError).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('A\n');
    expect(asked.map((request) => [request.path, request.unifiedDiff.includes('+A')])).toEqual([
      ['a.txt', true],
    ]);
    writeFileSync(join(root, 'd.txt'), 'd');
    const moved = await call(client, 'move_file', {
      source: join(root, 'd.txt'),
      destination: join(root, 'e.txt'),
    });
    expect(moved.text).toContain('(DENIED_NO_APPROVER)');
    expect(existsSync(join(root, 'd.txt'))).toBe(true);
    expect(used).toEqual([]);
    expect(logged.map((line) => line.message).join('\n')).toContain(
      'questions: web (the client has no elicitation; writes go to an editgate review page running for the root, looked for at each question)',
    );
  });

  it('looks for the review page at each question: one started after the proxy is used', async () => {
    const { root, state } = workspace({ 'a.txt': 'a\n' });
    let page: Approver | undefined;
    let looked = 0;
    const { client } = await connectProxy(
      {
        upstream: filesystemUpstream(root),
        roots: [root],
        stateDir: state,
        runningWeb: async () => {
          looked += 1;
          return page;
        },
      },
      { capabilities: {} },
    );
    const before = await call(client, 'write_file', { path: join(root, 'a.txt'), content: 'A\n' });
    expect(before.text).toContain('(DENIED_NO_APPROVER)');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
    page = async () => 'once' as const;
    const after = await call(client, 'write_file', { path: join(root, 'a.txt'), content: 'A\n' });
    expect(after.isError).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('A\n');
    expect(looked).toBe(2);
  });
});

describe('--approve web: the page for writes, never the terminal for other calls', () => {
  const page: Approver = async () => 'once' as const;

  it('refuses a card with advice when the client has no elicitation (the old code asked at the terminal)', async () => {
    const { root, state } = workspace({ 'a.txt': 'a\n' });
    const { terminal, used } = watchedTerminal();
    const { client, logged } = await connectProxy(
      {
        upstream: filesystemUpstream(root),
        roots: [root],
        stateDir: state,
        approve: 'web',
        terminal,
        web: page,
      },
      { capabilities: {} },
    );
    const written = await call(client, 'write_file', { path: join(root, 'a.txt'), content: 'A\n' });
    expect(written.isError).toBe(false);
    const moved = await call(client, 'move_file', {
      source: join(root, 'a.txt'),
      destination: join(root, 'b.txt'),
    });
    expect(used).toEqual([]);
    expect(moved.isError).toBe(true);
    expect(moved.text).toContain('(DENIED_NO_APPROVER)');
    expect(moved.text).toContain('the web review page shows only file writes');
    expect(moved.text).toContain('the terminal belongs to the client');
    expect(moved.text).toContain('policy rule');
    expect(existsSync(join(root, 'a.txt'))).toBe(true);
    expect(existsSync(join(root, 'b.txt'))).toBe(false);
    expect(logged.map((line) => line.message).join('\n')).toContain(
      'questions: web (chosen with --approve web)',
    );
  });

  it("asks a card through the client's form when it has elicitation; writes still on the page", async () => {
    const { root, state } = workspace({ 'a.txt': 'a\n' });
    const { terminal, used } = watchedTerminal();
    const asked: string[] = [];
    const { client, questions } = await connectProxy(
      {
        upstream: filesystemUpstream(root),
        roots: [root],
        stateDir: state,
        approve: 'web',
        terminal,
        web: async (request) => {
          asked.push(request.path);
          return 'once' as const;
        },
      },
      { answers: [{ action: 'accept', content: { decision: 'Allow once' } }] },
    );
    await call(client, 'write_file', { path: join(root, 'a.txt'), content: 'A\n' });
    const moved = await call(client, 'move_file', {
      source: join(root, 'a.txt'),
      destination: join(root, 'b.txt'),
    });
    expect(moved.isError).toBe(false);
    expect(asked).toEqual(['a.txt']);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('move_file');
    expect(used).toEqual([]);
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('A\n');
  });
});
