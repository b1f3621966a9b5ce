/**
 * Files that must not outlive the process (a streamed edit's temp file, a full-size copy of a huge file;
 * reverse patches of a history kept in memory) are removed when it exits (io.ts: removeAtExit). A process
 * ended by SIGINT or SIGTERM (Ctrl-C, a client closing the server) does not run its exit hooks; the CLI
 * and the MCP server install this, so those signals remove them too, then end the process by the same
 * signal, as if nothing had been listening. Where the program listens itself (a server closing, a turn being
 * cancelled), it ends in its own way and the exit hook removes them then. A library does not install
 * handlers for its host; a SIGKILL cannot be caught: the next write to that folder sweeps what is left
 * (temp-sweep.ts).
 */
import { removeLeftovers } from './io.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let installed = false;

export function removeLeftoversOnSignals(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) {
    const onSignal = () => {
      // Someone else handles it (and the process ends through its exit hook, or goes on). The listeners
      // of signal-exit (proper-lockfile's, for its locks) do not count: they too end the process by the
      // signal when nobody else listens, and do so once this one is gone and the signal sent again.
      if (process.listenerCount(signal) - 1 - signalExitListeners() > 0) return;
      removeLeftovers();
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/** How many signal-exit copies listen (it keeps its count on a shared emitter on `process`). */
function signalExitListeners(): number {
  const emitter = (process as { __signal_exit_emitter__?: { count?: unknown } }).__signal_exit_emitter__;
  return typeof emitter?.count === 'number' ? emitter.count : 0;
}
