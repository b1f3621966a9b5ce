/**
 * Temp files left in a folder by writers that died (SIGKILL, power loss, a streamed edit killed half way:
 * a full-size copy of a huge file) are removed by the next write to that folder. Only those whose writer is
 * gone: a live process's temp file is never touched. The names are the ones io.ts gives:
 * `.<name>.editgate-<pid>-<hex>.tmp`.
 *
 * A write held in memory sweeps a folder once per process (a folder is not listed on every edit); a streamed
 * write, which copies a huge file anyway, sweeps every time, so its own leftovers never pile up.
 */
import { readdirSync, unlinkSync } from 'node:fs';
import { isErrno } from './fs-errors.js';
import type { PinnedFolder } from './guarded-open.js';

const TEMP_NAME = /^\..*\.editgate-(\d+)-[0-9a-f]+\.tmp$/;

const swept = new Set<string>();

/** Removes dead writers' temp files from a pinned folder: once per folder and process, unless `always`. */
export function sweepDeadTemps(folder: PinnedFolder, options: { always?: boolean } = {}): void {
  if (!options.always) {
    if (swept.has(folder.path)) return;
    swept.add(folder.path);
  }
  let names: string[];
  try {
    names = readdirSync(folder.self());
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    try {
      unlinkSync(folder.entry(name));
    } catch {}
  }
}

/** Whether process `pid` still runs (EPERM: it runs, as another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !isErrno(error, 'ESRCH');
  }
}
