/**
 * What "unchanged" means on the streaming path. Hashing a 2 GiB file on every read and again before every
 * rename would cost more than the edit itself, so a huge file is identified by its inode metadata instead:
 * device, inode, size, and mtime and ctime in nanoseconds. Any write, truncate, chmod, rename over it or
 * replacement moves at least one of them. ctime cannot be set from user space (unlike mtime), and since
 * Linux 6.13 (multigrain timestamps on ext4, xfs, btrfs, tmpfs) a change made after we looked at a file
 * always gets a ctime different from the one we saw. On older kernels and other systems a same-size
 * rewrite within one timestamp tick of our stat could keep all of them; the commit therefore also compares
 * the bytes of the edited spans (see commit.ts), which is where a concurrent edit would hurt most.
 *
 * The token is stored as a Fingerprint's `hash`, so the ledger, history and audit log work unchanged. It
 * is stricter than a content hash: a `touch` of a huge file counts as a change (read it again).
 */
import type { BigIntStats } from 'node:fs';
import type { Fingerprint } from './files.js';

const PREFIX = 'stat1:';

export function statFingerprint(stats: BigIntStats): Fingerprint {
  return {
    size: Number(stats.size),
    mtimeMs: Number(stats.mtimeMs),
    hash: `${PREFIX}${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`,
  };
}

/** A fingerprint made by statFingerprint (a streamed file), not a content hash. */
export function isStatFingerprint(fingerprint: Fingerprint | null | undefined): boolean {
  return fingerprint?.hash.startsWith(PREFIX) === true;
}
