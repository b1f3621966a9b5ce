import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { EditgateError } from '../core/errors.js';
import { errnoCode } from './fs-errors.js';

export interface FileLockOptions {
  /**
   * Folder that holds the lock folders. Default: $EDITGATE_LOCK_DIR, else a folder on a tmpfs
   * (`$XDG_RUNTIME_DIR/editgate-locks`, else `/dev/shm/editgate-locks-<uid>` on Linux), else
   * `<os tmpdir>/editgate-locks-<uid>`; outside every workspace so projects never see `.lock` litter.
   * Processes coordinate only when they use the same folder.
   */
  dir?: string;
  /**
   * A lock not refreshed for this long is taken to belong to a dead process and is broken (a SIGKILLed
   * holder cannot release it). proper-lockfile's floor is 2000 ms. Default 10000.
   */
  staleMs?: number;
  /** The path is already canonical (the guard's real path): no realpath(3) needed to find its lock. */
  canonical?: boolean;
}

export interface FileLock {
  /** False once proper-lockfile saw the lock taken over (we stalled past `staleMs`). */
  readonly held: boolean;
  /** Throws IO when the lock was lost: call right before the irreversible step. */
  assertHeld(): void;
}

const DEFAULT_STALE_MS = 10_000;
const MAX_BACKOFF_MS = 250;

/** In-process queue per lock key: same-process callers wait their turn without polling the disk. */
const queues = new Map<string, Promise<void>>();
const checkedDirs = new Set<string>();

/**
 * Run `fn` while holding an advisory cross-process lock on `path` (which need not exist). Waiters retry with
 * backoff for longer than the stale period, so a lock left by a killed process is recovered, not waited on
 * forever. Hold it only around check-and-rename.
 */
export async function withFileLock<T>(
  path: string,
  fn: (lock: FileLock) => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const canonical = options.canonical ? resolve(path) : await canonicalPath(path);
  const dir = options.dir ?? lockFolder();
  const staleMs = Math.max(options.staleMs ?? DEFAULT_STALE_MS, 2000);
  const lockPath = join(dir, `${createHash('sha256').update(canonical).digest('hex')}.lock`);

  return serialise(lockPath, async () => {
    await ensureLockDir(dir);
    const handle = new HeldLock();
    let release: () => Promise<void>;
    try {
      try {
        // Uncontended, the lock is one mkdir: skip building a retry schedule of seventy timeouts for it.
        release = await takeLock(canonical, lockPath, staleMs, handle, 0);
      } catch (error) {
        if (errnoCode(error) !== 'ELOCKED') throw error;
        // Enough attempts to outlast a dead holder's stale period (plus slack), capped backoff.
        release = await takeLock(canonical, lockPath, staleMs, handle, {
          retries: Math.ceil((staleMs * 1.5) / MAX_BACKOFF_MS) + 10,
          factor: 1.5,
          minTimeout: 5,
          maxTimeout: MAX_BACKOFF_MS,
          randomize: true,
        });
      }
    } catch (error) {
      const code = errnoCode(error);
      throw new EditgateError(
        'IO',
        code === 'ELOCKED'
          ? 'Another process kept this file locked for too long; nothing was written. Try again in a moment.'
          : {
              happened: `Could not take the file lock (${code ?? 'unknown error'}); nothing was written.`,
              advice: 'Try again; if it keeps failing, tell the user.',
            },
        { errno: code, lock: true },
      );
    }
    try {
      return await fn(handle);
    } finally {
      // A failed release (already taken over) must not turn a finished write into a reported failure.
      await release().catch(() => {});
    }
  });
}

/**
 * A held lock as its holder sees it. A class, and takeLock a function of its own, so that nothing the lock
 * hands out or proper-lockfile keeps is a closure made inside withFileLock: such a closure holds that whole
 * scope, `fn` included, and through it the caller's work (an edit's bytes and both of its texts). Measured
 * (1,000 in-process edits of a 60 KB file, node --trace-gc-nvp): with an object literal whose getter and
 * method closed over `held`, 90 MB were promoted to the old generation and a scavenge took 3-6 ms; with this
 * class, 2-5 MB and about 1 ms.
 */
