import { basename } from 'node:path';
import { EditgateError } from '../core/errors.js';
import type { Fingerprint } from './files.js';

export interface LedgerEntry {
  /** The last read (or write) covered the whole file. */
  full: boolean;
  /** What was seen: as read, or as written through editgate. */
  fingerprint: Fingerprint;
  /** Name for messages, remembered from the last record. */
  display?: string;
}

export interface LedgerOptions {
  /** Name for messages when a call gives none (e.g. relative to the root). Default: the base name. */
  display?: (path: string) => string;
}

/**
 * What the agent has seen, per canonical path. Edits are checked against it so a model cannot change a file
 * it has not read in full, or one that changed since it read it.
 */
export class Ledger {
  private readonly entries = new Map<string, LedgerEntry>();
  private readonly displayOf: (path: string) => string;

  constructor(options: LedgerOptions = {}) {
    this.displayOf = options.display ?? ((path) => basename(path));
  }

  recordRead(path: string, fingerprint: Fingerprint, options: { full: boolean; display?: string }): void {
    const previous = this.entries.get(path);
    // A partial read of content already seen in full, and unchanged since, keeps the full read.
    const full = options.full || (previous?.full === true && previous.fingerprint.hash === fingerprint.hash);
    this.entries.set(path, { full, fingerprint, display: options.display ?? previous?.display });
  }

  /** A write through editgate counts as a full read of what was written. */
  recordWrite(path: string, fingerprint: Fingerprint, options: { display?: string } = {}): void {
    this.recordRead(path, fingerprint, { full: true, display: options.display });
  }

  /**
   * Throws NOT_READ, PARTIAL_READ or STALE when an edit of `path` (now `current`; null: it does not exist)
   * must not go ahead. Same content with a new mtime is not a change: the entry is refreshed.
   * A file that does not exist and was never read needs no read.
   */
  check(path: string, current: Fingerprint | null, options: { display?: string } = {}): void {
    const entry = this.entries.get(path);
    const file = options.display ?? entry?.display ?? this.displayOf(path);
    if (!entry) {
      if (current === null) return;
      throw new EditgateError(
        'NOT_READ',
        `${file} has not been read yet. Read it with read_file (the whole file, without offset or limit) before editing it.`,
        { path: file },
      );
    }
    if (current === null) {
      throw new EditgateError(
        'STALE',
        `${file} was deleted since you read it. Check whether it should still exist (list its folder) before changing it.`,
        { path: file, reason: 'deleted' },
      );
    }
    if (!entry.full) {
      throw new EditgateError(
        'PARTIAL_READ',
        `Only part of ${file} has been read. Read the whole file with read_file (without offset or limit) before editing it.`,
        { path: file },
      );
    }
    if (current.hash !== entry.fingerprint.hash) {
      throw new EditgateError(
        'STALE',
        `${file} has changed since you last read it (someone else edited it). Read it again with read_file, then redo the edit against its current content.`,
        { path: file, reason: 'changed' },
      );
    }
    if (current.mtimeMs !== entry.fingerprint.mtimeMs || current.size !== entry.fingerprint.size) {
      entry.fingerprint = current;
    }
  }

  get(path: string): LedgerEntry | undefined {
    return this.entries.get(path);
  }

  forget(path: string): void {
    this.entries.delete(path);
  }
}
