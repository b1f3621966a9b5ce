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

/** A review page found running for the root: where to ask, and whose it is. */
export interface RunningReview {
  ask: Approver;
  /** The `editgate review` process serving it. */
  pid: number;
  /** The page's address without a token (http://127.0.0.1:PORT/), safe to show anywhere. */
  address: string;
  /** A new sign-in link of the page, good once (for `ttlMs` when given). */
  signInLink(ttlMs?: number): Promise<string>;
}

/**
 * Looks for an `editgate review` running for the root each time it is called, so a page started after
 * this process is used and one that stopped is not (editgate proxy's auto, per question). Cheap: a stat
 * and a read of the discovery file, and the page's proof only when the file names another server than
 * last time (the page proves itself again before each change is sent: remote-review.ts). Each warning is
 * said once, not at every question.
 */
export function runningReviewFinder(
  options: WebApprovalOptions & { stateDir: string },
): () => Promise<RunningReview | undefined> {
  const said = new Set<string>();
  const warn = (message: string) => {
    if (said.has(message)) return;
    said.add(message);
    options.warn?.(message);
  };
  let proven: { key: string; review: RunningReview } | undefined;
  return async () => {
    const found = await findReview(options.stateDir, options.root);
    if ('refused' in found) warn(`${found.refused}; not used`);
    else if ('note' in found && found.note) warn(found.note);
    if (!('found' in found)) return undefined;
    const record = found.found;
    const key = `${record.pid}:${record.port}:${record.serverKey}`;
    if (proven?.key === key) return proven.review;
    const proof = await proveReview(record);
    if ('refused' in proof) {
      warn(`${proof.refused} (editgate review, pid ${record.pid}); nothing was sent to it, not used`);
      return undefined;
    }
    proven = {
      key,
      review: {
        ask: remoteApprover(record, options.source),
        pid: record.pid,
        address: `http://127.0.0.1:${record.port}/`,
        signInLink: (ttlMs) => requestSignInLink(record, ttlMs),
      },
    };
    return proven.review;
  };
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
