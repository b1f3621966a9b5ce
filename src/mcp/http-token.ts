import { randomBytes } from 'node:crypto';
import { closeSync, constants as fs, fstatSync, openSync, readFileSync } from 'node:fs';
import { EditgateError } from '../core/errors.js';

/**
 * The HTTP server's bearer token. A local server without one can be used by every user of the machine
 * (another user's process approved its own writes), so `--http` always has one: given (EDITGATE_MCP_TOKEN,
 * --token), read from a file only its owner can read (--token-file), or made at start and printed.
 */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The token in a file: a regular file of this user's that no one else can read or write (mode 0600). */
export function readTokenFile(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, fs.O_RDONLY | fs.O_NOFOLLOW);
  } catch (error) {
    throw new EditgateError(
      'INVALID_INPUT',
      `Cannot read the token file ${path}: ${(error as Error).message}`,
    );
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw new EditgateError('INVALID_INPUT', `The token file ${path} is not a regular file.`);
    if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) {
      throw new EditgateError(
        'INVALID_INPUT',
        `The token file ${path} belongs to another user: use a file of your own.`,
      );
    }
    if ((stats.mode & 0o077) !== 0) {
      throw new EditgateError(
        'INVALID_INPUT',
        `The token file ${path} can be read or written by others (mode ${(stats.mode & 0o777).toString(8)}): chmod 600 it.`,
      );
    }
    const token = readFileSync(fd, 'utf8').split('\n')[0]!.trim();
    if (token.length < 16) {
      throw new EditgateError(
        'INVALID_INPUT',
        `The token in ${path} is shorter than 16 characters: use a longer one.`,
      );
    }
    return token;
  } finally {
    closeSync(fd);
  }
}
