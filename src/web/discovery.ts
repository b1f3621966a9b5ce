/**
 * How editgate processes find the `editgate review` page of their workspace root. The review server writes
 * a discovery file, STATE/review/KEY.json (STATE is the user's state folder, KEY a hash of the root's real
 * path), holding its port, its process id, the token other processes send changes with and the key it
 * proves itself with (server-proof.ts). The file is created with mode 0600 in a folder of mode 0700 and
 * written whole (temp file, rename); it is removed on every way the server ends that a process can see
 * (Ctrl-C, SIGTERM, SIGHUP when its terminal closes, an uncaught error: the exit hook), and a file whose
 * process is gone (SIGKILL, a crash of the machine) is removed by the next reader.
 *
 * A reader trusts the file only if it is a regular file (not a link) owned by this user with no
 * permissions for group or others, in folders only this user can change (see folderProblem), and then
 * only a server that proves it holds the file's key: a file another user planted, or one left behind whose
 * port someone else now listens on, is refused before anything is sent.
 */
import { createHash } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, readFile, realpath, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { letGo, removeAtExit } from '../workspace/io.js';

export interface ReviewDiscovery {
  version: 2;
  /** The root's real path. */
  root: string;
  pid: number;
  port: number;
  /** Bearer token for /api/submit: sent only to a server that proved it holds `serverKey`. */
  submitToken: string;
  /** The key the server proves itself with; never sent. */
  serverKey: string;
}

export type FoundReview =
  | { found: ReviewDiscovery }
  /** No file (`note`: a stale one, whose process is gone, was removed). */
  | { none: true; note?: string }
  /** A file that is not trusted, and why. */
  | { refused: string };

export async function discoveryPath(stateDir: string, root: string): Promise<string> {
  const real = await realRoot(root);
  const key = createHash('sha256').update(real).digest('hex').slice(0, 32);
  return join(stateDir, 'review', `${key}.json`);
}

async function realRoot(root: string): Promise<string> {
  return realpath(resolve(root)).catch(() => resolve(root));
}

function currentUid(uid?: number): number | undefined {
  return uid ?? (typeof process.getuid === 'function' ? process.getuid() : undefined);
}

/**
 * Why `folder` (the review folder) cannot be trusted to hold only this user's files, or undefined when it
 * can: it and the state folder above it are real folders owned by the user that no one else can write;
 * every folder above those belongs to the user or to root, and is not writable by everyone unless it has
 * the sticky bit (as /tmp does: there no one may rename another's entries). Group-writable folders above
 * the state folder are allowed (a home folder shared with the user's own group).
 */
export async function folderProblem(folder: string, uid?: number): Promise<string | undefined> {
  const user = currentUid(uid);
  if (user === undefined) return undefined;
  const own = [folder, dirname(folder)];
  for (const path of own) {
    const info = await lstat(path).catch(() => undefined);
    if (!info) return `${path} does not exist`;
    if (!info.isDirectory()) return `${path} is not a folder (a link or a file)`;
    if (info.uid !== user) return `the folder ${path} is not yours (owner uid ${info.uid})`;
    if ((info.mode & 0o022) !== 0)
      return `the folder ${path} can be written by others (mode ${(info.mode & 0o777).toString(8)})`;
  }
  for (let path = dirname(dirname(folder)); ; path = dirname(path)) {
    const info = await lstat(path).catch(() => undefined);
    if (!info) return `${path} cannot be examined`;
    if (info.uid !== user && info.uid !== 0)
      return `the folder ${path} above your state folder belongs to another user (uid ${info.uid})`;
    if ((info.mode & 0o002) !== 0 && (info.mode & 0o1000) === 0)
      return `the folder ${path} above your state folder can be written by everyone`;
    if (dirname(path) === path) return undefined;
  }
}

/**
 * Writes the discovery file; resolves to a function that removes it (if it is still this server's). The
 * exit hook removes it too, so a process ended by a signal or an uncaught error leaves nothing behind.
 * Refuses (throws) when the folder cannot be trusted: processes would not trust the file either.
 */
