import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Screening } from '../../src/gate/gate.js';
import type { Proposal } from '../../src/gate/proposal.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

const files = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'secret/key.txt': 'k\n', 'docs/readme.md': 'doc\n' };

describe('approval', () => {
  it('asks with the diff, path, kind and stats; "once" writes', async () => {
    const ws = await makeWorkspace(files);
    const { approver, asked } = scriptedApprover('once');
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'ALPHA',
    });
    expect(result.ok).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: 'edit_file',
      path: 'a.txt',
      kind: 'modify',
      stats: { added: 1, removed: 1 },
    });
    expect(asked[0]!.unifiedDiff).toContain('-alpha');
    expect(asked[0]!.unifiedDiff).toContain('+ALPHA');
  });

  it('the request carries the old and new text of a change held in memory, none for a streamed one', async () => {
    const ws = await makeWorkspace({ ...files, 'big.txt': `${'x\n'.repeat(600)}marker\n` });
    const { approver, asked } = scriptedApprover('once', 'once');
    const tools = ws.tools({ approve: approver, streamThreshold: 1000 });
    await readAll(tools, 'a.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' });
    expect(asked[0]!.texts).toEqual({ before: 'alpha\n', after: 'ALPHA\n' });
    expect(asked[0]!.note).toBeUndefined();
    // One file: `files` holds it, and the deprecated fields beside it are its own (gate/approval.ts).
    expect(asked[0]!.files).toHaveLength(1);
    const [only] = asked[0]!.files;
    for (const key of ['path', 'kind', 'diff', 'unifiedDiff', 'stats', 'texts', 'base', 'wholeOnly'] as const)
      expect(asked[0]![key]).toBe(only![key]);
    await readAll(tools, 'big.txt');
    const streamed = await tools.execute('edit_file', {
      file_path: 'big.txt',
      old_string: 'marker',
      new_string: 'MARKER',
    });
    expect(streamed.ok).toBe(true);
    expect(asked[1]!.texts).toBeUndefined();
    // 600 replacements in a streamed file: the diff could show the first 200 places only, so nobody is
    // asked (issue #13, item 3; test/gate/shown-whole.test.ts).
    await readAll(tools, 'big.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'big.txt',
      old_string: 'x',
      new_string: 'y',
      replace_all: true,
    });
    expect(result).toMatchObject({ ok: false, code: 'TOO_LARGE', details: { places: 600, shown: 200 } });
    expect(asked).toHaveLength(2);
  });

  it('denied by the user without a reason: nothing written, DENIED_USER', async () => {
    const ws = await makeWorkspace(files);
    const tools = ws.tools({ approve: scriptedApprover('deny').approver });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'x',
    });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(await ws.text('a.txt')).toBe('alpha\n');
  });

  it('denied with a reason: the reason reaches the model', async () => {
    const ws = await makeWorkspace(files);
    const tools = ws.tools({ approve: scriptedApprover({ deny: 'use camelCase' }).approver });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'x',
    });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(result.message).toContain('The user denied this edit: use camelCase');
  });

  it('"file" covers later edits to that file only', async () => {
    const ws = await makeWorkspace(files);
    const { approver, asked } = scriptedApprover('file', 'once');
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    await readAll(tools, 'b.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: 'a2' });
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'a2', new_string: 'a3' });
    expect(asked).toHaveLength(1);
    await tools.execute('edit_file', { file_path: 'b.txt', old_string: 'beta', new_string: 'b2' });
    expect(asked).toHaveLength(2);
    expect(asked[1]!.path).toBe('b.txt');
    expect(tools.session.grants.files).toEqual(['a.txt']);
  });

  it('"all" covers every file; session.reset() forgets it', async () => {
    const ws = await makeWorkspace(files);
    const { approver, asked } = scriptedApprover('all', 'once');
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    await readAll(tools, 'b.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: 'a2' });
    await tools.execute('edit_file', { file_path: 'b.txt', old_string: 'beta', new_string: 'b2' });
    await tools.execute('write_file', { file_path: 'c.txt', content: 'c\n' });
    expect(asked).toHaveLength(1);
    tools.session.reset();
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'a2', new_string: 'a3' });
    expect(asked).toHaveLength(2);
  });

  it('emits the preview before asking, and also for auto-approved changes', async () => {
    const ws = await makeWorkspace(files);
    const events: string[] = [];
    const tools = ws.tools({
      approve: () => {
        events.push('ask');
        return 'all';
      },
      onPreview: async (proposal: Proposal, screening: Screening) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const how = screening.ask ? 'asking' : `approved by ${screening.approvedBy}`;
        events.push(`preview ${proposal.path} +${proposal.stats.added} -${proposal.stats.removed} ${how}`);
      },
    });
    await readAll(tools, 'a.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: 'x' });
    await tools.execute('write_file', { file_path: 'new.txt', content: 'n\n' });
    expect(events).toEqual([
      'preview a.txt +1 -1 asking',
      'ask',
      'preview new.txt +1 -0 approved by session',
    ]);
  });

  it("approve: 'deny' refuses anything that would be asked; 'allow' approves", async () => {
    const ws = await makeWorkspace(files);
    const denying = ws.tools({ approve: 'deny' });
    const refused = await denying.execute('write_file', { file_path: 'n.txt', content: 'x' });
    expect(refused).toMatchObject({ ok: false, code: 'DENIED_USER' });
    // No person was asked: the model is not told that one said no.
    expect(refused.message).not.toContain('The user');
    expect(refused.message).toContain(
      "Refused without asking anyone: changes that need approval are refused in this session (approve: 'deny')",
    );
    const allowing = ws.tools({ approve: 'allow' });
    expect((await allowing.execute('write_file', { file_path: 'n.txt', content: 'x' })).ok).toBe(true);
    // A read that policy would ask about, refused the same way.
    const readsAsk = ws.tools({ approve: 'deny', policy: { rules: [{ tool: 'read_file', action: 'ask' }] } });
    const unread = await readsAsk.execute('read_file', { file_path: 'n.txt' });
    expect(unread).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(unread.message).not.toContain('The user');
    expect(unread.message).toContain('Refused without asking anyone');
  });

  it('an approver that throws or answers nonsense counts as a denial', async () => {
    const ws = await makeWorkspace(files);
    const throwing = ws.tools({
      approve: () => {
        throw new Error('tty gone');
      },
    });
    const thrown = await throwing.execute('write_file', { file_path: 'n.txt', content: 'x' });
    expect(thrown).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(thrown.message).toContain('tty gone');
    // @ts-expect-error an invalid decision on purpose
    const odd = ws.tools({ approve: () => 'yes please' });
    expect(await odd.execute('write_file', { file_path: 'n.txt', content: 'x' })).toMatchObject({
      ok: false,
    });
    await expect(ws.text('n.txt')).rejects.toThrow();
  });

  it('does not write when the file changes while the approver is deciding: STALE', async () => {
    const ws = await makeWorkspace(files);
    const tools = ws.tools({
      approve: async () => {
        await writeFile(ws.path('a.txt'), 'changed meanwhile\n');
        return 'once' as const;
      },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'x',
    });
    expect(result).toMatchObject({ ok: false, code: 'STALE' });
    expect(await ws.text('a.txt')).toBe('changed meanwhile\n');
  });
});

