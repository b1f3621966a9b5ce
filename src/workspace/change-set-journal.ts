/**
 * The journal of a change set being committed (change-set.ts): a small JSON file in the state folder,
 * written and fsynced before the first rename and marked committed (renamed to `.done`: the commit point)
 * after the last one. It names,
 * for every file of the set, its kept original (a hard link to the old content, `.orig`) and the temp file
 * of its new content (both named before they exist). While it exists the set is not committed: rolling back puts
 * every kept original back over its file, removes every file the set created (still a link to its temp file), and
 * removes the temp files. Rolling back is idempotent, so a process killed while rolling back is rolled back
 * again by the next one.
 *
 * Any editgate process whose roots hold a journal's files rolls it back (when the process that wrote it is
 * gone) before it reads or writes anything in those roots: after a crash part way every file is old, never
 * some old, some new.
 */
import { randomBytes } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { isErrno } from './fs-errors.js';
import { closeQuietly, removeQuietly, syncFile, syncFolder, writeWhole } from './io.js';
import { type FileLockOptions, withFileLock } from './lock.js';
import { isAlive } from './temp-sweep.js';

/** One file of a change set, as its journal keeps it. */
export interface JournalEntry {
  /** Canonical absolute path of the file. */
  path: string;
  kind: 'create' | 'modify' | 'delete';
  /** The hard link that keeps the old content (absent for a creation). */
  orig?: string;
  /** The new content's temp file (absent for a deletion); a created file is a second link to it. */
  temp?: string;
}

interface JournalFile {
  version: 1;
  pid: number;
  entries: JournalEntry[];
}

/** A journal written for a set about to be renamed into place. */
export interface Journal {
  file: string;
  entries: JournalEntry[];
}

/** Writes the journal and makes it durable (file and folder fsynced) before any rename happens. */
export async function writeJournal(folder: string, entries: JournalEntry[]): Promise<Journal> {
  const created = mkdirSync(folder, { recursive: true, mode: 0o700 });
  // A journal folder made just now: its entry (and any parent made with it) durable too, or a power loss
  // could take the folder, and the journal in it, away.
  if (created) {
    for (let made = folder; made !== dirname(created); made = dirname(made)) await syncFolder(dirname(made));
  }
  const file = join(folder, `${process.pid}-${randomBytes(6).toString('hex')}.json`);
  const body: JournalFile = { version: 1, pid: process.pid, entries };
  // Written whole under a temp name, then renamed: a process killed while writing it leaves no journal a
  // reader could not parse, only a temp file (before any file of the set was touched) that recovery removes.
  const temp = `${file}${WRITING}`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    await writeWhole(fd, Buffer.from(JSON.stringify(body)));
    await syncFile(fd);
    closeQuietly(fd);
    renameSync(temp, file);
  } catch (error) {
    closeQuietly(fd);
    removeQuietly(temp);
    throw error;
  }
  await syncFolder(folder);
  return { file, entries };
}

/**
 * The commit point: the journal renamed to `.done` (and that made durable). From here on the set stands;
 * a process killed before `finishJournal` leaves kept originals that the next one removes (rolls forward).
 */
export async function markCommitted(journal: Journal): Promise<Journal> {
  const done = journal.file.replace(/\.json$/, DONE);
  renameSync(journal.file, done);
  await syncFolder(dirname(done));
  return { file: done, entries: journal.entries };
}

/**
 * After the commit point: the kept originals and the temp names of created files go (and that is made
 * durable), then the journal. A journal gone before its originals would leave them behind for good.
 */
export async function finishJournal(journal: Journal): Promise<void> {
  rollForward(journal.entries);
  await syncFolders(journal.entries);
  removeQuietly(journal.file);
}

/** Every folder holding a file of the set fsynced: what a rollback or roll forward did there is durable. */
export async function syncFolders(entries: readonly JournalEntry[]): Promise<void> {
  for (const folder of new Set(entries.map((entry) => dirname(entry.path)))) await syncFolder(folder);
}

function rollForward(entries: readonly JournalEntry[]): void {
  for (const entry of entries) {
    if (entry.orig) removeQuietly(entry.orig);
    if (entry.kind === 'create' && entry.temp) removeQuietly(entry.temp);
  }
}

const DONE = '.done';
/** The name a journal has while it is being written (writeJournal). */
const WRITING = '.writing';

