import { describe, expect, it } from 'vitest';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

describe('the approval request', () => {
  it('carries the old and new text of a change held in memory, for views that expand unchanged lines', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\r\ntwo\r\n' });
    const { approver, asked } = scriptedApprover('once');
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' });
    expect(asked[0]!.texts).toEqual({ before: 'one\r\ntwo\r\n', after: 'one\r\nTWO\r\n' });
    expect(asked[0]!.note).toBeUndefined();
  });

  it('a created file has an empty before text', async () => {
    const ws = await makeWorkspace();
    const { approver, asked } = scriptedApprover('once');
    await ws.tools({ approve: approver }).execute('write_file', { file_path: 'n.txt', content: 'new\n' });
    expect(asked[0]).toMatchObject({ kind: 'create', texts: { before: '', after: 'new\n' } });
  });

  it('a streamed (huge) change has no texts: they were never held in memory', async () => {
    const ws = await makeWorkspace({ 'big.txt': 'x\n'.repeat(2000) });
    const { approver, asked } = scriptedApprover('once');
    const tools = ws.tools({ approve: approver, streamThreshold: 100 });
    await readAll(tools, 'big.txt');
    const result = await tools.execute('edit_lines', {
      file_path: 'big.txt',
      edits: [{ range: [5, 6], replacement: 'five\n' }],
    });
    expect(result.ok).toBe(true);
    expect(asked[0]!.texts).toBeUndefined();
  });
});

/** The deprecated first-file fields beside `files` (gate/approval.ts FirstFileAliases). */
const ALIASES = [
  'path',
  'root',
  'kind',
  'diff',
  'unifiedDiff',
  'stats',
  'texts',
  'note',
  'base',
  'wholeOnly',
] as const;

describe('files, and the first file beside them (deprecated, for approvers written outside editgate)', () => {
  it('a one-file change has files.length === 1, and every alias equals files[0]', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const { approver, asked } = scriptedApprover('once', 'once');
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'one', new_string: 'ONE' });
    const patch = ['*** Begin Patch', '*** Delete File: a.txt', '*** End Patch'].join('\n');
    expect((await tools.execute('apply_patch', { patch })).ok).toBe(true);
    for (const request of asked) {
      expect(request.files).toHaveLength(1);
      for (const key of ALIASES) expect(request[key], key).toBe(request.files[0]![key]);
    }
    expect(asked[0]).toMatchObject({ path: 'a.txt', kind: 'modify', stats: { added: 1, removed: 1 } });
    expect(asked[0]!.diff.hunks).toHaveLength(1);
    // A deletion is taken whole: that reason is both the file's and (deprecated) the request's.
    expect(asked[1]!.files[0]!.wholeOnly).toContain('deletion');
  });

  it('a read question has one file of kind read, with an empty diff, and its own words', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const { approver, asked } = scriptedApprover('once');
    const tools = ws.tools({ approve: approver, policy: { rules: [{ tool: 'read_file', action: 'ask' }] } });
    expect((await tools.execute('read_file', { file_path: 'a.txt' })).ok).toBe(true);
    expect(asked[0]!.files).toEqual([
      {
        path: 'a.txt',
        kind: 'read',
        diff: { hunks: [], added: 0, removed: 0, identical: true },
        unifiedDiff: '',
        stats: { added: 0, removed: 0 },
      },
    ]);
    expect(asked[0]!.question).toBe('Read a.txt?');
    for (const key of ALIASES) expect(asked[0]![key], key).toBe(asked[0]!.files[0]![key]);
  });
});
