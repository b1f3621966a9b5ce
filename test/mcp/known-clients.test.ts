import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chooseApprovalMode } from '../../src/mcp/approval-mode.js';
import { clientAdvice, knownClient, submitsEmptyTextField } from '../../src/mcp/known-clients.js';
import { type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

async function connectAs(name: string, capabilities: ClientCapabilities, args: string[] = []) {
  const root = workspace({ 'a.txt': 'one\n' });
  session = await connectStdio([root, ...args], { capabilities, clientInfo: { name, version: '1.0.0' } });
  return { root, client: session.client };
}

describe('known clients by clientInfo.name (#28)', () => {
  it.each([
    ['claude-code', 'claude-code'],
    ['codex-mcp-client', 'codex'],
    ['gemini-cli-mcp-client', 'gemini-cli'],
    ['gemini-cli-mcp-client-editgate', 'gemini-cli'],
    ['opencode', 'opencode'],
    ['OpenCode', 'opencode'],
    ['my-opencode-fork', undefined],
    ['', undefined],
  ])('%j is %j', (name, expected) => {
    expect(knownClient(name)).toBe(expected);
  });

  it('only Codex cannot send a form with an empty text field, so only it gets no reason field', () => {
    expect(submitsEmptyTextField('codex')).toBe(false);
    for (const client of ['claude-code', 'gemini-cli', 'opencode', undefined] as const)
      expect(submitsEmptyTextField(client)).toBe(true);
  });

  it('auto-detect never picks preview where the client would approve apply_change blind', () => {
    expect(chooseApprovalMode('auto-detect', {}, 'opencode').mode).toBe('policy');
    expect(chooseApprovalMode('auto-detect', {}, 'gemini-cli').mode).toBe('preview');
    expect(chooseApprovalMode('auto-detect', {}, undefined).mode).toBe('preview');
    // A client that can show the form is asked there, whatever its name.
    expect(chooseApprovalMode('auto-detect', { elicitation: {} }, 'opencode').mode).toBe('elicit');
    // What the person chose stands.
    expect(chooseApprovalMode('preview', {}, 'opencode').mode).toBe('preview');
  });

  it('advice only where the client cannot show the diff and the mode does not ask elsewhere', () => {
    const as = (mode: 'elicit' | 'preview' | 'policy' | 'deny' | 'web', unavailable = false) => ({
      mode,
      unavailable,
    });
    for (const mode of ['elicit', 'web', 'deny'] as const) {
      expect(clientAdvice('opencode', as(mode))).toBeUndefined();
      expect(clientAdvice('gemini-cli', as(mode))).toBeUndefined();
    }
    expect(clientAdvice('claude-code', as('preview'))).toBeUndefined();
    expect(clientAdvice(undefined, as('preview'))).toBeUndefined();
    expect(clientAdvice('gemini-cli', as('preview'))).toContain('--approve web');
    expect(clientAdvice('opencode', as('policy'))).toContain('--approve web');
    expect(clientAdvice('opencode', as('preview'))).toContain('nobody has seen');
    // --approve elicit in a client without elicitation refuses every change: it is told where to approve.
    expect(clientAdvice('opencode', as('elicit', true))).toContain('everything else is refused');
  });

  it('OpenCode: auto-detect refuses changes no rule allows, and says so at start-up and in the first result', async () => {
    const { root, client } = await connectAs('opencode', {});
    expect(session!.stderr()).toContain('approval mode policy');
    expect(session!.stderr()).toContain('restart editgate with --approve web');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).not.toContain('apply_change');
    const first = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(first.isError).toBe(false);
    expect(first.text).toMatch(/^Tell the user: OpenCode cannot show editgate's approval prompt/);
    expect(first.text).toContain('--approve web');
    const second = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(second.text).not.toContain('Tell the user');
    const edit = await call(client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: 'two',
    });
    expect(edit.structured?.code).toBe('DENIED_NO_APPROVER');
    expect(edit.text).toContain('only the policy decides here (auto-detected: OpenCode has no elicitation');
    // Not preview mode: OpenCode would run apply_change unseen.
    expect(edit.text).toContain('--approve web');
    expect(edit.text).not.toContain('--approve preview');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('Gemini CLI: preview, with the advice to use --approve web at start-up and in the first result', async () => {
    const { client } = await connectAs('gemini-cli-mcp-client', {});
    expect(session!.stderr()).toContain('approval mode preview');
    expect(session!.stderr()).toContain('Gemini CLI cannot show');
    const first = await call(client, 'read_file', { file_path: 'a.txt' });
    expect(first.text).toMatch(/^Tell the user: Gemini CLI cannot show/);
    expect(first.text).toContain('--approve web');
  });

  it('Claude Code and Codex with elicitation: asked in the client, no advice', async () => {
    for (const name of ['claude-code', 'codex-mcp-client']) {
      const { client } = await connectAs(name, { elicitation: { form: {} } });
      expect(session!.stderr()).toContain('approval mode elicit');
      expect(session!.stderr()).not.toContain('--approve web');
      const first = await call(client, 'read_file', { file_path: 'a.txt' });
      expect(first.text).not.toContain('Tell the user');
      await session!.close();
      session = undefined;
    }
  });

  it('--approve policy chosen for OpenCode: still told that only rules decide, and where a diff can be seen', async () => {
    const { client } = await connectAs('opencode', {}, ['--approve', 'policy']);
    expect(session!.stderr()).toContain('everything else is refused');
    expect(session!.stderr()).toContain('--approve web');
    expect((await call(client, 'read_file', { file_path: 'a.txt' })).text).toContain('Tell the user');
  });
});