describe('policy', () => {
  it('deny rules refuse with DENIED_POLICY and beat allow rules', async () => {
    const ws = await makeWorkspace(files);
    const tools = ws.tools({
      approve: 'deny',
      policy: {
        rules: [
          { path: '**', action: 'allow' },
          { path: 'secret/**', action: 'deny' },
        ],
      },
    });
    await readAll(tools, 'a.txt');
    expect(
      (await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: 'x' })).ok,
    ).toBe(true);
    const denied = await tools.execute('write_file', { file_path: 'secret/other.txt', content: 'x' });
    expect(denied).toMatchObject({ ok: false, code: 'DENIED_POLICY' });
    await expect(ws.text('secret/other.txt')).rejects.toThrow();
  });

  it('rules can target a tool', async () => {
    const ws = await makeWorkspace(files);
    const tools = ws.tools({ approve: 'allow', policy: { rules: [{ tool: 'write_file', action: 'deny' }] } });
    expect(await tools.execute('write_file', { file_path: 'n.txt', content: 'x' })).toMatchObject({
      code: 'DENIED_POLICY',
    });
    expect(
      (await tools.execute('edit_file', { file_path: 'n.txt', old_string: '', new_string: 'x' })).ok,
    ).toBe(true);
  });

  it('when reads need permission, a change to an unread file asks to read first, then for the write', async () => {
    const ws = await makeWorkspace(files);
    const { approver, asked } = scriptedApprover('once', 'once');
    const tools = ws.tools({
      approve: approver,
      requireReadBeforeEdit: false,
      policy: { rules: [{ tool: 'read_file', action: 'ask' }] },
    });
    const result = await tools.execute('edit_file', {
      file_path: 'docs/readme.md',
      old_string: 'doc',
      new_string: 'x',
    });
    expect(result.ok).toBe(true);
    expect(asked.map((r) => r.kind)).toEqual(['read', 'modify']);
    expect(asked[0]!.question).toBe('Read docs/readme.md to preview the change?');
  });

  it('a denied read is not read', async () => {
    const ws = await makeWorkspace(files);
    const tools = ws.tools({
      approve: 'allow',
      policy: { rules: [{ tool: 'read_file', path: 'secret/**', action: 'deny' }] },
    });
    expect(await tools.execute('read_file', { file_path: 'secret/key.txt' })).toMatchObject({
      code: 'DENIED_POLICY',
    });
  });
});

