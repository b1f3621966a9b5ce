/**
 * Whether the files of a pending change still hold what its diff was made from. The fingerprint is taken
 * when the change reaches the page (right after the gate computed it); a change on disk after that (seen
 * by a folder watch, and by a check every second in case the watch misses it, and again before any
 * approval is accepted) makes the change stale. A changed mtime with the same content is not a change.
 * The gate checks the file again before writing, whatever this says: this is what the page shows.
 */
import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

interface Fingerprint {
  exists: boolean;
  size: number;
  mtimeMs: number;
  /** Content hash; undefined for files too large to hash quickly (their size and mtime decide). */
  hash?: string;
}

const HASH_LIMIT = 64 * 1024 * 1024;
const CHECK_EVERY_MS = 1000;

async function fingerprint(path: string): Promise<Fingerprint> {
  try {
    const info = await stat(path);
    const print: Fingerprint = { exists: true, size: info.size, mtimeMs: info.mtimeMs };
    if (info.isFile() && info.size <= HASH_LIMIT)
      print.hash = createHash('sha256')
        .update(await readFile(path))
        .digest('hex');
    return print;
  } catch {
    return { exists: false, size: 0, mtimeMs: 0 };
  }
}

function sameContent(a: Fingerprint, b: Fingerprint): boolean {
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

/** Watches `paths` (absolute) and calls `onStale` once with the first that changes. */
export async function watchForChanges(
  paths: readonly string[],
  onStale: (path: string) => void,
): Promise<StaleWatch> {
  const baseline = await Promise.all(paths.map(fingerprint));
  let stopped = false;
  let reported = false;
  const check = async (): Promise<string | undefined> => {
    for (let i = 0; i < paths.length; i++) {
      const now = await fingerprint(paths[i]!);
      if (!sameContent(baseline[i]!, now)) {
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
