/**
 * execute(name, input, { signal }): a call cancelled at any step before the rename writes nothing and says
 * so (ok: false, CANCELLED), whether it waits for a person, is about to be written, or is streaming a huge
 * file through a temp file.
 */
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readAll } from './workspace-fixture.js';

const EDIT = { file_path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' };

async function noTemps(folder: string): Promise<void> {
  expect((await readdir(folder)).filter((name) => name.includes('.editgate-'))).toEqual([]);
}

describe('cancellation', () => {
  it('a call cancelled before it starts does nothing', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', EDIT, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ ok: false, code: 'CANCELLED' });
    expect(result.message).toBe(
      'edit_file failed (CANCELLED): The call was cancelled before anything was written; the file is as it was.',
    );
    expect(await ws.text('a.txt')).toBe('alpha\n');
  });

  it('cancelled while the person decides: the approver is told, nothing is written', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const controller = new AbortController();
    let approverSignal: AbortSignal | undefined;
    const tools = ws.tools({
      approve: (_request, context) => {
        approverSignal = context?.signal;
        setImmediate(() => controller.abort());
        return new Promise(() => {}); // never answers
      },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', EDIT, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, code: 'CANCELLED' });
    expect(approverSignal?.aborted).toBe(true);
    expect(await ws.text('a.txt')).toBe('alpha\n');
    // The call can be made again.
    expect((await ws.tools().execute('read_file', { file_path: 'a.txt' })).ok).toBe(true);
  });

  it('an approver that stops because the call was cancelled is CANCELLED, never "the user denied"', async () => {
    // The signal fires while the approver is called (before the gate could listen for it), and the approver
    // gives up with the abort's error, as a prompt that honours its signal does.
    for (const answer of ['rejects', 'answers'] as const) {
      const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
      const controller = new AbortController();
      const tools = ws.tools({
        approve: (_request, context) => {
          controller.abort();
          if (answer === 'answers') return 'deny';
          return Promise.reject(context?.signal?.reason);
        },
      });
      await readAll(tools, 'a.txt');
      const result = await tools.execute('edit_file', EDIT, { signal: controller.signal });
      expect(result, answer).toMatchObject({ ok: false, code: 'CANCELLED' });
      expect(result.message).not.toMatch(/denied/i);
      expect(await ws.text('a.txt')).toBe('alpha\n');
    }
  });

  it('cancelled after approval, before the write: nothing written, nothing in history', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const controller = new AbortController();
    const tools = ws.tools({
      approve: 'allow',
      policy: { rules: [{ action: 'allow' }] },
      onPreview: () => controller.abort(),
    });
    await readAll(tools, 'a.txt');
    expect(await tools.execute('edit_file', EDIT, { signal: controller.signal })).toMatchObject({
      code: 'CANCELLED',
    });
    expect(await ws.text('a.txt')).toBe('alpha\n');
    expect(await tools.execute('undo_edit', { file_path: 'a.txt' })).toMatchObject({
      code: 'NOTHING_TO_UNDO',
    });
    await noTemps(ws.root);
  });

  it('a streamed edit cancelled while it writes its temp file removes it and leaves the file whole', async () => {
    const text = Array.from({ length: 40_000 }, (_, i) => `line ${i} of a file edited by streaming`).join(
      '\n',
    );
    const ws = await makeWorkspace({ 'big.txt': `${text}\n` });
    const controller = new AbortController();
    const writes: number[] = [];
    const tools = ws.tools({
      streamThreshold: 1000,
      streamChunkSize: 4096,
      onProgress: (event) => {
        if (event.phase !== 'write') return;
        writes.push(event.done);
        controller.abort(); // at the first chunk written
      },
    });
    await tools.execute('read_file', { file_path: 'big.txt', limit: 5 });
    const result = await tools.execute(
      'edit_file',
      { file_path: 'big.txt', old_string: 'line 39999 of', new_string: 'LAST line of' },
      { signal: controller.signal },
    );
    expect(result).toMatchObject({ ok: false, code: 'CANCELLED' });
    // It stopped at the next chunk: the write never got near the end of the file.
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBeLessThan(text.length / 10);
    expect(await ws.text('big.txt')).toBe(`${text}\n`);
    await noTemps(ws.root);
  });

  it('preview mode: a cancelled call stages nothing', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const controller = new AbortController();
    const tools = ws.tools({ mode: 'preview', onPreview: () => controller.abort() });
    await readAll(tools, 'a.txt');
    const staged = await tools.execute('edit_file', EDIT, { signal: controller.signal });
    expect(staged).toMatchObject({ ok: false, code: 'CANCELLED' });
    expect(staged.details.changeId).toBeUndefined();
    expect(await ws.text('a.txt')).toBe('alpha\n');
  });
});