describe('hooks and audit', () => {
  it('a before-change hook can veto with a reason; nothing is written', async () => {
    const ws = await makeWorkspace(files);
    const tools = ws.tools({
      hooks: {
        beforeChange: (proposal) =>
          proposal.texts?.after.includes('TODO') ? { deny: 'no TODOs please' } : undefined,
      },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'TODO',
    });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_HOOK' });
    expect(result.message).toContain('no TODOs please');
    expect(await ws.text('a.txt')).toBe('alpha\n');
  });

  it('an after-change hook sees the result and its text reaches the model', async () => {
    const ws = await makeWorkspace(files);
    const seen: unknown[] = [];
    const tools = ws.tools({
      hooks: {
        afterChange: (outcome) => {
          seen.push(outcome);
          return 'lint: missing semicolon on line 1';
        },
      },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'x',
    });
    expect(result.ok).toBe(true);
    expect(result.message).toContain('lint: missing semicolon on line 1');
    expect(seen[0]).toMatchObject({
      tool: 'edit_file',
      path: 'a.txt',
      kind: 'modify',
      stats: { added: 1, removed: 1 },
    });
  });

  it('writes an audit line for every change and denial', async () => {
    const ws = await makeWorkspace(files);
    // Outside the root, where nothing that edits the workspace can rewrite it (issue #13).
    const auditLog = join(tempFolder('editgate-audit-'), 'log.jsonl');
    const tools = ws.tools({ auditLog, approve: scriptedApprover('once', { deny: 'no' }).approver });
    await readAll(tools, 'a.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: 'x' });
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'x', new_string: 'y' });
    const lines = (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ tool: 'edit_file', path: 'a.txt', decision: 'once', decidedBy: 'user' });
    expect(lines[0].hashBefore).toMatch(/^[0-9a-f]{64}$/);
    expect(lines[0].hashAfter).toMatch(/^[0-9a-f]{64}$/);
    expect(lines[1]).toMatchObject({ decision: 'deny', decidedBy: 'user', reason: 'no' });
  });
});
