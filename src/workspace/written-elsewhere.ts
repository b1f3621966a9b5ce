/**
 * A write editgate did not make itself (the upstream server behind the proxy, a chat's shell command, an
 * agent's own edit tool), recorded as editgate's own are: the file read as it is now through its pinned
 * folder (guarded-open.ts: a folder on the way swapped for a link cannot make the read go outside the root),
 * and history keeping the bytes the write replaced, so `editgate undo` and /undo put them back through the
 * gate like any undo. The gate's settle (gate/settle.ts) is the only caller.
 */
import { fstatSync } from 'node:fs';
import { changedWindow, replacedSpan } from './commit.js';
import { type Fingerprint, sha256 } from './fingerprint.js';
import type { ResolvedPath } from './guard.js';
import { openGuarded } from './guarded-open.js';
import { type History, NO_FILE } from './history.js';
import { closeQuietly, O_READ, readAt } from './io.js';
import type { Ledger } from './ledger.js';

/** A file's bytes and fingerprint from one open. */
export interface FileNow {
  bytes: Buffer;
  fingerprint: Fingerprint;
}

/** The file's bytes now, or null when there is none. Opened from its root, following no link. */
export async function readNow(resolved: Pick<ResolvedPath, 'absolute' | 'root'>): Promise<FileNow | null> {
  const fd = openGuarded(resolved.absolute, O_READ, { root: resolved.root });
  if (fd === null) return null;
  try {
    const stats = fstatSync(fd);
    const bytes = await readAt(fd, 0, stats.size);
    return { bytes, fingerprint: { size: bytes.length, mtimeMs: stats.mtimeMs, hash: sha256(bytes) } };
  } finally {
    closeQuietly(fd);
  }
}

/**
 * Whether the file exists now, and its size, without reading it: for a file whose old bytes are not known
 * (too large to have been kept), which may be huge and cannot be undone anyway.
 */
export function sizeNow(resolved: Pick<ResolvedPath, 'absolute' | 'root'>): number | null {
  const fd = openGuarded(resolved.absolute, O_READ, { root: resolved.root });
  if (fd === null) return null;
  try {
    return fstatSync(fd).size;
  } finally {
    closeQuietly(fd);
  }
}

export interface WriteElsewhere {
  resolved: ResolvedPath;
  /** The file's bytes before the write: null, it did not exist; undefined, not known (no undo possible). */
  before: Buffer | null | undefined;
  /** The file now (readNow). */
  now: FileNow | null;
  /** The tool that wrote, as history names it. */
  tool: string;
}

/**
 * History gets a step for the write when it changed the file and the old bytes are known (true then); the
 * ledger forgets the file, so a model that read it reads it again before editing it.
 */
export async function recordWrittenElsewhere(
  history: History,
  ledger: Ledger,
  write: WriteElsewhere,
): Promise<boolean> {
  const { resolved, before, now, tool } = write;
  ledger.forget(resolved.absolute);
  if (before === undefined) return false;
  if (now === null) {
    if (before === null) return false;
    // Deleted: every byte kept, so undo creates it again (with the usual mode: the old one is not known).
    await history.record(resolved.absolute, {
      created: false,
      reverse: { kind: 'memory', spans: [{ newStart: 0, newLength: 0, oldStart: 0, old: before }] },
      after: NO_FILE,
      tool,
      deleted: { mode: null },
    });
    return true;
  }
  if (before?.equals(now.bytes)) return false;
  await history.record(resolved.absolute, {
    created: before === null,
    reverse: before === null ? null : replacedSpan(before, changedWindow(before, now.bytes)),
    after: now.fingerprint,
    tool,
  });
  return true;
}
