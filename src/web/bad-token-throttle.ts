/**
 * Bad tokens from one address, slowed and then refused: on the review page's listening address (`--listen`),
 * where anyone on the network can try links, cookies and nonces. Each is 256 random bits, so guessing one is
 * hopeless anyway; the throttle makes a try that is not a person's costly and visible: after `slowAfter`
 * bad tokens within `windowMs` every answer to that address waits `delayMs` more per bad token (up to
 * MAX_DELAY_MS), and after `refuseAfter` the address is refused outright (HTTP 429) until the window ends,
 * good token or not, so a lucky guess after many is worth nothing either.
 *
 * Not applied on 127.0.0.1: every program of this machine asks from that one address, and a refusal there
 * would let any of them lock the person (and editgate's own processes) out of the page.
 */

export interface ThrottleOptions {
  /** Bad tokens within the window before answers slow down. Default 5. */
  slowAfter: number;
  /** Bad tokens within the window before the address is refused. Default 20. */
  refuseAfter: number;
  /** Default 15 minutes. */
  windowMs: number;
  /** Added per bad token past `slowAfter`. Default 1 s. */
  delayMs: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = {
  slowAfter: 5,
  refuseAfter: 20,
  windowMs: 15 * 60_000,
  delayMs: 1000,
};

const MAX_DELAY_MS = 10_000;

/** Addresses remembered at once (the oldest forgotten first): a flood of addresses cannot grow it. */
const MAX_ADDRESSES = 4096;

interface Record {
  count: number;
  since: number;
}

export class BadTokenThrottle {
  private readonly byAddress = new Map<string, Record>();

  constructor(readonly options: ThrottleOptions = DEFAULT_THROTTLE) {}

  /** Whether the address is refused now; when so, the minutes left until its window ends. */
  refused(address: string, now = Date.now()): { minutes: number } | undefined {
    const record = this.current(address, now);
    if (!record || record.count < this.options.refuseAfter) return undefined;
    return { minutes: Math.max(1, Math.ceil((record.since + this.options.windowMs - now) / 60_000)) };
  }

  /** A bad token from the address: how long to wait before answering it (ms). */
  failed(address: string, now = Date.now()): number {
    let record = this.current(address, now);
    if (!record) {
      record = { count: 0, since: now };
      this.byAddress.set(address, record);
      if (this.byAddress.size > MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
    }
    record.count++;
    const over = record.count - this.options.slowAfter;
    return over > 0 ? Math.min(MAX_DELAY_MS, over * this.options.delayMs) : 0;
  }

  private current(address: string, now: number): Record | undefined {
    const record = this.byAddress.get(address);
    if (record && now - record.since > this.options.windowMs) {
      this.byAddress.delete(address);
      return undefined;
    }
    return record;
  }
}
