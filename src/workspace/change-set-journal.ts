/**
 * The journal of a change set being committed (change-set.ts): a small JSON file in the state folder,
 * written and fsynced before the first rename and marked committed (renamed to `.done`: the commit point)
 * after the last one. It names,
 * for every file of the set, its kept original (a hard link to the old content, `.orig`) and the temp file
 * of its new content (both named before they exist), the root the file lies in, and what the set writes
 * there (the new bytes' sha256). While it exists the set is not committed: rolling back puts every kept
 * original back over its file, removes every file the set created (still a link to its temp file), and
 * removes the temp files. Rolling back is idempotent, so a process killed while rolling back is rolled back
 * again by the next one.
 *
 * Any editgate process whose roots hold a journal's files rolls it back (when the process that wrote it is
 * gone) before it reads or writes anything in those roots: after a crash part way every file is old, never
 * some old, some new.
 *
 * A journal is data, never an instruction (issue #26). Recovery acts on one only when
 * - it is sealed (state-key.ts: an HMAC-SHA256 under the key of the state folder it lies in), so only
 *   editgate, for this user, wrote it; one that is not is set aside (`.unverified`) and reported, never
 *   acted on;
 * - every file it names lies inside the root it names, is refused by no always-denied glob (the guard's
 *   rootOfRecorded), and its kept original and temp file are editgate's temp names beside it; one that
 *   names anything else is set aside (`.refused`) and reported;
 * and every rename and removal goes through the file's folder pinned from its root (guarded-open.ts), so
 * no link on the way leads out. A file changed since the set wrote it (a person's edit after the crash) is
 * left as it is, its old content kept beside it, and that is reported.
 */
import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { sha256 } from './fingerprint.js';
import { isErrno } from './fs-errors.js';
import { ALWAYS_DENY, Guard } from './guard.js';
import { type GuardedPlace, openIn, type PinnedFolder, pinParent } from './guarded-open.js';
import {
  closeQuietly,
  isTempNameFor,
  O_READ,
  readPlainFile,
  removeQuietly,
  syncFile,
  syncFolder,
  writeWhole,
} from './io.js';
import { type FileLockOptions, withFileLock } from './lock.js';
import { isSealed, seal, stateKey } from './state-key.js';
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
  /** The canonical root the file lies in: its folder is pinned from there. */
  root?: string;
  /**
   * What the set writes there (absent for a deletion): `sha256:HEX` of the new bytes, or, for a streamed
   * file's prepared temp file, `stat:DEV:INO:SIZE:MTIME_NS`. A rollback leaves a file that is no longer this.
   */
  wrote?: string;
}

interface JournalBody {
  pid: number;
  entries: JournalEntry[];
}

/** On disk: the body as written, and its MAC under the state folder's key. */
interface JournalFile {
  version: 2;
  body: string;
  mac: string;
}

/** A journal written for a set about to be renamed into place. */
export interface Journal {
  file: string;
  entries: JournalEntry[];
}

const PURPOSE = 'change-set journal';

/** The state folder holding a journal folder: its key seals the journals (state-key.ts). */
function keyFolder(journalFolder: string): string {
  return dirname(journalFolder);
}

/** What a journal file holds for `entries` of process `pid`, sealed with the key of `folder`'s state folder. */
export function journalText(folder: string, pid: number, entries: readonly JournalEntry[]): string {
  const key = stateKey(keyFolder(folder), { create: true })!;
  const body = JSON.stringify({ pid, entries: [...entries] } satisfies JournalBody);
  return JSON.stringify({ version: 2, body, mac: seal(key, PURPOSE, body) } satisfies JournalFile);
}