class HeldLock implements FileLock {
  #held = true;

  get held(): boolean {
    return this.#held;
  }

  /** proper-lockfile saw the lock taken over (we stalled past the stale period). */
  lost(): void {
    this.#held = false;
  }

  assertHeld(): void {
    if (!this.#held) {
      throw new EditgateError(
        'IO',
        'The file lock was lost while writing (the system stalled); nothing was written. Try again.',
        { lock: true },
      );
    }
  }
}

/** proper-lockfile's lock on `canonical` (its folder `lockPath`); a takeover is reported to `handle`. */
function takeLock(
  canonical: string,
  lockPath: string,
  staleMs: number,
  handle: HeldLock,
  retries: number | object,
): Promise<() => Promise<void>> {
  return lockfile.lock(canonical, {
    lockfilePath: lockPath,
    realpath: false,
    stale: staleMs,
    retries,
    fs: lockFs,
    // The default throws from a timer and would crash the process; we refuse to rename instead.
    onCompromised: () => handle.lost(),
  });
}

/**
 * The filesystem calls proper-lockfile makes (mkdir, stat, utimes, rmdir of a lock folder), made
 * synchronously with the callback deferred, as it expects. Each takes microseconds; through the thread
 * pool, a lock and its release cost three hand-offs on every edit.
 */
const lockFs = {
  mkdir: deferred((path: string) => mkdirSync(path)),
  stat: deferred((path: string) => statSync(path)),
  utimes: deferred((path: string, atime: Date, mtime: Date) => utimesSync(path, atime, mtime)),
  rmdir: deferred((path: string) => rmdirSync(path)),
  realpath: deferred((path: string) => realpathSync(path)),
};

// biome-ignore lint/suspicious/noExplicitAny: node-style callbacks of several shapes.
function deferred<A extends any[], R>(call: (...args: A) => R) {
  return (...args: [...A, (error: NodeJS.ErrnoException | null, result?: R) => void]) => {
    const callback = args.pop() as (error: NodeJS.ErrnoException | null, result?: R) => void;
    let result: R;
    try {
      result = call(...(args as unknown as A));
    } catch (error) {
      process.nextTick(callback, error as NodeJS.ErrnoException);
      return;
    }
    process.nextTick(callback, null, result);
  };
}

let defaultDir: string | undefined;

/** The folder of lock folders when none is given: $EDITGATE_LOCK_DIR, else the default (see FileLockOptions.dir). */
export function lockFolder(): string {
  return process.env.EDITGATE_LOCK_DIR ?? defaultLockDir();
}

function defaultLockDir(): string {
  defaultDir ??= chooseLockDir();
  return defaultDir;
}

/**
 * Lock folders live in memory where the system has a tmpfs for it ($XDG_RUNTIME_DIR, else /dev/shm): taking
 * and releasing a lock is a mkdir and an rmdir, which on a journaled disk cost up to a millisecond or two
 * each on a busy machine (measured), on a tmpfs some microseconds. Elsewhere, the OS temp folder.
 */
function chooseLockDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (runtime && isFolder(runtime)) return join(runtime, 'editgate-locks');
  if (process.platform === 'linux' && isFolder('/dev/shm')) return join('/dev/shm', `editgate-locks-${uid}`);
  return join(tmpdir(), `editgate-locks-${uid}`);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function ensureLockDir(dir: string): Promise<void> {
  if (checkedDirs.has(dir)) return;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A shared tmp folder: refuse one planted by someone else (a symlink, or another user's folder).
  const info = await lstat(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) {
    throw new EditgateError(
      'IO',
      {
        happened:
          'The editgate lock folder is not a folder owned by this user (EDITGATE_LOCK_DIR sets another); nothing was written.',
        advice: 'Tell the user.',
      },
      { lock: true },
    );
  }
  checkedDirs.add(dir);
}

/** Real path when it exists (else its folder's real path plus the name), so every spelling shares one lock. */
async function canonicalPath(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch {
    try {
      return join(await realpath(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

async function serialise<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const tail = previous.then(() => mine);
  queues.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    done();
    if (queues.get(key) === tail) queues.delete(key);
  }
}
