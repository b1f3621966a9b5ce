/**
 * When a review page is idle (src/web/review-idle.ts), on a real review server: a waiting change or an open
 * page keeps it; once neither, and nothing has happened for the wait, it is idle.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { pageInUse, whenIdle } from '../../src/web/review-idle.js';
import { reviewWorkspace, signIn } from './review-fixture.js';

const IDLE_MS = 300;
const LOOK_MS = 20;
const watches: Array<{ stop: () => void }> = [];
afterEach(() => {
  for (const watch of watches.splice(0)) watch.stop();
});

/** Whether the promise has settled after `ms` (it is never waited on past that). */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}

function watch(server: Parameters<typeof whenIdle>[0]) {
  const watched = whenIdle(server, IDLE_MS, LOOK_MS);
  watches.push(watched);
  return watched.idle;
}

describe('an idle review page', () => {
  it('with nothing waiting and no page open, is idle after the wait', async () => {
    const { server } = await reviewWorkspace();
    expect(pageInUse(server)).toBe(false);
    expect(await settledWithin(watch(server), IDLE_MS * 5)).toBe(true);
  });

  it('a change waiting keeps it, however long; once answered, it is idle after the wait', async () => {
    const { server, propose } = await reviewWorkspace({ 'a.txt': 'one\n' });
    const { id, hash, result } = await propose('write_file', { file_path: 'a.txt', content: 'two\n' });
    const idle = watch(server);
    expect(pageInUse(server)).toBe(true);
    expect(await settledWithin(idle, IDLE_MS * 3)).toBe(false);
    const person = await signIn(server);
    expect((await person.decide(id, { decision: 'deny', hash, reason: 'not now' })).status).toBe(200);
    await result;
    expect(pageInUse(server)).toBe(false);
    expect(await settledWithin(idle, IDLE_MS * 5)).toBe(true);
  });

  it('a page open in a browser keeps it; once closed, it is idle after the wait', async () => {
    const { server } = await reviewWorkspace();
    const person = await signIn(server);
    const idle = watch(server);
    const stream = request({
      host: '127.0.0.1',
      port: server.port,
      path: `/events?nonce=${person.nonce}`,
      headers: { Host: `127.0.0.1:${server.port}`, Cookie: person.cookie },
    });
    const opened = new Promise<number>((resolve, reject) => {
      stream.on('response', (res) => resolve(res.statusCode ?? 0));
      stream.on('error', reject);
    });
    stream.end();
    expect(await opened).toBe(200);
    expect(server.openPages).toBe(1);
    expect(await settledWithin(idle, IDLE_MS * 3)).toBe(false);
    stream.destroy();
    expect(await settledWithin(idle, IDLE_MS * 5)).toBe(true);
    expect(server.openPages).toBe(0);
  });
});
