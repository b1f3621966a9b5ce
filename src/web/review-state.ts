/**
 * What the review server's handlers share: the queue of changes, the signed-in sessions and sign-in links,
 * the person's own versions, the open streams, and the secrets other editgate processes use.
 */
import type { ServerResponse } from 'node:http';
import type { ListenAddress } from '../core/listen-host.js';
import type { Asset } from './assets.js';
import type { BadTokenThrottle } from './bad-token-throttle.js';
import type { FileView } from './diff-html.js';
import type { Sessions } from './request-guard.js';
import type { ReviewQueue } from './review-queue.js';
import type { SignInLinks } from './sign-in-links.js';

export interface ReviewState {
  /** The workspace root, resolved; and its real path (what the server proves itself over). */
  readonly root: string;
  readonly realRoot: string;
  /** The port the server listens on (known once it does; no request arrives before). */
  readonly port: number;
  readonly assets: ReadonlyMap<string, Asset>;
  readonly queue: ReviewQueue;
  readonly links: SignInLinks;
  readonly sessions: Sessions;
  /** The bearer token and the proof key of `editgate review` (undefined: no changes from other processes). */
  readonly submitToken: string | undefined;
  readonly serverKey: string | undefined;
  /** Largest JSON body accepted, in bytes. */
  readonly maxBody: number;
  /** The person's own versions, by change and hash, so their pages and regions can be loaded too. */
  readonly variants: Map<string, Map<string, FileView[]>>;
  /** The page's live event streams, each with the one change its session may see (undefined: all). */
  readonly eventStreams: Map<ServerResponse, string | undefined>;
  /** The listening address (`--listen`, HTTPS) and the port it got; undefined: 127.0.0.1 only. */
  readonly listen: { readonly address: ListenAddress; readonly port: number } | undefined;
  /** Bad tokens on the listening address, by the address they came from. */
  readonly throttle: BadTokenThrottle;
  /** Changes sent by other processes, by id: aborting one withdraws it from the page. */
  readonly withdrawals: Map<string, AbortController>;
  /** Answers still streaming (events, submissions): ended when the server closes. */
  readonly openResponses: Set<ServerResponse>;
}

/** The session cookie's name: one per port, so two review pages on this machine keep their own. */
export function cookieName(state: Pick<ReviewState, 'port'>): string {
  return `editgate-review-${state.port}`;
}