/** Writes the journal and makes it durable (file and folder fsynced) before any rename happens. */
export async function writeJournal(folder: string, entries: JournalEntry[]): Promise<Journal> {
  const text = journalText(folder, process.pid, entries);
  const created = mkdirSync(folder, { recursive: true, mode: 0o700 });
  // A journal folder made just now: its entry (and any parent made with it) durable too, or a power loss
  // could take the folder, and the journal in it, away.
  if (created) {
    for (let made = folder; made !== dirname(created); made = dirname(made)) await syncFolder(dirname(made));
  }
  const file = join(folder, `${process.pid}-${randomBytes(6).toString('hex')}.json`);
  // Written whole under a temp name, then renamed: a process killed while writing it leaves no journal a
  // reader could not parse, only a temp file (before any file of the set was touched) that recovery removes.
  const temp = `${file}${WRITING}`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    await writeWhole(fd, Buffer.from(text));
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

function rollForward(entries: readonly JournalEntry[]): string[] {
  const failed: string[] = [];
  for (const entry of entries) {
    try {
      inFolderOf(entry, (at) => {
        if (entry.orig) removeQuietly(at(entry.orig));
        if (entry.kind === 'create' && entry.temp) removeQuietly(at(entry.temp));
      });
    } catch (error) {
      failed.push(`${entry.path} (${messageOf(error)})`);
    }
  }
  return failed;
}

const DONE = '.done';
/** The name a journal has while it is being written (writeJournal). */
const WRITING = '.writing';
/** The names writeJournal gives a journal, and markCommitted a committed one. */
const JOURNAL_NAME = /^[1-9]\d*-[0-9A-Za-z]+\.(json|done)$/;
/** A journal set aside because its MAC failed: not editgate's, or not this key's. Left for a person. */
const UNVERIFIED = '.unverified';
/** A sealed journal naming something no set writes (outside its root, denied, not a temp name). */
const REFUSED = '.refused';

/** A journal of a set that did not get renamed into place: gone, and the removal made durable. */
export async function removeJournal(journal: Journal): Promise<void> {
  try {
    unlinkSync(journal.file);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
  await syncFolder(dirname(journal.file));
}

/** What a rollback did not do: files it could not put back, and files changed since the set wrote them. */
export interface RollBackResult {
  /** Paths it could not put back (with why): the journal stays for the next process. */
  failed: string[];
  /** Files left as they are because they changed since the set wrote them, in a person's words. */
  kept: string[];
}

/**
 * Puts every file of the set back as it was: kept originals renamed back over their files (which undoes a
 * rename of new content and a deletion alike), created files removed, temp files removed; each in its
 * folder pinned from its root. A file that is neither as it was nor what the set wrote (changed since, by a
 * person or a program) is left as it is, with its kept original beside it: `kept` says which.
 */
export function rollBack(entries: readonly JournalEntry[]): RollBackResult {
  const result: RollBackResult = { failed: [], kept: [] };
  for (const entry of [...entries].reverse()) {
    try {
      inFolderOf(entry, (at, folder, place) => rollBackOne(entry, at, folder, place, result.kept));
    } catch (error) {
      result.failed.push(`${entry.path} (${messageOf(error)})`);
    }
  }
  return result;
}

function rollBackOne(
  entry: JournalEntry,
  at: (absolute: string) => string,
  folder: PinnedFolder,
  place: GuardedPlace,
  kept: string[],
): void {
  const file = at(entry.path);
  const current = lstatOrNull(file);
  if (entry.orig) {
    const orig = lstatOrNull(at(entry.orig));
    // No kept original: never linked, or already put back (a rollback killed part way). The file is old.
    if (orig) {
      const notRenamed = current !== null && sameFile(current, orig);
      if (notRenamed || isWhatWasWritten(entry, current, folder, place)) {
        renameSync(at(entry.orig), file);
        // rename(2) between two links of one file (the target not yet replaced) does nothing: the link stays.
        removeQuietly(at(entry.orig));
      } else {
        kept.push(
          `${place.display} changed after the interrupted change set wrote it, so it was left as it is; its content from before the set is kept in ${join(dirname(entry.path), basename(entry.orig))} (remove that file when you no longer need it).`,
        );
      }
    }
  } else if (entry.temp && current !== null) {
    // A created file is linked from its temp file, whose name stays until the set is committed.
    const temp = lstatOrNull(at(entry.temp));
    if (temp !== null && sameFile(temp, current)) {
      if (isWhatWasWritten(entry, current, folder, place)) unlinkSync(file);
      else
        kept.push(
          `${place.display}, which the interrupted change set created, changed after it was written, so it was left as it is.`,
        );
    }
  }
  if (entry.temp) removeQuietly(at(entry.temp));
}

/** Whether the file (its lstat `current`) is what the set wrote there: a deletion's is no file at all. */
function isWhatWasWritten(
  entry: JournalEntry,
  current: BigIntStats | null,
  folder: PinnedFolder,
  place: GuardedPlace,
): boolean {
  if (entry.kind === 'delete') return current === null;
  if (current === null || !current.isFile() || entry.wrote === undefined) return false;
  if (entry.wrote.startsWith('stat:')) return entry.wrote === writtenStat(current);
  let fd: number;
  try {
    fd = openIn(folder, basename(entry.path), O_READ, place);
  } catch {
    return false;
  }
  try {
    return entry.wrote === `sha256:${sha256(readFileSync(fd))}`;
  } finally {
    closeQuietly(fd);
  }
}

/** A streamed file's written content, as the journal records it: the temp file's identity, size and mtime. */
export function writtenStat(stats: BigIntStats): string {
  return `stat:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
}

/**
 * `work` with the entry's names (its file, kept original, temp file) taken in its folder pinned from its
 * root (no link followed on the way); nothing to do when the folder is gone.
 */
function inFolderOf(
  entry: JournalEntry,
  work: (at: (absolute: string) => string, folder: PinnedFolder, place: GuardedPlace) => void,
): void {
  const place: GuardedPlace = {
    ...(entry.root === undefined ? {} : { root: entry.root }),
    display: entry.root === undefined ? entry.path : relative(entry.root, entry.path),
  };
  const pinned = pinParent(entry.path, place);
  if (!pinned) return;
  try {
    work((absolute) => pinned.folder.entry(basename(absolute)), pinned.folder, place);
  } finally {
    pinned.folder.close();
  }
}

/** Per journal folder: its mtime when it was last listed and held no journal of another process. */
const cleanAt = new Map<string, bigint>();

/** A journal (or one being written) of another process, by its name; set-aside journals are not. */
function isForeignJournal(name: string): boolean {
  if (name.startsWith(`${process.pid}-`)) return false;
  return name.endsWith('.json') || name.endsWith(DONE) || name.endsWith(WRITING);
}

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
  const foreign = names.some(isForeignJournal);
  // Trusted only once the mtime is a second old: a journal added within the same clock tick as this listing
  // would not move a coarse mtime.
  const settled = BigInt(Date.now()) * 1_000_000n - stats.mtimeNs > 1_000_000_000n;
  if (foreign || !settled) cleanAt.delete(folder);
  else cleanAt.set(folder, stats.mtimeNs);
  return foreign;
}

export interface RecoverOptions {
  lock?: FileLockOptions;
  /**
   * Told what recovery did not do, in a person's words: a journal set aside (not editgate's, or naming
   * what no set writes), a file left because it changed since the set wrote it. Default: a process warning.
   */
  onReport?: (message: string) => void;
}

/**
 * Rolls back every journal in `folder` left by a process that is gone and whose files lie under one of
 * `roots` (one marked committed is finished instead: rolled forward); returns how many were rolled back.
 * The workspace calls it before every read or write while such a journal exists (workspace.ts), so no
 * entry point (library, CLI, MCP server, proxy, chat) touches a file of a half-renamed set. Each journal is
 * recovered under the locks of its files (in path order, as a commit takes them) and read again once they
 * are held: two processes recovering at once, or a writer of one of the files, never interleave with it.
 * A journal that cannot be read, is not sealed, or names what no set writes is set aside and reported,
 * never guessed at.
 */
export async function recoverChangeSets(
  folder: string,
  roots: readonly string[],
  options: RecoverOptions = {},
): Promise<number> {
  const report = options.onReport ?? ((message) => process.emitWarning(`editgate recovery: ${message}`));
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return 0;
  }
  let recovered = 0;
  for (const name of names) {
    const pid = Number(name.split('-')[0]);
    const dead = Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid);
    if (name.endsWith(WRITING)) {
      // A journal its writer died writing: nothing of its set was touched yet.
      if (dead) removeQuietly(join(folder, name));
      continue;
    }
    const committed = name.endsWith(DONE);
    if (!committed && !name.endsWith('.json')) continue;
    const file = join(folder, name);
    if (!JOURNAL_NAME.test(name)) {
      // Not a name writeJournal gives: not editgate's, and it would be listed before every call.
      setAside(file, UNVERIFIED, 'its name is not one editgate gives a journal', report);
      continue;
    }
    if (!dead) continue;
    const read = await readJournal(file, pid);
    if ('refusal' in read) {
      setAside(file, read.aside, read.refusal, report);
      continue;
    }
    const entries = read.entries;
    if (!entries.some((entry) => roots.some((root) => isInside(entry.path, root)))) continue;
    const paths = [...new Set(entries.map((entry) => entry.path))].sort();
    const done = await withLocks(paths, options.lock, async () => {
      // Read again under the locks: another process may have recovered it meanwhile.
      const again = await readJournal(file, pid);
      if ('refusal' in again) return false;
      if (committed) {
        const failed = rollForward(again.entries);
        if (failed.length > 0) {
          report(`finishing the committed change set of ${file} failed for ${failed.join(', ')}.`);
          return false;
        }
        await syncFolders(again.entries);
        removeQuietly(file);
        return false;
      }
      const result = rollBack(again.entries);
      for (const message of result.kept) report(message);
      if (result.failed.length > 0) {
        report(
          `putting back the interrupted change set of ${file} failed for ${result.failed.join(', ')}; the next editgate process tries again.`,
        );
        return false;
      }
      // The files put back durably before the journal that could put them back again goes.
      await syncFolders(again.entries);
      await removeJournal({ file, entries: again.entries });
      return true;
    });
    if (done) recovered++;
  }
  return recovered;
}

type ReadJournal = { entries: JournalEntry[] } | { refusal: string; aside: string };

/**
 * The entries of the journal at `file` of process `pid`, once its seal, its shape and every path in it
 * are checked; else why not, and the suffix it is set aside under.
 */
async function readJournal(file: string, pid: number): Promise<ReadJournal> {
  let outer: Partial<JournalFile>;
  try {
    // Read only from a regular file of sane size named directly: the journal folder is read as data,
    // whoever wrote into it.
    outer = JSON.parse(readPlainFile(file, MAX_JOURNAL_BYTES)) as Partial<JournalFile>;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return { refusal: '', aside: '' };
    return { refusal: 'it cannot be read as a journal', aside: UNVERIFIED };
  }
  let key: Buffer | null;
  try {
    key = stateKey(keyFolder(dirname(file)), { create: false });
  } catch (error) {
    return { refusal: messageOf(error), aside: UNVERIFIED };
  }
  if (
    outer?.version !== 2 ||
    typeof outer.body !== 'string' ||
    !key ||
    !isSealed(key, PURPOSE, outer.body, outer.mac)
  )
    return {
      refusal: 'it is not sealed with this state folder’s key (editgate did not write it for you)',
      aside: UNVERIFIED,
    };
  let body: Partial<JournalBody>;
  try {
    body = JSON.parse(outer.body) as Partial<JournalBody>;
  } catch {
    return { refusal: 'its content is not a journal', aside: REFUSED };
  }
  if (body.pid !== pid || !Array.isArray(body.entries) || body.entries.length === 0)
    return { refusal: 'its content is not a journal', aside: REFUSED };
  const entries = body.entries as unknown[];
  if (!entries.every(isEntry))
    return { refusal: 'an entry of it is not a file of a change set', aside: REFUSED };
  const refusal = await placeRefusal(entries);
  return refusal === undefined ? { entries } : { refusal, aside: REFUSED };
}

/**
 * Why an entry names something no change set writes, or undefined: each file must lie inside the root the
 * journal names for it (canonical still, and the file not refused by the always-denied globs: the guard
 * decides, as for any write), and its kept original and temp file must be editgate's temp names for it in
 * its own folder.
 */
async function placeRefusal(entries: readonly JournalEntry[]): Promise<string | undefined> {
  const roots = [...new Set(entries.map((entry) => entry.root!))];
  let guard: Guard;
  try {
    guard = await Guard.create({ roots, deny: [...ALWAYS_DENY] });
  } catch (error) {
    return `a root it names cannot be used: ${messageOf(error)}`;
  }
  if (guard.roots.length !== roots.length || guard.roots.some((root, i) => root !== roots[i]))
    return 'a root it names is not that folder’s real path any more';
  for (const entry of entries) {
    try {
      if (guard.rootOfRecorded(entry.path) !== entry.root) return `${entry.path} is not in the root it names`;
    } catch (error) {
      return `${entry.path}: ${messageOf(error)}`;
    }
    if (entry.orig !== undefined && !isBeside(entry.path, entry.orig, 'orig'))
      return `${entry.orig} is not a kept original of ${entry.path}`;
    if (entry.temp !== undefined && !isBeside(entry.path, entry.temp, 'tmp'))
      return `${entry.temp} is not a temp file of ${entry.path}`;
  }
  return undefined;
}

/** The largest journal read: thousands of files' entries; anything bigger was not written by a commit. */
const MAX_JOURNAL_BYTES = 16 * 1024 * 1024;

function isBeside(path: string, other: string, kind: 'tmp' | 'orig'): boolean {
  return dirname(other) === dirname(path) && isTempNameFor(path, basename(other), kind);
}

/** A journal not acted on, renamed so no process reads it again, and the person told where and why. */
function setAside(file: string, suffix: string, refusal: string, report: (message: string) => void): void {
  if (suffix === '') return; // gone meanwhile: another process dealt with it
  try {
    renameSync(file, `${file}${suffix}`);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return;
  }
  report(
    `the change-set journal ${file} was not acted on: ${refusal}. It is kept as ${file}${suffix}. If an editgate process crashed while writing several files, check the files it names and put back what needs it (their old content may be in hidden .orig files beside them), then remove it; otherwise something else wrote into your state folder: find out what.`,
  );
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
  if (typeof entry !== 'object' || entry === null) return false;
  const isPath = (path: unknown) => typeof path === 'string' && isAbsolute(path) && normalize(path) === path;
  const shape =
    isPath(entry.path) &&
    isPath(entry.root) &&
    (entry.orig === undefined || isPath(entry.orig)) &&
    (entry.temp === undefined || isPath(entry.temp)) &&
    (entry.wrote === undefined || typeof entry.wrote === 'string');
  if (!shape) return false;
  // What each kind of change leaves: a creation a temp file, a deletion a kept original, a change both.
  if (entry.kind === 'create') return entry.orig === undefined && entry.temp !== undefined;
  if (entry.kind === 'delete') return entry.orig !== undefined && entry.temp === undefined;
  return entry.kind === 'modify' && entry.orig !== undefined && entry.temp !== undefined;
}

function lstatOrNull(path: string): BigIntStats | null {
  try {
    return lstatSync(path, { bigint: true });
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw error;
  }
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
