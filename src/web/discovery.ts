/**
 * How editgate processes find the `editgate review` page of their workspace root. The review server writes
 * a discovery file, STATE/review/KEY.json (STATE is the user's state folder, KEY a hash of the root's real
 * path), holding its port, its process id, the token other processes send changes with and the page's
 * link. The file is created with mode 0600 in a folder of mode 0700 and written whole (temp file, rename).
 * A reader trusts it only if the file is a regular file (not a link) owned by the same user with no
 * permissions for group or others, in a folder owned by that user that no one else can write to, and if
 * the server it names answers for the same root; otherwise it is ignored, and the process serves its own
 * page.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, open, readFile, realpath, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export interface ReviewDiscovery {
  version: 1;
  /** The root's real path. */
  root: string;
  pid: number;
  port: number;
  /** Bearer token for /api/submit. */
  submitToken: string;
  /** The page's first link (with its token), for `--open`. */
  url: string;
}

export type FoundReview = { found: ReviewDiscovery } | { none: true } | { refused: string };

export async function discoveryPath(stateDir: string, root: string): Promise<string> {
  const real = await realpath(resolve(root)).catch(() => resolve(root));
  const key = createHash('sha256').update(real).digest('hex').slice(0, 32);
  return join(stateDir, 'review', `${key}.json`);
}

/** Writes the discovery file; resolves to a function that removes it (if it is still this process's). */
export async function publishReview(
  stateDir: string,
  info: Omit<ReviewDiscovery, 'version' | 'root'> & { root: string },
): Promise<() => Promise<void>> {
  const path = await discoveryPath(stateDir, info.root);
  const folder = join(stateDir, 'review');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(folder, 0o700);
  const root = await realpath(resolve(info.root)).catch(() => resolve(info.root));
  const record: ReviewDiscovery = { ...info, version: 1, root };
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`);
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  return async () => {
    const current = await readFile(path, 'utf8').then(
      (text) => JSON.parse(text) as Partial<ReviewDiscovery>,
      () => undefined,
    );
    // Another review server may have replaced it since: leave that one's file alone.
    if (current?.pid === info.pid && current.port === info.port) await rm(path, { force: true });
  };
}

/**
 * The review server published for `root`, if its discovery file exists and can be trusted. `uid` is the
 * user the file must belong to (default: this process's).
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
  const uid = options.uid ?? process.getuid?.();
  if (uid !== undefined) {
    if (info.uid !== uid) return refused('is not owned by you');
    if ((info.mode & 0o077) !== 0)
      return refused(`can be read or written by others (mode ${(info.mode & 0o777).toString(8)})`);
    const folder = await lstat(join(stateDir, 'review'));
    if (folder.uid !== uid || (folder.mode & 0o022) !== 0)
      return refused('is in a folder others can write to');
  }
  try {
    const record = JSON.parse(await readFile(path, 'utf8')) as Partial<ReviewDiscovery>;
    if (
      record.version !== 1 ||
      typeof record.port !== 'number' ||
      typeof record.submitToken !== 'string' ||
      typeof record.url !== 'string' ||
      typeof record.root !== 'string' ||
      typeof record.pid !== 'number'
    ) {
      return refused('is not a discovery file this editgate understands');
    }
    return { found: record as ReviewDiscovery };
  } catch {
    return refused('is not valid JSON');
  }
}
