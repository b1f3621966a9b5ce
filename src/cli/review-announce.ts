/**
 * `editgate review`'s word on each change that arrives, when the person asked to answer away from this
 * page: its link (for that change alone, once, until it expires) printed with a QR code when the page
 * listens on another address, and sent where the "notify" setting says. The link is made once per change:
 * the QR code and the notification carry the same token, so whichever is used first, the other is spent.
 */

import { markInvisible } from '../core/invisible.js';
import { isReadQuestion } from '../gate/approval.js';
import { qrCodeLines } from '../terminal/qr-code.js';
import { sendNotice } from '../web/notify.js';
import type { ReviewItem } from '../web/review-queue.js';
import type { ReviewServer } from '../web/review-server.js';
import type { NotifySettings } from '../web/review-settings.js';

export interface AnnounceOptions {
  server: ReviewServer;
  /** How long a change's link works (ms). */
  linkTtlMs: number;
  notify?: NotifySettings;
  /** Print the link and its QR code (when the page listens on another address). */
  printLinks: boolean;
  /** QR code in colours (stdout is a terminal that shows them). */
  color: boolean;
  out: (text: string) => void;
  warn: (text: string) => void;
}

/** Starts announcing; returns the function that stops it. */
export function announceChanges(options: AnnounceOptions): () => void {
  const { server } = options;
  if (!options.printLinks && !options.notify) return () => undefined;
  return server.queue.subscribe((event) => {
    if (event.type !== 'added' || isReadQuestion(event.item.request)) return;
    void announce(event.item, options);
  });
}

async function announce(item: ReviewItem, options: AnnounceOptions): Promise<void> {
  const link = options.server.changeLink(item.id, options.linkTtlMs);
  const expiresAt = new Date(Date.now() + options.linkTtlMs);
  const files = item.files.map((file) => ({
    path: file.path,
    kind: file.kind,
    added: file.stats.added,
    removed: file.stats.removed,
  }));
  if (options.printLinks) {
    const summary = files
      .map((file) => `${markInvisible(file.path)} +${file.added} -${file.removed}`)
      .join(', ');
    options.out(
      `\nA change waits: ${summary} (asked by ${markInvisible(item.source)}).\nOpen it on your phone (once, within ${Math.round(options.linkTtlMs / 60_000)} min): ${link}\n${qrCodeLines(link, { color: options.color }).join('\n')}\n`,
    );
  }
  if (options.notify) {
    const problem = await sendNotice(options.notify, {
      files,
      source: item.source,
      link,
      expiresAt,
      diff: item.files.map((file) => file.unifiedDiff).join('\n'),
    });
    if (problem) options.warn(`editgate review: the notification was not sent: ${problem}.\n`);
  }
}
