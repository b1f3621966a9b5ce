import { LanguageServer } from './language-server.js';
import type { LanguageServerSpec } from './language-server-config.js';

/**
 * The language servers this process runs (issue #32): one per configured server and workspace root, started
 * at the first change of a file it checks and kept for the process's life (an MCP server, a chat, a proxy
 * serve many changes; every tool set of the process shares them). They never keep the process alive; when it
 * ends they are stopped: the protocol's way when the process ends by itself, by a signal to their process
 * group when it exits at once. A server that stopped is started again at the next change, up to MOST_STARTS
 * times, so one that crashes at every start is not started forever.
 */

/** Starts per server and root in a process: past them a stopped server stays stopped, and says why. */
export const MOST_STARTS = 3;
/** How long a process that ends by itself waits for its servers to stop the protocol's way. */
const LAST_SHUTDOWN_MS = 500;

const running = new Map<string, LanguageServer>();
const starts = new Map<string, { count: number; lastReason?: string }>();
let handlersInstalled = false;

/** The running server for `spec` in `root`, started now if need be; a string says why there is none. */
export function languageServerFor(spec: LanguageServerSpec, root: string): LanguageServer | string {
  const key = keyOf(spec, root);
  const server = running.get(key);
  if (server && server.stoppedBecause === undefined) return server;
  const started = starts.get(key) ?? { count: 0 };
  if (started.count >= MOST_STARTS)
    return `${started.lastReason ?? 'its server stopped'}; not started again (it stopped ${started.count} times)`;
  installHandlers();
  const fresh = new LanguageServer(spec, root);
  started.count++;
  starts.set(key, started);
  running.set(key, fresh);
  fresh.whenStopped((stopped) => {
    started.lastReason = stopped.stoppedBecause;
    if (running.get(key) === stopped) running.delete(key);
  });
  return fresh;
}

/**
 * Stops every language server this process started, the protocol's way (a signal if one does not go),
 * and forgets how often each was started. For a front end's shutdown and for tests; the process's end
 * stops them anyway.
 */
export async function closeLanguageServers(timeoutMs?: number): Promise<void> {
  const servers = [...running.values()];
  running.clear();
  starts.clear();
  await Promise.all(servers.map((server) => server.shutdown(timeoutMs)));
}

/** How many servers are running now (for tests and the bench). */
export function runningLanguageServers(): number {
  return running.size;
}

function keyOf(spec: LanguageServerSpec, root: string): string {
  const { files: _files, ...server } = spec;
  return JSON.stringify([root, server]);
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  // Ending by itself (nothing left to do): the servers are told to shut down and given a moment.
  process.on('beforeExit', () => {
    if (running.size > 0) void closeLanguageServers(LAST_SHUTDOWN_MS);
  });
  // Ending at once (process.exit): no time to talk, so their process groups are signalled.
  process.once('exit', () => {
    for (const server of running.values()) server.stopNow();
    running.clear();
  });
}
