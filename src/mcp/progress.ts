import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { formatBytes } from '../core/format-bytes.js';
import { ProgressPasses, phaseVerb } from '../core/progress.js';
import type { CreateEditToolsOptions } from '../tools/index.js';

export const PROGRESS_INTERVAL_MS = 1000;

type ProgressCallback = NonNullable<CreateEditToolsOptions['onProgress']>;

export interface CallProgress {
  /** The tools' onProgress for this call: streamed work on a huge file, in bytes. */
  onProgress: ProgressCallback;
  stop(): void;
}

const NONE: CallProgress = { onProgress: () => {}, stop: () => {} };

/**
 * Progress notifications for one call, when the client gave a progressToken. Streamed work on a huge file
 * reports bytes: `progress` is the bytes processed and `total` the bytes to go through, with a message like
 * "writing src/big.sql: 512.0 MB of 1.0 GB". A call that passes over the file twice (indexing it, then
 * writing) counts both passes, so `progress` only grows; `total` grows when the second pass starts. When
 * nothing is streaming (a person reading a diff, a small file), a tick every second says the call is alive
 * and what it is doing; editgate cannot know how far along an approval is, so those carry no total.
 * Every notification's `progress` is above the one before, as the MCP spec requires.
 */
export function startProgress(
  progressToken: string | number | undefined,
  send: (notification: ServerNotification) => Promise<void>,
  status: () => string,
  intervalMs = PROGRESS_INTERVAL_MS,
): CallProgress {
  if (progressToken === undefined) return NONE;
  let sent = 0;
  let sentAt = 0;
  let stopped = false;
  const started = Date.now();
  const passes = new ProgressPasses();

  const notify = (progress: number, message: string, total?: number) => {
    sent = progress;
    sentAt = Date.now();
    const params =
      total === undefined
        ? { progressToken, progress, message }
        : { progressToken, progress, total, message };
    send({ method: 'notifications/progress', params }).catch(() => {
      // The client went away; the call's own result (or cancellation) reports that.
    });
  };

  const timer = setInterval(() => {
    // Byte progress said enough within the last interval.
    if (Date.now() - sentAt < intervalMs) return;
    const seconds = Math.round((Date.now() - started) / 1000);
    notify(sent + 1, `${status()} (${seconds}s)`);
  }, intervalMs);
  timer.unref();

  return {
    // The tools already send at most about ten events a second (and the start and end of each pass).
    onProgress(event) {
      if (stopped) return;
      const overall = passes.update(event);
      if (overall.done <= sent) return;
      notify(
        overall.done,
        `${phaseVerb(overall.phase)} ${overall.path}: ${formatBytes(overall.passDone)} of ${formatBytes(overall.passTotal)}`,
        overall.total,
      );
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
