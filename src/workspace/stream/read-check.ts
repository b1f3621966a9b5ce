/**
 * Read-before-edit for huge files. The normal rule (the whole file read, unchanged since) cannot hold for a
 * file of millions of lines: no model reads 2 GB. On the streaming path an edit needs a read_file of the
 * file (any part of it, the part to change being the sensible one) or an earlier editgate write, of this
 * very version. edit_file still checks uniqueness over the whole file, so it cannot hit a place the model
 * did not mean.
 */
import { EditgateError } from '../../core/errors.js';
import type { Fingerprint } from '../files.js';
import type { Ledger } from '../ledger.js';

export function checkStreamedRead(ledger: Ledger, path: string, current: Fingerprint, display: string): void {
  const entry = ledger.get(path);
  if (!entry) {
    throw new EditgateError(
      'NOT_READ',
      `${display} has not been read yet. Read it with read_file before editing it; for a file this large, reading the part you will change (offset and limit) is enough.`,
      { path: display },
    );
  }
  if (entry.fingerprint.hash !== current.hash) {
    throw new EditgateError(
      'STALE',
      `${display} has changed since you last read it (someone else edited it, or touched it). Read the part you will change again with read_file, then redo the edit against its current content.`,
      { path: display, reason: 'changed' },
    );
  }
}
