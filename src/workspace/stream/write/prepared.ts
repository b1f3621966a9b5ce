/**
 * A streamed change ready to commit: the new content complete and fsynced in a temp file beside the target,
 * the reverse patch for undo, and the new content's line index. Nothing of it is visible until the commit
 * renames the temp file into place; a change that is denied, fails or is never applied is discarded, and
 * anything left when the process exits is removed then (temp files of killed processes are swept by the
 * next write to the same file, as for the normal path).
 */
import { unlinkSync } from 'node:fs';
import { basename } from 'node:path';
import type { FileIdentity, PinnedFolder } from '../../guarded-open.js';
import { letGo } from '../../io.js';
import { removePatch } from '../../reverse-patch.js';
import type { LineIndex, LineIndexCache } from '../read/line-index.js';

export interface PreparedWrite {
  /** The new content, in the target's folder, with the target's owner and mode. */
  temp: string;
  /** The reverse patch (old bytes of every span); null for an undo. */
  patch: string | null;
  /** Size of the new content. */
  size: number;
  /** Line index of the new content; keyed to its fingerprint once committed. */
  index: LineIndex;
  /** The cache the committed content's index goes into. */
  indexes?: LineIndexCache;
  /**
   * The folder the temp file was made in, held open until the change is committed or discarded: the temp
   * file is renamed and removed through it, wherever the folder's path leads by then (guarded-open.ts).
   */
  folder?: PinnedFolder;
  /** The temp file as made (device and inode): the commit renames only this very file. */
  identity?: FileIdentity;
}

/** Remove everything a prepared change left on disk. Never throws. */
export async function discardPrepared(prepared: PreparedWrite): Promise<void> {
  letGo(prepared.temp);
  try {
    unlinkSync(prepared.folder ? prepared.folder.entry(basename(prepared.temp)) : prepared.temp);
  } catch {}
  prepared.folder?.close();
  if (prepared.patch) await removePatch(prepared.patch);
}