/** A journal of a set that did not get renamed into place: gone, and the removal made durable. */
export async function removeJournal(journal: Journal): Promise<void> {
  try {
    unlinkSync(journal.file);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
  await syncFolder(dirname(journal.file));
}

/**
 * Puts every file of the set back as it was: kept originals renamed back over their files (which undoes a
 * rename of new content and a deletion alike), created files removed, temp files removed. Returns the
 * paths it could not put back (with why), for the error message; empty when everything is as it was.
 */
export function rollBack(entries: readonly JournalEntry[]): string[] {
  const failed: string[] = [];
  for (const entry of [...entries].reverse()) {
    try {
      if (entry.orig) {
        try {
          renameSync(entry.orig, entry.path);
        } catch (error) {
          // Already put back (a rollback killed part way) or never linked: the file is its old self.
          if (!isErrno(error, 'ENOENT')) throw error;
        }
        // rename(2) between two links of one file (the target not yet replaced) does nothing: the link stays.
        removeQuietly(entry.orig);
      } else if (entry.temp && isSameFile(entry.temp, entry.path)) {
        // A created file is linked from its temp file, whose name stays until the set is committed.
        unlinkSync(entry.path);
      }
      if (entry.temp) removeQuietly(entry.temp);
    } catch (error) {
      failed.push(`${entry.path} (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  return failed;
}

/** Per journal folder: its mtime when it was last listed and held no journal of another process. */
const cleanAt = new Map<string, bigint>();

/**
 * Whether `folder` holds a journal of another process. Called before every read and write of the
 * workspace, so it costs one stat (microseconds) while nothing changed: a missing folder has none, and a
 * folder whose mtime is the one it had when it was last found clean still is (adding or removing a journal
 * moves a folder's mtime); otherwise it is listed again.
 */
export function hasForeignJournals(folder: string): boolean {
  const stats = statSync(folder, { bigint: true, throwIfNoEntry: false });
  if (!stats) return false;
  if (cleanAt.get(folder) === stats.mtimeNs) return false;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return false;
  }
  const own = `${process.pid}-`;
  const foreign = names.some((name) => !name.startsWith(own));
  // Trusted only once the mtime is a second old: a journal added within the same clock tick as this listing
  // would not move a coarse mtime.
  const settled = BigInt(Date.now()) * 1_000_000n - stats.mtimeNs > 1_000_000_000n;
  if (foreign || !settled) cleanAt.delete(folder);
  else cleanAt.set(folder, stats.mtimeNs);
  return foreign;
}

/**
 * Rolls back every journal in `folder` left by a process that is gone and whose files lie under one of
 * `roots` (one marked committed is finished instead: rolled forward); returns how many were rolled back.
 * The workspace calls it before every read or write while such a journal exists (workspace.ts), so no
 * entry point (library, CLI, MCP server, proxy, chat) touches a file of a half-renamed set. Each journal is
 * recovered under the locks of its files (in path order, as a commit takes them) and read again once they
 * are held: two processes recovering at once, or a writer of one of the files, never interleave with it.
 * A journal that cannot be read is left for a person (it is never guessed at).
 */
export async function recoverChangeSets(
  folder: string,
  roots: readonly string[],
  options: { lock?: FileLockOptions } = {},
): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return 0;
  }
  let recovered = 0;
  for (const name of names) {
    if (name.endsWith(WRITING)) {
      // A journal its writer died writing: nothing of its set was touched yet.
      const pid = Number(name.split('-')[0]);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid))
        removeQuietly(join(folder, name));
      continue;
    }
    const committed = name.endsWith(DONE);
    if (!committed && !name.endsWith('.json')) continue;
    const file = join(folder, name);
    const entries = deadJournal(file, roots);
    if (!entries) continue;
    const paths = [...new Set(entries.map((entry) => entry.path))].sort();
    const done = await withLocks(paths, options.lock, async () => {
      // Read again under the locks: another process may have recovered it meanwhile.
      const again = deadJournal(file, roots);
      if (!again) return false;
      if (committed) {
        await finishJournal({ file, entries: again });
        return false;
      }
      if (rollBack(again).length > 0) return false;
      // The files put back durably before the journal that could put them back again goes.
      await syncFolders(again);
      await removeJournal({ file, entries: again });
      return true;
    });
    if (done) recovered++;
  }
  return recovered;
}

/** The entries of a journal at `file` whose writer is gone and whose files lie in `roots`; else null. */
function deadJournal(file: string, roots: readonly string[]): JournalEntry[] | null {
  let journal: JournalFile;
  try {
    journal = JSON.parse(readFileSync(file, 'utf8')) as JournalFile;
  } catch {
    return null;
  }
  if (journal?.version !== 1 || !Array.isArray(journal.entries)) return null;
  if (journal.pid === process.pid || isAlive(journal.pid)) return null;
  const entries = journal.entries.filter(isEntry);
  if (entries.length !== journal.entries.length) return null;
  if (!entries.some((entry) => roots.some((root) => isInside(entry.path, root)))) return null;
  return entries;
}

function withLocks<T>(
  paths: readonly string[],
  lock: FileLockOptions | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const [first, ...rest] = paths;
  if (first === undefined) return fn();
  return withFileLock(first, () => withLocks(rest, lock, fn), { ...lock, canonical: true });
}

function isEntry(value: unknown): value is JournalEntry {
  const entry = value as JournalEntry;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.path === 'string' &&
    (entry.kind === 'create' || entry.kind === 'modify' || entry.kind === 'delete') &&
    (entry.orig === undefined || typeof entry.orig === 'string') &&
    (entry.temp === undefined || typeof entry.temp === 'string')
  );
}

function isSameFile(a: string, b: string): boolean {
  try {
    const one = lstatSync(a, { bigint: true });
    const two = lstatSync(b, { bigint: true });
    return one.ino === two.ino && one.dev === two.dev;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
