import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../src/core/keyed-queue.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('KeyedQueue', () => {
  it('runs the tasks of one key one after another, in the order handed in', async () => {
    const queue = new KeyedQueue();
    const seen: string[] = [];
    let running = 0;
    const task = (name: string) => async () => {
      running++;
      expect(running).toBe(1);
      seen.push(`${name} start`);
      await tick();
      seen.push(`${name} end`);
      running--;
      return name;
    };
    const results = await Promise.all([
      queue.run('a', task('1')),
      queue.run('a', task('2')),
      queue.run('a', task('3')),
    ]);
    expect(results).toEqual(['1', '2', '3']);
    expect(seen).toEqual(['1 start', '1 end', '2 start', '2 end', '3 start', '3 end']);
    expect(queue.size).toBe(0);
  });

  it('lets different keys run side by side', async () => {
    const queue = new KeyedQueue();
    let releaseA!: () => void;
    const a = queue.run('a', () => new Promise<void>((resolve) => (releaseA = resolve)));
    // b does not wait for a, which only ends once b has run.
    expect(await queue.run('b', async () => 'b')).toBe('b');
    releaseA();
    await a;
    expect(queue.size).toBe(0);
  });

  it('a failed task rejects its own caller only; the next still runs', async () => {
    const queue = new KeyedQueue();
    const failed = queue.run('a', async () => {
      throw new Error('boom');
    });
    const next = queue.run('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next');
    expect(queue.size).toBe(0);
  });

  it('enqueue: work already under way holds the key until it settles, even when it rejects', async () => {
    const queue = new KeyedQueue();
    let fail!: (error: Error) => void;
    const underWay = new Promise<void>((_resolve, reject) => (fail = reject));
    underWay.catch(() => undefined);
    await queue.enqueue('a', underWay);
    let ran = false;
    const next = queue.run('a', async () => {
      ran = true;
    });
    await tick();
    expect(ran).toBe(false);
    fail(new Error('gone'));
    await next;
    expect(ran).toBe(true);
    expect(queue.size).toBe(0);
  });
});
