// A change set through the gate: one proposal for several files, one question, policy and hooks for every
// path, all or nothing, one history set that undo_edit puts back whole.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/gate/gate.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, scriptedApprover } from '../tools/workspace-fixture.js';

/** A change set appending a line to every file named (creating those that do not exist). */
function appendTo(paths: string[]): Omit<ChangeRequest, 'signal'> {
  const file = (path: string) => ({
    path,
    requireRead: false,
    prepare: ((workspace, resolved, options) =>
      workspace.edit(
        resolved,
        { compute: (base) => ({ text: `${base.text}added\n` }) },
        options,
      )) as ChangeRequest['prepare'],
  });
  const [first, ...rest] = paths.map(file);
  return { tool: 'apply_patch', input: { paths }, ...first!, more: rest };
}

describe('change sets through the gate', () => {
  it('asks once about three files, shows each, writes all, and undo_edit of one puts all three back', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
    const { approver, asked } = scriptedApprover('once', 'once');
    const tools = ws.tools({ approve: approver });
    const gate = await tools.gate();
    const outcome = await gate.change(appendTo(['a.txt', 'src/b.txt', 'new/c.txt']));
    expect(outcome.proposal.files.map((file) => [file.path, file.kind])).toEqual([
      ['a.txt', 'modify'],
      ['src/b.txt', 'modify'],
      ['new/c.txt', 'create'],
    ]);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.files?.map((file) => file.path)).toEqual(['a.txt', 'src/b.txt', 'new/c.txt']);
    expect([await ws.text('a.txt'), await ws.text('src/b.txt'), await ws.text('new/c.txt')]).toEqual([
      'a\nadded\n',
      'b\nadded\n',
      'added\n',
    ]);

    const undone = await tools.execute('undo_edit', { file_path: 'src/b.txt' });
    expect(undone.ok, undone.message).toBe(true);
    expect(asked).toHaveLength(2);
    expect(asked[1]!.files).toHaveLength(3);
    expect([await ws.text('a.txt'), await ws.text('src/b.txt')]).toEqual(['a\n', 'b\n']);
    expect(await readdir(ws.path('new'))).toEqual([]);
  });

  it('is one audit line, naming every file with its hashes, written or refused', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const auditLog = join(tempFolder('editgate-set-audit-'), 'audit.jsonl');
    const { approver } = scriptedApprover('once', { deny: 'not both' });
    const gate = await ws.tools({ approve: approver, auditLog }).gate();
    await gate.change(appendTo(['a.txt', 'b.txt']));
    await expect(gate.change(appendTo(['a.txt', 'b.txt']))).rejects.toMatchObject({ code: 'DENIED_USER' });
    const lines = (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    const hash = expect.stringMatching(/^[0-9a-f]{64}$/);
    expect(lines[0]).toMatchObject({
      tool: 'apply_patch',
      path: 'a.txt',
      decision: 'once',
      files: [
        { path: 'a.txt', kind: 'modify', stats: { added: 1, removed: 0 }, hashBefore: hash, hashAfter: hash },
        { path: 'b.txt', kind: 'modify', stats: { added: 1, removed: 0 }, hashBefore: hash, hashAfter: hash },
      ],
    });
    expect(lines[1]).toMatchObject({
      decision: 'deny',
      decidedBy: 'user',
      reason: 'not both',
      files: [
        { path: 'a.txt', hashAfter: null },
        { path: 'b.txt', hashAfter: null },
      ],
    });
  });

  it('a "this file" grant counts only when it covers every file of the set', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const { approver, asked } = scriptedApprover('file', 'once');
    const gate = await ws.tools({ approve: approver }).gate();
    await gate.change(appendTo(['a.txt', 'b.txt']));
    // a and b are granted: a set of a and b is not asked about; one with c too is.
    await gate.change(appendTo(['a.txt', 'b.txt']));
    expect(asked).toHaveLength(1);
    await gate.change(appendTo(['a.txt', 'c.txt']));
    expect(asked).toHaveLength(2);
  });

  it('policy on one path refuses the whole set, nothing written', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n', 'secret/b.txt': 'b\n' });
    const gate = await ws
      .tools({
        approve: 'allow',
        policy: { rules: [{ path: 'secret/**', action: 'deny' }] },
      })
      .gate();
    await expect(gate.change(appendTo(['a.txt', 'secret/b.txt']))).rejects.toMatchObject({
      code: 'DENIED_POLICY',
    });
    expect([await ws.text('a.txt'), await ws.text('secret/b.txt')]).toEqual(['a\n', 'b\n']);
  });

  it('a before-change hook sees every file; its refusal refuses the set', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const seen: string[][] = [];
    const gate = await ws
      .tools({
        approve: 'allow',
        hooks: {
          beforeChange: (proposal) => {
            seen.push(proposal.files.map((file) => file.path));
            return { deny: 'not today' };
          },
        },
      })
      .gate();
    await expect(gate.change(appendTo(['a.txt', 'b.txt']))).rejects.toMatchObject({ code: 'DENIED_HOOK' });
    expect(seen).toEqual([['a.txt', 'b.txt']]);
    expect([await ws.text('a.txt'), await ws.text('b.txt')]).toEqual(['a\n', 'b\n']);
  });

  it('a deny glob on one path refuses the set before anything is computed', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n', 'private/b.txt': 'b\n' });
    const gate = await ws.tools({ approve: 'allow', deny: ['private/**'] }).gate();
    await expect(gate.change(appendTo(['a.txt', 'private/b.txt']))).rejects.toMatchObject({
      code: 'OUTSIDE_ROOT',
    });
    await expect(gate.change(appendTo(['a.txt', '../outside.txt']))).rejects.toMatchObject({
      code: 'OUTSIDE_ROOT',
    });
    expect(await ws.text('a.txt')).toBe('a\n');
  });
});
