import { describe, expect, it } from 'vitest';
import type { Screening } from '../../src/gate/gate.js';
import type { Proposal } from '../../src/gate/proposal.js';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

/** Edit before approve: the approver answers with the person's own version of the new text. */
describe('approval with the person’s own version', () => {
  it('writes their version, recomputes the diff, and tells the model exactly what they changed', async () => {
    const ws = await makeWorkspace({ 'a.ts': 'const a = 1;\nconst b = 2;\n' });
    const previews: Array<[string, Screening]> = [];
    const { approver, asked } = scriptedApprover({
      allow: 'once',
      edited: { 'a.ts': 'const a = 1;\nconst bee = 3;\n' },
    });
    const tools = ws.tools({
      approve: approver,
      onPreview: (proposal: Proposal, screening: Screening) => {
        previews.push([proposal.unifiedDiff, screening]);
      },
    });
    await readAll(tools, 'a.ts');
    const result = await tools.execute('edit_file', {
      file_path: 'a.ts',
      old_string: 'const b = 2;',
      new_string: 'const b = 3;',
    });
    expect(result.ok).toBe(true);
    expect(await ws.text('a.ts')).toBe('const a = 1;\nconst bee = 3;\n');
    expect(asked[0]!.unifiedDiff).toContain('+const b = 3;');
    // Shown again: the diff of what is written, after the question's diff.
    expect(previews).toHaveLength(2);
    expect(previews[1]![1]).toEqual({ ask: false, approvedBy: 'user', edited: true });
    expect(previews[1]![0]).toContain('-const b = 2;\n+const bee = 3;\n');
    expect(result.message).toContain('Edited a.ts: +1 -1 lines.');
    expect(result.message).toContain('The user edited your change before approving it');
    expect(result.message).toContain('-const b = 3;\n+const bee = 3;');
    expect(result.details).toMatchObject({ decision: 'once', decidedBy: 'user', written: true });
    expect(result.details.editedByUser).toContain('+const bee = 3;');
    expect(result.details.unifiedDiff).toContain('+const bee = 3;');
    expect(result.details.replacements).toBeUndefined();
  });

  it("the person's text takes the file's line ending (a browser sends \\n)", async () => {
    const ws = await makeWorkspace({ 'w.txt': 'one\r\ntwo\r\n' });
    const tools = ws.tools({
      approve: scriptedApprover({ allow: 'once', edited: { 'w.txt': 'one\nTWO!\n' } }).approver,
    });
    await readAll(tools, 'w.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'w.txt',
      old_string: 'two',
      new_string: 'TWO',
    });
    expect(result.ok).toBe(true);
    expect(await ws.text('w.txt')).toBe('one\r\nTWO!\r\n');
  });

  it('the grant still applies: "file" covers the next edit to that file', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x\n' });
    const { approver, asked } = scriptedApprover({ allow: 'file', edited: { 'a.txt': 'mine\n' } });
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    expect((await tools.execute('write_file', { file_path: 'a.txt', content: 'y\n' })).ok).toBe(true);
    expect((await tools.execute('write_file', { file_path: 'a.txt', content: 'z\n' })).ok).toBe(true);
    expect(asked).toHaveLength(1);
    expect(await ws.text('a.txt')).toBe('z\n');
  });

  it('a created file is created with their text', async () => {
    const ws = await makeWorkspace();
    const tools = ws.tools({
      approve: scriptedApprover({ allow: 'once', edited: { 'n.md': '# Mine\n' } }).approver,
    });
    const result = await tools.execute('write_file', { file_path: 'n.md', content: '# Yours\n' });
    expect(result.ok).toBe(true);
    expect(result.message).toContain('Created n.md');
    expect(await ws.text('n.md')).toBe('# Mine\n');
  });

  it('their version equal to the file as it is: nothing written, and the model is told why', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'keep\n' });
    const tools = ws.tools({
      approve: scriptedApprover({ allow: 'once', edited: { 'a.txt': 'keep\n' } }).approver,
    });
    await readAll(tools, 'a.txt');
    const before = (await ws.bytes('a.txt')).toString('hex');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'other\n' });
    expect(result.ok).toBe(true);
    expect(result.message).toContain('No change');
    expect(result.message).toContain('-other\n+keep');
    expect(result.details.written).toBe(false);
    expect((await ws.bytes('a.txt')).toString('hex')).toBe(before);
  });

  it('the same text as proposed is a plain approval (no edit note)', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x\n' });
    const tools = ws.tools({
      approve: scriptedApprover({ allow: 'once', edited: { 'a.txt': 'y\n' } }).approver,
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'y\n' });
    expect(result.ok).toBe(true);
    expect(result.message).not.toContain('edited your change');
    expect(result.details.editedByUser).toBeUndefined();
  });

  it('a version of a file the change does not touch is refused, nothing written', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x\n', 'b.txt': 'b\n' });
    const tools = ws.tools({
      approve: scriptedApprover({ allow: 'once', edited: { 'a.txt': 'y\n', 'b.txt': 'evil\n' } }).approver,
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'y\n' });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(result.message).toContain('b.txt, which this change does not touch');
    expect(await ws.text('a.txt')).toBe('x\n');
    expect(await ws.text('b.txt')).toBe('b\n');
  });

  it('a version without the changed file, or for a deletion, or for a huge streamed file, is refused', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x\n', 'big.txt': 'line\n'.repeat(500) });
    const missing = ws.tools({ approve: scriptedApprover({ allow: 'once', edited: {} }).approver });
    await readAll(missing, 'a.txt');
    const none = await missing.execute('write_file', { file_path: 'a.txt', content: 'y\n' });
    expect(none).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(none.message).toContain('gave no text for a.txt');

    const huge = ws.tools({
      approve: scriptedApprover({ allow: 'once', edited: { 'big.txt': 'small\n' } }).approver,
      streamThreshold: 100,
    });
    await readAll(huge, 'big.txt');
    const streamed = await huge.execute('edit_lines', {
      file_path: 'big.txt',
      edits: [{ range: [1, 2], replacement: 'first\n' }],
    });
    expect(streamed).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(streamed.message).toContain('too large to hold in memory');
    expect(await ws.text('big.txt')).toBe('line\n'.repeat(500));
    expect(await ws.text('a.txt')).toBe('x\n');
  });

  it('malformed edited answers count as denials', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x\n' });
    for (const answer of [
      { allow: 'always', edited: { 'a.txt': 'y\n' } },
      { allow: 'once', edited: { 'a.txt': 42 } },
      { allow: 'once', edited: ['y\n'] },
      { allow: 'once' },
    ]) {
      // @ts-expect-error malformed on purpose
      const tools = ws.tools({ approve: () => answer });
      await readAll(tools, 'a.txt');
      const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'y\n' });
      expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    }
    expect(await ws.text('a.txt')).toBe('x\n');
  });

  it('the commit still refuses a file that changed after the diff was made', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x\n' });
    const tools = ws.tools({
      approve: async () => {
        await ws.put('a.txt', 'changed meanwhile\n');
        return { allow: 'once', edited: { 'a.txt': 'mine\n' } };
      },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'y\n' });
    expect(result).toMatchObject({ ok: false, code: 'STALE' });
    expect(await ws.text('a.txt')).toBe('changed meanwhile\n');
  });

  it('an edited answer to a read question counts as its grant', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x\n' });
    const { approver } = scriptedApprover({ allow: 'file', edited: {} });
    const tools = ws.tools({
      approve: approver,
      policy: { rules: [{ tool: 'read_file', action: 'ask' }] },
    });
    expect((await tools.execute('read_file', { file_path: 'a.txt' })).ok).toBe(true);
    expect(tools.session.grants.readFiles).toEqual(['a.txt']);
  });
});
