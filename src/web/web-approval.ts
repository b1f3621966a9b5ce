/**
 * `--approve web` for any front end: changes are reviewed on a local page. When `editgate review` is
 * running for the same root (found through its discovery file), changes go to that page, so one browser
 * tab serves every editgate process working on the root; otherwise this process serves its own page for
 * as long as it runs.
 */

import type { Approver } from '../gate/approval.js';
import { findReview } from './discovery.js';
import { proveReview, remoteApprover, requestSignInLink } from './remote-review.js';
import { startReviewServer } from './review-server.js';

export interface WebApprovalOptions {
  root: string;
  /** The user's state folder, where `editgate review` publishes itself; none: always serve a page here. */
  stateDir?: string;
  /** Who asks, as the page shows it: "editgate edit (pid 4242)". */
  source: string;
  /** A line for the person (a discovery file that was not trusted). */
  warn?: (message: string) => void;
}

export interface WebApproval {
  ask: Approver;
  /** A sign-in link of the page, good once. */
  url: string;
  /** Another sign-in link (for `ttlMs` when given: a link handed to a browser to open). */
  signInLink(ttlMs?: number): Promise<string>;
  /** The changes go to a running `editgate review` (pid), not to a page of this process. */
  sharedWith?: number;
  close(): Promise<void>;
}

/**
 * The page of an `editgate review` running for the root, when there is one that proves itself; undefined
 * otherwise (a discovery file that is not trusted is said through `warn`). Nothing is started here.
 */
export async function runningWebApproval(
  options: WebApprovalOptions & { stateDir: string },
  /** What happens instead when a page is found but not used, said after the reason: "serving a page here". */
  otherwise = 'not used',
): Promise<WebApproval | undefined> {
  const found = await findReview(options.stateDir, options.root);
  if ('refused' in found) options.warn?.(`${found.refused}; ${otherwise}`);
  else if ('note' in found && found.note) options.warn?.(found.note);
  else if ('found' in found) {
    const review = found.found;
    const proven = await proveReview(review);
    if ('refused' in proven) {
      options.warn?.(
        `${proven.refused} (editgate review, pid ${review.pid}); nothing was sent to it, ${otherwise}`,
      );
      return undefined;
    }
    return {
      ask: remoteApprover(review, options.source),
      url: await requestSignInLink(review),
      signInLink: (ttlMs) => requestSignInLink(review, ttlMs),
      sharedWith: review.pid,
      close: async () => undefined,
    };
  }
  return undefined;
}

export async function openWebApproval(options: WebApprovalOptions): Promise<WebApproval> {
  if (options.stateDir) {
    const running = await runningWebApproval(
      { ...options, stateDir: options.stateDir },
      'serving a page here',
    );
    if (running) return running;
  }
  const server = await startReviewServer({ root: options.root, source: options.source });
  return {
    ask: (request, ask = {}) =>
      server.ask(request, {
        ...(ask.signal ? { signal: ask.signal } : {}),
        ...(ask.answeredFrom ? { answeredFrom: ask.answeredFrom } : {}),
      }),
    url: server.url,
    signInLink: async (ttlMs) => server.signInLink(ttlMs),
    close: () => server.close(),
  };
}
