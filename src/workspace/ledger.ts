/**
 * What the agent has seen, per canonical path: the one record behind "read it before you change it". For
 * each file it keeps the version last read or written (its fingerprint) and which lines of that version
 * read_file has shown, so a long file read in pages with offset/limit counts as read in full once the
 * pages cover every line.
 *
 * Two rules, chosen by the kind of fingerprint (fingerprint.ts):
 * - a file held in memory must have been seen in full, and still have the bytes that were seen; or, for
 *   an edit that asks for the region rule (read-coverage.ts), every line it touches seen in this version;
 * - a huge file (streamed: a stat fingerprint) needs a read of any part of this very version, or an
 *   editgate write of it. No model reads 2 GB; edit_file still checks uniqueness over the whole file, so it
 *   cannot hit a place the model did not mean.
 */
import { basename } from 'node:path';
import type { Diff } from '../core/diff.js';
import { EditgateError } from '../core/errors.js';
import { type Fingerprint, isStatFingerprint } from './fingerprint.js';
import { seenAfterChange, unseenLines } from './read-coverage.js';

export interface LedgerEntry {
  /** The lines seen cover the whole file (or it was written through editgate). */
  full: boolean;
  /** What was seen: as read, or as written through editgate. */
  fingerprint: Fingerprint;
  /** Lines of this version shown by read_file: sorted, merged, 1-based inclusive. */
  ranges: [number, number][];
  /** Name for messages, remembered from the last record. */
  display?: string;
  /** The encoding read_file was given for this file: edits without one decode with it. */
  encoding?: string;
}

export interface LedgerOptions {
  /** Name for messages when a call gives none (e.g. relative to the root). Default: the base name. */
  display?: (path: string) => string;
}

/** Which lines a read showed: [first, last] (1-based, inclusive) of `lineCount`. */
export interface LinesSeen {
  first: number;
  last: number;
  lineCount: number;
}

export class Ledger {
  private readonly entries = new Map<string, LedgerEntry>();
  private readonly displayOf: (path: string) => string;

  constructor(options: LedgerOptions = {}) {
    this.displayOf = options.display ?? ((path) => basename(path));
  }

  /**
   * Records a read of `lines` of the version `fingerprint`; true when every line of it has now been seen
   * (in this read and earlier ones of the same content).
   */
  recordRead(
    path: string,
    fingerprint: Fingerprint,
    lines: LinesSeen,
    options: { display?: string; encoding?: string } = {},
  ): boolean {
    const previous = this.entries.get(path);
    const same = previous !== undefined && previous.fingerprint.hash === fingerprint.hash;
    let ranges = same ? previous.ranges : [];
    if (lines.last >= lines.first) ranges = merge([...ranges, [lines.first, lines.last]]);
    const only = ranges[0];
    const complete =
      lines.lineCount === 0 ||
      (ranges.length === 1 && only !== undefined && only[0] <= 1 && only[1] >= lines.lineCount);
    // A partial read of content already seen in full, and unchanged since, keeps the full read.
    const full = complete || (same && previous.full);
    this.entries.set(path, {
      full,
      fingerprint,
      ranges,
      display: options.display ?? previous?.display,
      encoding: options.encoding,
    });
    return complete;
  }

  /**
   * A write through editgate counts as a full read of what was written, when what it replaced had been read
   * in full. After a read of part of the file (the region rule), only the lines read and kept, and the
   * lines written, count as seen in the new version (`diff`: the change, old to new, held in memory).
   */
  recordWrite(path: string, fingerprint: Fingerprint, options: { display?: string; diff?: Diff } = {}): void {
    const previous = this.entries.get(path);
    const partial = previous !== undefined && !previous.full && options.diff !== undefined;
    this.entries.set(path, {
      full: !partial,
      fingerprint,
      ranges: partial ? seenAfterChange(previous.ranges, options.diff!) : [],
      display: options.display ?? previous?.display,
      encoding: previous?.encoding,
    });
  }