export async function publishReview(
  stateDir: string,
  info: Omit<ReviewDiscovery, 'version' | 'root'> & { root: string },
): Promise<() => Promise<void>> {
  const path = await discoveryPath(stateDir, info.root);
  const folder = join(stateDir, 'review');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const problem = await folderProblem(folder);
  if (problem) {
    throw new Error(
      `cannot publish the review page in ${folder}: ${problem}. Make it yours with mode 0700 (or set EDITGATE_STATE_DIR to a folder only you can write)`,
    );
  }
  await chmod(folder, 0o700);
  const record: ReviewDiscovery = { ...info, version: 2, root: await realRoot(info.root) };
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`);
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  // Another review server may have replaced it since: leave that one's file alone.
  const isOurs = (text: string) => {
    try {
      const current = JSON.parse(text) as Partial<ReviewDiscovery>;
      return current.pid === info.pid && current.port === info.port;
    } catch {
      return false;
    }
  };
  removeAtExit(path, () => {
    if (isOurs(readFileSync(path, 'utf8'))) unlinkSync(path);
  });
  return async () => {
    const ours = await readFile(path, 'utf8').then(isOurs, () => false);
    if (ours) await rm(path, { force: true });
    letGo(path);
  };
}

/**
 * The review server published for `root`, if its discovery file exists and can be trusted (the server
 * behind it must still prove itself: remote-review.ts). `uid` is the user the file must belong to
 * (default: this process's).
 */
export async function findReview(
  stateDir: string,
  root: string,
  options: { uid?: number } = {},
): Promise<FoundReview> {
  const path = await discoveryPath(stateDir, root);
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(path);
  } catch {
    return { none: true };
  }
  const refused = (why: string): FoundReview => ({ refused: `${path} ${why}; it is ignored` });
  if (!info.isFile()) return refused('is not a regular file');
  const uid = currentUid(options.uid);
  if (uid !== undefined) {
    if (info.uid !== uid) return refused(`is not yours (owner uid ${info.uid})`);
    if ((info.mode & 0o077) !== 0)
      return refused(`can be read or written by others (mode ${(info.mode & 0o777).toString(8)})`);
    const problem = await folderProblem(dirname(path), uid);
    if (problem) return refused(`is in a folder others can change: ${problem}`);
  }
  let record: Partial<ReviewDiscovery>;
  try {
    record = JSON.parse(await readFile(path, 'utf8')) as Partial<ReviewDiscovery>;
  } catch {
    return refused('is not valid JSON');
  }
  if (
    record.version !== 2 ||
    typeof record.port !== 'number' ||
    typeof record.submitToken !== 'string' ||
    typeof record.serverKey !== 'string' ||
    typeof record.root !== 'string' ||
    typeof record.pid !== 'number'
  ) {
    return refused('is not a discovery file this editgate understands');
  }
  if (record.root !== (await realRoot(root))) return refused('names another root');
  if (!processAlive(record.pid)) {
    await rm(path, { force: true });
    return {
      none: true,
      note: `removed ${path}: its review page (pid ${record.pid}) is no longer running`,
    };
  }
  return { found: record as ReviewDiscovery };
}

/**
 * Every review page published in the state folder whose file can be trusted and whose process runs (for
 * `editgate hooks status`, which shows the pages hooks started); a file gone stale is removed on the way.
 */
export async function runningReviews(stateDir: string): Promise<ReviewDiscovery[]> {
  let names: string[];
  try {
    names = (await readdir(join(stateDir, 'review'))).filter((name) => /^[0-9a-f]{32}\.json$/.test(name));
  } catch {
    return [];
  }
  const running: ReviewDiscovery[] = [];
  for (const name of names) {
    let root: unknown;
    try {
      root = (JSON.parse(await readFile(join(stateDir, 'review', name), 'utf8')) as { root?: unknown }).root;
    } catch {
      continue;
    }
    if (typeof root !== 'string') continue;
    // The file read again, checked as every process checks it before trusting it.
    const found = await findReview(stateDir, root);
    if ('found' in found) running.push(found.found);
  }
  return running;
}

/** Whether a process with this id runs (one of another user counts: its id is taken). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
