import { createHash } from 'node:crypto';
import { EditgateError } from '../core/errors.js';
import { markInvisible } from '../core/invisible.js';
import type { Proposal } from './proposal.js';

export interface StagedChange {
  changeId: string;
  expiresAt: number;
  /** The change's short hash (changeHash): the apply call names it, so the person's client shows it. */
  hash: string;
}

/** What an apply call says it writes: the file and the change's short hash, as the person saw them. */
export interface NamedChange {
  path: string;
  hash: string;
}

/**
 * A short hash of what a person is shown of a change: every file's path, kind and diff. Two changes that
 * look different to a person have different hashes (48 bits: no model can aim at another change's hash).
 */
export function changeHash(proposal: Proposal): string {
  const hash = createHash('sha256');
  for (const file of proposal.files) hash.update(`${file.path}\0${file.kind}\0${file.unifiedDiff}\0`);
  return hash.digest('hex').slice(0, 12);
}

/**
 * Changes staged but not yet applied (preview mode: a client shows the diff and the person approves a
 * separate apply call). Each can be applied once, before it expires, and only if the file has not changed.
 */
export class StagedChanges {
  private readonly pending = new Map<string, { proposal: Proposal; expiresAt: number; hash: string }>();
  private readonly used = new Set<string>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  stage(proposal: Proposal): StagedChange {
    this.sweep();
    const expiresAt = this.now() + this.ttlMs;
    const hash = changeHash(proposal);
    this.pending.set(proposal.id, { proposal, expiresAt, hash });
    return { changeId: proposal.id, expiresAt, hash };
  }

  /**
   * Take a staged change for applying; it can never be taken again. With `named`, the apply call's file
   * and hash must be the staged change's: a model cannot show the person one change and apply another
   * (refused, and the staged change stays for the right call).
   */
  take(changeId: string, named?: NamedChange): Proposal {
    const entry = this.pending.get(changeId);
    // The path as the proposal states it (with any invisible character spelled out, as it was shown).
    const path = entry?.proposal.files[0]?.path;
    const pathMatches = path !== undefined && (named?.path === path || named?.path === markInvisible(path));
    if (entry && named && (!pathMatches || named.hash !== entry.hash)) {
      throw new EditgateError(
        'INVALID_INPUT',
        `Change ${changeId} does not match the file and change_hash given (${JSON.stringify(named.path)}, ${JSON.stringify(named.hash)}): it changes ${entry.proposal.files[0]!.path} and its change_hash is "${entry.hash}". Nothing was written. Apply exactly the change the user saw, naming its file and change_hash as its proposal states.`,
        { changeId, path: entry.proposal.files[0]!.path },
      );
    }
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
        `There is no pending change ${changeId}: it expired or never existed. Make the change again to get a new change_id. A change_id belongs to the session that proposed it (for an MCP server, one client connection: a client that connects anew for each call, as the MCP Inspector CLI does, cannot apply a change proposed in an earlier one).`,
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
