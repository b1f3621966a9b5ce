/**
 * The links that sign a browser in to the review page. Each carries a 256-bit token that works once: a
 * link seen by someone else (a screen share, a terminal's scrollback, a command line) is worth nothing
 * once the person has used it, and a second use is refused with a page that says why, so it cannot go
 * unnoticed. A link made for a program to open (`--open`) also expires after a short time. Tokens are
 * kept by their sha256 only and looked up by it, so neither a token nor its length leaks through timing.
 *
 * A change's link (the one a notification or the terminal's QR code carries) is scoped: the session it
 * makes sees and answers that one change, once (route-access.ts), and it expires (CHANGE_LINK_TTL_MS by
 * default). It is the only kind the review page's listening address (`--listen`) takes.
 */
import { createHash } from 'node:crypto';
import { newSecret } from './request-guard.js';

export type Redeemed =
  /** The token was good: sign the browser in. */
  | 'signed-in'
  /** It was good once and has been used. */
  | 'used'
  /** It was never used and is past its time. */
  | 'expired'
  /** It is no token this server made. */
  | 'unknown';

interface Issued {
  /** Epoch ms after which the link no longer signs in; none: until used. */
  expiresAt: number | undefined;
  used: boolean;
  /** A change's link: the id of the one change its session may see and answer. */
  change: string | undefined;
}

/** How long a link made for a program to open (`--open`) signs in: time to start a browser, no more. */
export const OPEN_LINK_TTL_MS = 120_000;

/** How long a change's link (a notification's, the QR code's) works when not told otherwise. */
export const CHANGE_LINK_TTL_MS = 15 * 60_000;

/** Used and expired tokens are remembered (to say why a link no longer works) up to this many. */
const MAX_REMEMBERED = 256;

export class SignInLinks {
  private readonly issued = new Map<string, Issued>();

  /** A new token, good for one sign-in (within `ttlMs` when given; for one change when `change` is). */
  issue(options: { ttlMs?: number | undefined; now?: number; change?: string } = {}): string {
    const token = newSecret();
    const now = options.now ?? Date.now();
    this.issued.set(digest(token), {
      expiresAt: options.ttlMs === undefined ? undefined : now + options.ttlMs,
      used: false,
      change: options.change,
    });
    this.forgetOld();
    return token;
  }

  /** Takes a token; a good one is used up by this call. */
  redeem(token: string, now = Date.now()): Redeemed {
    return this.redeemScoped(token, now).redeemed;
  }

  /** Takes a token, and says which change it was for (undefined: a link to the whole page). */
  redeemScoped(token: string, now = Date.now()): { redeemed: Redeemed; change?: string | undefined } {
    const entry = this.issued.get(digest(token));
    if (!entry) return { redeemed: 'unknown' };
    const { change } = entry;
    if (entry.used) return { redeemed: 'used', change };
    if (entry.expiresAt !== undefined && now > entry.expiresAt) return { redeemed: 'expired', change };
    entry.used = true;
    return { redeemed: 'signed-in', change };
  }

  private forgetOld(): void {
    if (this.issued.size <= MAX_REMEMBERED) return;
    for (const [key, entry] of this.issued) {
      if (this.issued.size <= MAX_REMEMBERED) return;
      // Unused links stay good: only spent ones are forgotten, the oldest first.
      if (entry.used || (entry.expiresAt !== undefined && entry.expiresAt < Date.now()))
        this.issued.delete(key);
    }
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
