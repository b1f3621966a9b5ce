import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { isErrno, mapFsError } from './fs-errors.js';

/** Flags for opening a file to read. NONBLOCK: a FIFO put in place of a file must not hang the open. */
export const O_READ = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * The file opened for reading, or null when it does not exist; any other failure as an EditgateError
 * worded for a read. Shared by the in-memory reads (files.ts) and the streaming path's open (streamer.ts),
 * which treat a missing file the same way.
 */
export async function openExisting(path: string, display: string | undefined): Promise<FileHandle | null> {
  try {
    return await open(path, O_READ);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw mapFsError(error, { display, action: 'read' });
  }
}
