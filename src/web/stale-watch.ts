/**
 * Whether the files of a pending change still hold what its diff was made from. The gate says which version
 * that was (the request's base: a content hash, or a huge file's stat token); a change on disk (seen by a
 * folder watch, and by a check every second in case the watch misses it, and again before any approval is
 * accepted) makes the change stale, even one made before the change reached the page. A changed mtime with
 * the same content is not a change. Without a base (a request from an older sender) the file as it is when
 * the change arrives is the baseline. The gate checks the file again before writing, whatever this says:
 * this is what the page shows.
 */
import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type Fingerprint as BaseFingerprint,
  isStatFingerprint,
  statToken,
} from '../workspace/fingerprint.js';

/** A file of a pending change, and the version its diff was made from (null: it did not exist). */
export interface WatchedFile {
  path: string;
  base?: BaseFingerprint | null;
}

/** What a file holds now, as much as telling it from its base needs. */
interface Seen {
  exists: boolean;
  size: number;
  mtimeMs: number;
  /** sha256 of the content; undefined for files too large to hash quickly (size and mtime decide). */
  hash?: string;
  /** The stat token (device, inode, size, times), compared with a huge file's base. */
  token?: string;
}

const HASH_LIMIT = 64 * 1024 * 1024;
const CHECK_EVERY_MS = 1000;

async function look(path: string): Promise<Seen> {
  try {
    const info = await stat(path, { bigint: true });
    const seen: Seen = {
      exists: true,
      size: Number(info.size),
      mtimeMs: Number(info.mtimeMs),
      token: statToken(info),
    };
    if (info.isFile() && info.size <= BigInt(HASH_LIMIT))
      seen.hash = createHash('sha256')
        .update(await readFile(path))
        .digest('hex');
    return seen;
  } catch {
    return { exists: false, size: 0, mtimeMs: 0 };
  }
}

/** The file still is the version its change was computed from. */
function unchangedSinceBase(base: BaseFingerprint | null, now: Seen): boolean {
  if (base === null) return !now.exists;
  if (!now.exists || now.size !== base.size) return false;
  if (isStatFingerprint(base)) return now.token === base.hash;
  return now.hash === undefined ? now.mtimeMs === base.mtimeMs : now.hash === base.hash;
}

function sameContent(a: Seen, b: Seen): boolean {
  if (a.exists !== b.exists) return false;
  if (!a.exists) return true;
  if (a.size !== b.size) return false;
  if (a.hash !== undefined && b.hash !== undefined) return a.hash === b.hash;
  return a.mtimeMs === b.mtimeMs;
}

export interface StaleWatch {
  /** Checks now; resolves to the path that changed, or undefined. */
  check(): Promise<string | undefined>;
  stop(): void;
}

/** Watches the files (absolute paths) and calls `onStale` once with the first that changes. */
export async function watchForChanges(
  files: readonly WatchedFile[],
  onStale: (path: string) => void,
): Promise<StaleWatch> {
  const paths = files.map((file) => file.path);
  // Each file's test: against the base the gate gave, else against what it holds on arrival.
  const unchanged = await Promise.all(
    files.map(async (file): Promise<(now: Seen) => boolean> => {
      if (file.base !== undefined) return (now) => unchangedSinceBase(file.base!, now);
      const arrival = await look(file.path);
      return (now) => sameContent(arrival, now);
    }),
  );
  let stopped = false;
  let reported = false;
  const check = async (): Promise<string | undefined> => {
    for (let i = 0; i < paths.length; i++) {
      const now = await look(paths[i]!);
      if (!unchanged[i]!(now)) {
        if (!reported && !stopped) {
          reported = true;
          onStale(paths[i]!);
        }
        return paths[i];
      }
    }
    return undefined;
  };
  let checking = false;
  const checkSoon = () => {
    if (checking || stopped || reported) return;
    checking = true;
    check().finally(() => {
      checking = false;
    });
  };
  const watchers: FSWatcher[] = [];
  for (const folder of new Set(paths.map((path) => dirname(path)))) {
    try {
      const watcher = watch(folder, { persistent: false }, checkSoon);
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // A folder that does not exist yet (a file to be created in it): the periodic check covers it.
    }
  }
  const timer = setInterval(checkSoon, CHECK_EVERY_MS);
  timer.unref();
  return {
    check,
    stop() {
      stopped = true;
      clearInterval(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
