/**
 * What "unchanged" means. A file held in memory is identified by the sha256 of its bytes: a new mtime with
 * the same bytes is not a change. Hashing it again before every write would cost a second read, so each
 * fingerprint also carries the file's stat token (device, inode, size, and mtime and ctime in nanoseconds)
 * from the moment it was hashed: while the token is the same the bytes are, and nothing is read again.
 *
 * Any write, truncate, chmod, rename over a file or replacement moves at least one part of the token. ctime
 * cannot be set from user space (unlike mtime), and since Linux 6.13 (multigrain timestamps on ext4, xfs,
 * btrfs, tmpfs) a change made after we looked at a file always gets a ctime different from the one we saw.
 * On older kernels and other systems a same-size rewrite within one timestamp tick could keep the token;
 * so under the lock the commit compares the bytes too (commit.ts: a file of up to 1 MiB whole, a larger
 * one where the change is). A read that finds the token it last saw reuses that hash: there, on such a
 * kernel, a same-size rewrite in the same tick as editgate's own write would be taken for the version
 * editgate wrote.
 *
 * A huge file (the streaming path) is never hashed at all: its token is its identity, stored as the
 * fingerprint's `hash` (so ledger, history and audit log work unchanged). That is stricter than a content
 * hash: a `touch` of a huge file counts as a change (read it again).
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';

export interface Fingerprint {
  size: number;
  mtimeMs: number;
  /** sha256 of the bytes, hex; for a streamed file its stat token. */
  hash: string;
  /** The stat token of the version that was hashed (absent when unknown, e.g. history from an older run). */
  stat?: string;
}

const PREFIX = 'stat1:';

/** Device, inode, size, mtime and ctime in nanoseconds: equal tokens, same version of the file. */
export function statToken(stats: BigIntStats): string {
  return `${PREFIX}${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/**
 * mtime in milliseconds with its fraction, computed as Node computes a plain stat's mtimeMs (a bigint
 * stat's own mtimeMs is cut to whole milliseconds).
 */
function mtimeMsOf(stats: BigIntStats): number {
  const seconds = stats.mtimeNs / 1_000_000_000n;
  const nanoseconds = stats.mtimeNs % 1_000_000_000n;
  return Number(seconds) * 1e3 + Number(nanoseconds) / 1e6;
}

/** The fingerprint of a streamed file: its stat token is its identity. */
export function statFingerprint(stats: BigIntStats): Fingerprint {
  const token = statToken(stats);
  return { size: Number(stats.size), mtimeMs: mtimeMsOf(stats), hash: token, stat: token };
}

/** The fingerprint of bytes held in memory, of the version whose stats are given. */
export function contentFingerprint(bytes: Uint8Array, stats: BigIntStats, hash = sha256(bytes)): Fingerprint {
  return { size: bytes.length, mtimeMs: mtimeMsOf(stats), hash, stat: statToken(stats) };
}

/** A fingerprint made by statFingerprint (a streamed file), not a content hash. */
export function isStatFingerprint(fingerprint: Fingerprint | null | undefined): boolean {
  return fingerprint?.hash.startsWith(PREFIX) === true;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