  /**
   * Throws NOT_READ, PARTIAL_READ or STALE when a change to `path` (now `current`; null: it does not exist)
   * must not go ahead. Same content with a new mtime is not a change: the entry is refreshed. A file that
   * does not exist and was never read needs no read.
   */
  /** NEW_SESSION_NOTE when this session has read nothing yet, else ''. */
  private newSessionNote(): string {
    return this.entries.size === 0 ? NEW_SESSION_NOTE : '';
  }

  check(
    path: string,
    current: Fingerprint | null,
    options: { display?: string; region?: boolean } = {},
  ): void {
    const entry = this.entries.get(path);
    const file = options.display ?? entry?.display ?? this.displayOf(path);
    if (current !== null && isStatFingerprint(current)) {
      checkStreamed(entry, current, file, this.newSessionNote());
      return;
    }
    if (!entry) {
      if (current === null) return;
      throw new EditgateError(
        'NOT_READ',
        `${file} has not been read yet. Read it with read_file (the whole file, without offset or limit) before editing it.${this.newSessionNote()}`,
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
    // By region: a part read is enough here; checkCovered then judges the lines the change touches.
    if (!entry.full && !(options.region && entry.fingerprint.hash === current.hash)) {
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
    if (
      current.mtimeMs !== entry.fingerprint.mtimeMs ||
      current.size !== entry.fingerprint.size ||
      current.stat !== entry.fingerprint.stat
    ) {
      entry.fingerprint = current;
    }
  }

  /**
   * After `check` with `region`: throws PARTIAL_READ, naming the lines to read, when the change (its diff
   * against the version read) touches lines of it read_file has not shown (read-coverage.ts).
   */
  checkCovered(path: string, diff: Diff, options: { display?: string } = {}): void {
    const entry = this.entries.get(path);
    if (!entry || entry.full) return;
    const unseen = unseenLines(entry.ranges, diff);
    const first = unseen[0];
    if (!first) return;
    const file = options.display ?? entry.display ?? this.displayOf(path);
    const last = unseen[unseen.length - 1]![1];
    const named = unseen.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
    throw new EditgateError(
      'PARTIAL_READ',
      `This change touches line${unseen.length === 1 && first[0] === first[1] ? '' : 's'} ${named} of ${file}, which you have not read in its current version. Read them with read_file (offset ${first[0]}, limit ${last - first[0] + 1}), then retry the edit.`,
      { path: file, unseen, offset: first[0], limit: last - first[0] + 1 },
    );
  }

  get(path: string): LedgerEntry | undefined {
    return this.entries.get(path);
  }

  forget(path: string): void {
    this.entries.delete(path);
  }
}

/**
 * Said with NOT_READ when nothing at all was read in this session: the read may well have been made, in
 * another session (an MCP client that connects anew for each call, as the MCP Inspector's CLI does).
 */
export const NEW_SESSION_NOTE =
  ' Nothing has been read in this session yet: reads count only in the session that made them (for an MCP server, one client connection; a client that connects anew for each call, as the MCP Inspector CLI does, must read and edit in one connection).';

/** The streaming path's rule: any read of this very version (or an editgate write of it). */
function checkStreamed(
  entry: LedgerEntry | undefined,
  current: Fingerprint,
  file: string,
  newSessionNote = '',
): void {
  if (!entry) {
    throw new EditgateError(
      'NOT_READ',
      `${file} has not been read yet. Read it with read_file before editing it; for a file this large, reading the part you will change (offset and limit) is enough.${newSessionNote}`,
      { path: file },
    );
  }
  if (entry.fingerprint.hash !== current.hash) {
    throw new EditgateError(
      'STALE',
      `${file} has changed since you last read it (someone else edited it, or touched it). Read the part you will change again with read_file, then redo the edit against its current content.`,
      { path: file, reason: 'changed' },
    );
  }
}

function merge(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const range of ranges) {
    const last = out[out.length - 1];
    if (last && range[0] <= last[1] + 1) last[1] = Math.max(last[1], range[1]);
    else out.push([range[0], range[1]]);
  }
  return out;
}
