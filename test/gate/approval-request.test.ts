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
