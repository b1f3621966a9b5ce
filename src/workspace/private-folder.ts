import { lstatSync, mkdirSync } from 'node:fs';
import { lstat, mkdir } from 'node:fs/promises';
import { EditgateError } from '../core/errors.js';

const checked = new Set<string>();

/**
 * Makes (mode 0700) or checks a folder editgate keeps its own files in, when it may sit in a shared place
 * such as the OS temp folder: another user can create `/tmp/editgate-undo-<uid>` first, and what editgate
 * then writes there (undo patches, locks) is theirs to read or replace. Refused unless it is a real folder
 * (not a link) owned by this user that no one else can write. Checked once per folder and process.
 */
export async function ensurePrivateFolder(dir: string, what: string): Promise<void> {
  if (checked.has(dir)) return;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  checkPrivate(dir, await lstat(dir), what);
}

/** ensurePrivateFolder, synchronously: for the state folder's key (state-key.ts), read on paths that are. */
export function ensurePrivateFolderSync(dir: string, what: string): void {
  if (checked.has(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkPrivate(dir, lstatSync(dir), what);
}

function checkPrivate(
  dir: string,
  info: { isDirectory(): boolean; uid: number; mode: number },
  what: string,
) {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0) {
    throw new EditgateError(
      'IO',
      {
        happened: `The editgate ${what} folder ${dir} is not a folder of this user's that only they can write (another user may have made it); nothing was written.`,
        advice: `Tell the user: if it is theirs, they can make it private (chmod 700 ${dir}); if not, remove it, or point ${what === 'state' ? 'EDITGATE_STATE_DIR' : 'TMPDIR'} elsewhere.`,
      },
      { folder: dir },
    );
  }
  checked.add(dir);
}
