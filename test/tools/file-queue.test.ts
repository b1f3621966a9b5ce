import { symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Approver } from '../../src/gate/approval.js';
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

  it('a second call through a linked folder waits for a first that started alone, and sees its result', async () => {
    const ws = await makeWorkspace({ 'real/a.txt': 'one\ntwo\n' });
    symlinkSync(ws.path('real'), ws.path('link'));
    // The first call is held at its approval until the second has arrived and is waiting.
    let letFirstGo!: () => void;
    const held = new Promise<void>((resolve) => {
      letFirstGo = resolve;
    });
    const asked: Parameters<Approver>[0][] = [];
    const approver: Approver = async (request) => {
      asked.push(request);
      if (asked.length === 1) await held;
      return 'once' as const;
    };
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'real/a.txt');
    const first = tools.execute('edit_file', {
      file_path: 'real/a.txt',
      old_string: 'one',
      new_string: 'ONE',
    });
    while (asked.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = tools.execute('edit_file', {
      file_path: 'link/a.txt',
      old_string: 'two',
      new_string: 'TWO',
    });
    // Many turns of the event loop: the second is not asked about while the first is held.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toHaveLength(1);
    letFirstGo();
    expect([(await first).ok, (await second).ok]).toEqual([true, true]);
    expect(asked[1]!.texts?.before).toBe('ONE\ntwo\n');
    expect(await ws.text('real/a.txt')).toBe('ONE\nTWO\n');
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

  it('looks up no key for a call that runs alone, and both keys when a second comes while it runs', async () => {
    const queue = new FileQueue();
    const looked: string[] = [];
    const key = (name: string, value: string | undefined) => async () => {
      looked.push(name);
      return value;
    };
    await queue.run(key('alone', 'a'), async () => {});
    expect(looked).toEqual([]);

    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = queue.run(key('first', 'a'), async () => {
      await new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      order.push('first');
    });
    const same = queue.run(key('same', 'a'), async () => {
      order.push('same');
    });
    const other = queue.run(key('other', 'b'), async () => {
      order.push('other');
    });
    const refused = queue.run(key('refused', undefined), async () => {
      order.push('refused');
    });
    await Promise.all([other, refused]);
    // Neither waits for the first (the order between the two of them is not fixed).
    expect([...order].sort()).toEqual(['other', 'refused']);
    // The first call's key was looked up once, when the second came.
    expect(looked.filter((name) => name === 'first')).toHaveLength(1);
    releaseFirst();
    await Promise.all([first, same]);
    expect(order.slice(2)).toEqual(['first', 'same']);
    // All done: the next call runs alone again, without a look-up.
    looked.length = 0;
    await queue.run(key('later', 'a'), async () => {});
    expect(looked).toEqual([]);
  });

  it('a first call whose path is refused (no key) holds up no one', async () => {
    const queue = new FileQueue();
    let releaseFirst!: () => void;
    const first = queue.run(
      async () => undefined,
      () => new Promise<void>((resolve) => (releaseFirst = resolve)),
    );
    let ran = false;
    await queue.run('a', async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    releaseFirst();
    await first;
  });

  it('a lone call cancelled before it starts runs nothing', async () => {
    const queue = new FileQueue();
    const controller = new AbortController();
    controller.abort();
    let ran = false;
    await expect(
      queue.run(
        'a',
        async () => {
          ran = true;
        },
        controller.signal,
      ),
    ).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(ran).toBe(false);
  });
});
