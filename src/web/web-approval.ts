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

export async function openWebApproval(options: WebApprovalOptions): Promise<WebApproval> {
  if (options.stateDir) {
    const found = await findReview(options.stateDir, options.root);
    if ('refused' in found) options.warn?.(`${found.refused}; serving a page here`);
    else if ('note' in found && found.note) options.warn?.(found.note);
    else if ('found' in found) {
      const review = found.found;
      const proven = await proveReview(review);
      if ('refused' in proven) {
        options.warn?.(
          `${proven.refused} (editgate review, pid ${review.pid}); nothing was sent to it, serving a page here`,
        );
      } else {
        return {
          ask: remoteApprover(review, options.source),
          url: await requestSignInLink(review),
          signInLink: (ttlMs) => requestSignInLink(review, ttlMs),
          sharedWith: review.pid,
          close: async () => undefined,
        };
      }
    }
  }
  const server = await startReviewServer({ root: options.root, source: options.source });
  return {
    ask: (request, ask = {}) => server.ask(request, ask.signal ? { signal: ask.signal } : {}),
    url: server.url,
    signInLink: async (ttlMs) => server.signInLink(ttlMs),
    close: () => server.close(),
  };
}
