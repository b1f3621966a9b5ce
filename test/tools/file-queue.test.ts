import { describe, expect, it } from 'vitest';
import { FileQueue } from '../../src/tools/file-queue.js';
import { makeWorkspace, readAll, scriptedApprover } from './workspace-fixture.js';

describe('calls on one file run one after the other', () => {
  it('lands every one of 20 parallel edits of one file (none STALE)', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const ws = await makeWorkspace({ 'same.txt': `${lines.join('\n')}\n` });
    const tools = ws.tools();
    await readAll(tools, 'same.txt');
    const results = await Promise.all(
      lines.map((line, i) =>
        tools.execute(i % 2 ? 'edit_file' : 'multi_edit', {
          file_path: i % 3 ? 'same.txt' : './same.txt',
          ...(i % 2
            ? { old_string: `${line}\n`, new_string: `LINE ${i}\n` }
            : { edits: [{ old_string: `${line}\n`, new_string: `LINE ${i}\n` }] }),
        }),
      ),
    );
    expect(results.filter((result) => !result.ok)).toEqual([]);
    expect(await ws.text('same.txt')).toBe(lines.map((_, i) => `LINE ${i}\n`).join(''));
  });

  it('asks about the second change only after the first is decided and written', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\ntwo\n' });
    const { approver, asked } = scriptedApprover('once', 'once');
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    const [first, second] = await Promise.all([
      tools.execute('edit_file', { file_path: 'a.txt', old_string: 'one', new_string: 'ONE' }),
      tools.execute('edit_file', { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' }),
    ]);
    expect([first.ok, second.ok]).toEqual([true, true]);
    // The second diff was computed from the first change's result.
    expect(asked[1]!.texts?.before).toBe('ONE\ntwo\n');
    expect(await ws.text('a.txt')).toBe('ONE\nTWO\n');
  });
});

describe('FileQueue', () => {
  it('runs tasks on one key in order and tasks on other keys at once', async () => {
    const queue = new FileQueue();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = queue.run('a', async () => {
      await new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      order.push('a1');
    });
    const second = queue.run('a', async () => {
      order.push('a2');
    });
    await queue.run('b', async () => {
      order.push('b');
    });
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['b', 'a1', 'a2']);
  });

  it('gives up waiting when the call is cancelled, and runs nothing', async () => {
    const queue = new FileQueue();
    let releaseFirst!: () => void;
    const first = queue.run('a', () => new Promise<void>((resolve) => (releaseFirst = resolve)));
    const controller = new AbortController();
    let ran = false;
    const second = queue.run(
      'a',
      async () => {
        ran = true;
      },
      controller.signal,
    );
    controller.abort();
    await expect(second).rejects.toMatchObject({ code: 'CANCELLED' });
    releaseFirst();
    await first;
    expect(ran).toBe(false);
  });
});
