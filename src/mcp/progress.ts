import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';

export const PROGRESS_INTERVAL_MS = 1000;

/**
 * While a call runs, when the client gave a progressToken, tell it every second that the call is still
 * alive and what it is doing (a huge file, or a person reading a diff). editgate cannot know how far along a
 * write or an approval is, so there is no total: progress counts seconds. Returns the function that stops it.
 */
export function startProgress(
  progressToken: string | number | undefined,
  send: (notification: ServerNotification) => Promise<void>,
  status: () => string,
  intervalMs = PROGRESS_INTERVAL_MS,
): () => void {
  if (progressToken === undefined) return () => {};
  let ticks = 0;
  const timer = setInterval(() => {
    ticks++;
    const seconds = Math.round((ticks * intervalMs) / 1000);
    send({
      method: 'notifications/progress',
      params: { progressToken, progress: ticks, message: `${status()} (${seconds}s)` },
    }).catch(() => {
      // The client went away; the call's own result (or cancellation) reports that.
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
