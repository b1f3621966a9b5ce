// CONTRACT STUB: owned by the workspace/files helper, who replaces this file with the implementation.
import type { TextCodec } from '../core/text.js';

export interface Fingerprint {
  size: number;
  mtimeMs: number;
  /** sha256 of the bytes, hex. */
  hash: string;
}

export interface Snapshot {
  path: string;
  exists: boolean;
  /** Decoded text ('' when the file does not exist). */
  text: string;
  codec: TextCodec;
  /** Permission bits (null when the file does not exist). */
  mode: number | null;
  fingerprint: Fingerprint | null;
}

export declare function readSnapshot(path: string, options?: { encoding?: string }): Promise<Snapshot>;

export interface CommitOptions {
  /** Called under the lock right before the rename; throws to abort (e.g. the guard's recheck). */
  verify?: () => Promise<void>;
}

/**
 * Write `text` encoded with `base.codec` atomically over `base.path`, only if the file still has
 * `base.fingerprint` (or still does not exist, for a new file); otherwise STALE and nothing written.
 */
export declare function commitText(base: Snapshot, text: string, options?: CommitOptions): Promise<{ fingerprint: Fingerprint }>;
