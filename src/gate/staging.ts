import { EditgateError } from '../core/errors.js';
import type { Proposal } from './proposal.js';

export interface StagedChange {
  changeId: string;
  expiresAt: number;
}

/**
 * Changes staged but not yet applied (preview mode: a client shows the diff and the person approves a
 * separate apply call). Each can be applied once, before it expires, and only if the file has not changed.
 */
export class StagedChanges {
  private readonly pending = new Map<string, { proposal: Proposal; expiresAt: number }>();
  private readonly used = new Set<string>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  stage(proposal: Proposal): StagedChange {
    this.sweep();
    const expiresAt = this.now() + this.ttlMs;
    this.pending.set(proposal.id, { proposal, expiresAt });
    return { changeId: proposal.id, expiresAt };
  }

  /** Take a staged change for applying; it can never be taken again. */
  take(changeId: string): Proposal {
    const entry = this.pending.get(changeId);
    if (!entry) {
      if (this.used.has(changeId)) {
        throw new EditgateError(
          'INVALID_INPUT',
          `Change ${changeId} was already applied or refused; a change can be applied only once. Propose it again if it is still needed.`,
          { changeId },
        );
      }
      throw new EditgateError(
        'EXPIRED',
        `There is no pending change ${changeId}: it expired or never existed. Make the change again to get a new change_id.`,
        { changeId },
      );
    }
    this.pending.delete(changeId);
    this.used.add(changeId);
    if (entry.expiresAt <= this.now()) {
      throw new EditgateError(
        'EXPIRED',
        `Change ${changeId} expired before it was applied. Make the change again to get a fresh preview.`,
        { changeId },
      );
    }
    return entry.proposal;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.pending) {
      if (entry.expiresAt <= now) {
        this.pending.delete(id);
        this.used.add(id);
      }
    }
  }
}
