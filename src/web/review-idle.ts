/**
 * When a review page has nothing left to do: no change waits on it, no page is open in a browser, and
 * nothing has arrived or been answered for a while. A page a hook started for the person (cli/hook-review-
 * page.ts) ends then, as the hook server does when idle, rather than listening until the machine restarts;
 * a page the person started stays until they stop it.
 */
import type { ReviewServer } from './review-server.js';

/** How often the page looks whether it is idle: a minute's precision is plenty for a wait of minutes. */
const LOOK_EVERY_MS = 30_000;

/** Whether anything keeps the page: a change still waiting (or stale, still to be answered), a page open. */
export function pageInUse(server: Pick<ReviewServer, 'queue' | 'openPages'>): boolean {
  if (server.openPages > 0) return true;
  return server.queue.list().some((item) => item.status === 'pending' || item.status === 'stale');
}

/**
 * Resolves once the page has been idle (pageInUse false, no change to the queue) for `idleMs`; `stop` ends
 * the watch without resolving. `lookEveryMs` is for tests.
 */
export function whenIdle(
  server: Pick<ReviewServer, 'queue' | 'openPages'>,
  idleMs: number,
  lookEveryMs = Math.min(LOOK_EVERY_MS, idleMs),
): { idle: Promise<void>; stop: () => void } {
  let lastUse = Date.now();
  const unsubscribe = server.queue.subscribe(() => {
    lastUse = Date.now();
  });
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(timer);
    unsubscribe();
  };
  const idle = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      if (pageInUse(server)) lastUse = Date.now();
      else if (Date.now() - lastUse >= idleMs) {
        stop();
        resolve();
      }
    }, lookEveryMs);
    timer.unref();
  });
  return { idle, stop };
}
