import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * fsync of a folder, so a rename, link or unlink just done in it survives a crash. Shared by the in-memory
 * commit (files.ts) and the streamed one (stream/commit.ts). Best effort: the change is already done, so a
 * folder fsync failure (some filesystems do not support it) must not report "nothing written".
 */
export async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {}
}
