/**
 * What a test opened and must close when it ends (a server, a temp folder, a connection), registered by the
 * helpers that open it and run after each test, last in first out, by test/setup/cleanup.ts: a setup file
 * runs per test file, also where files share a worker and its modules (vitest.config.ts), where a hook
 * registered at a helper module's top would run for the first file that imported it and never again.
 */
const cleanups: Array<() => Promise<void> | void> = [];

/** Runs `fn` after the test that is running now. */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

/** Runs what the test that ended registered (test/setup/cleanup.ts, after each test). */
export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}
