/**
 * The key that says a record in a state folder was written by editgate for this user (issue #26). Two
 * kinds of record are acted on later without a person looking: a change-set journal (recovery renames and
 * removes files by it: change-set-journal.ts) and a config trust record (a trusted config's hooks run:
 * tools/config-trust.ts). Each carries an HMAC-SHA256 of its content under this key, made for its purpose
 * alone (a journal's MAC never passes as a trust record's), and a record whose MAC fails is never acted on.
 * Whatever can write files but cannot read this key (a model, a proxied server, a build, a cloned
 * repository: none of them reaches a state folder, which no root may hold) cannot make one editgate believes.
 *
 * The key is 32 random bytes in `KEY_FILE` in the state folder (a folder only this user can write, not a
 * link), a file only this user can read and write, with no second link. Made the first time a record is
 * written, durably (a journal sealed with a key a power loss took away would not be believed). A key file
 * that is not like that is refused with what to do, never used. Read once per folder and process.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { constants, fstatSync, fsyncSync, linkSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { EditgateError } from '../core/errors.js';
import { isErrno } from './fs-errors.js';
import { closeQuietly, removeQuietly } from './io.js';
import { ensurePrivateFolderSync } from './private-folder.js';

export const KEY_FILE = 'state.key';
const KEY_BYTES = 32;

/** What a MAC is for: a key typed for one purpose never answers another. */
export type SealPurpose = 'change-set journal' | 'config trust record' | 'hook approval';

const keys = new Map<string, Buffer>();

/**
 * The key of the state folder `folder`: made (and made durable) when there is none and `create` is set;
 * null when there is none and it is not. Throws (IO, with what to do) when the key file is not one
 * editgate made for this user.
 */
export function stateKey(folder: string, options: { create: boolean }): Buffer | null {
  const known = keys.get(folder);
  if (known) return known;
  const file = join(folder, KEY_FILE);
  let key = readKey(file);
  if (key === null) {
    if (!options.create) return null;
    ensurePrivateFolderSync(folder, 'state');
    key = makeKey(folder, file);
  }
  keys.set(folder, key);
  return key;
}

/** The MAC of `body` for `purpose` under `key`, hex. */
export function seal(key: Buffer, purpose: SealPurpose, body: string): string {
  return createHmac('sha256', key).update(`editgate ${purpose}\0`).update(body).digest('hex');
}

/** Whether `mac` is the MAC of `body` for `purpose` under `key` (compared in constant time). */
export function isSealed(key: Buffer, purpose: SealPurpose, body: string, mac: unknown): boolean {
  if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(Buffer.from(seal(key, purpose, body), 'hex'), Buffer.from(mac, 'hex'));
}

function readKey(file: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw badKey(file, isErrno(error, 'ELOOP') ? 'it is a link' : `it cannot be read (${String(error)})`);
  }
  try {
    const info = fstatSync(fd);
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    if (!info.isFile()) throw badKey(file, 'it is not a file');
    if (uid !== undefined && info.uid !== uid) throw badKey(file, 'it belongs to another user');
    if ((info.mode & 0o077) !== 0) throw badKey(file, 'others may read or write it');
    if (info.nlink !== 1) throw badKey(file, 'it has another link');
    if (info.size !== KEY_BYTES) throw badKey(file, `it is not ${KEY_BYTES} bytes long`);
    const key = Buffer.alloc(KEY_BYTES);
    if (readSync(fd, key, 0, KEY_BYTES, 0) !== KEY_BYTES) throw badKey(file, 'it could not be read whole');
    return key;
  } finally {
    closeQuietly(fd);
  }
}

/**
 * A new key, written whole under a temp name, fsynced, then linked to its name (which fails if another
 * process made one meanwhile: then that one is the key), and the folder fsynced.
 */
function makeKey(folder: string, file: string): Buffer {
  const temp = join(folder, `.${KEY_FILE}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  const key = randomBytes(KEY_BYTES);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    writeSync(fd, key);
    fsyncSync(fd);
  } finally {
    closeQuietly(fd);
  }
  try {
    linkSync(temp, file);
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
  } finally {
    removeQuietly(temp);
  }
  const folderFd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(folderFd);
  } finally {
    closeQuietly(folderFd);
  }
  const made = readKey(file);
  if (!made) throw badKey(file, 'it went away as it was made');
  return made;
}

function badKey(file: string, why: string): EditgateError {
  return new EditgateError(
    'IO',
    `editgate's key file ${file} is not one editgate made for this user (${why}), so nothing sealed with it is believed and nothing was done. If you did not change it, someone else wrote into your state folder: find out who. Then remove the file; editgate makes a new key, and trust given before must be given again (editgate trust).`,
    { keyFile: file },
  );
}
