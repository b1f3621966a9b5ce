import { spawn } from 'node:child_process';
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { letGo, removeAtExit } from '../workspace/io.js';
import { folderProblem } from './discovery.js';
import { escapeHtml } from './html-text.js';
import { newSecret } from './request-guard.js';
import { OPEN_LINK_TTL_MS } from './sign-in-links.js';

/**
 * Opens the review page in the person's browser with a sign-in link of its own, short-lived, that no
 * command line shows (openInBrowser); the link printed for the person stays good for another browser.
 */
export async function openReviewInBrowser(
  page: { signInLink(ttlMs?: number): Promise<string> | string },
  stateDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<string | undefined> {
  const link = await page.signInLink(OPEN_LINK_TTL_MS);
  return openInBrowser(link, { stateDir, ttlMs: OPEN_LINK_TTL_MS, env });
}

export interface OpenOptions {
  /** The user's state folder: the page that carries the link is written in its review folder. */
  stateDir: string;
  /** How long the link works (the page is removed after it). */
  ttlMs: number;
  env?: Record<string, string | undefined>;
}

/**
 * Opens a sign-in link in the person's browser without putting its token on a command line: every user of
 * the machine can read a process's arguments (/proc/PID/cmdline, `ps`), for as long as the browser runs.
 * The link goes into a small page in the user's review folder (mode 0600, in a folder only the user can
 * change), and the browser is started on that file's file:// address, which says nothing; the page sends
 * the browser on to the link. The link works once and for `ttlMs` (the caller makes it so), and the page is
 * removed after that time or when this process ends. $BROWSER when set, else the system's opener
 * (xdg-open, open, or start on Windows); the address is one argument, never parsed by a shell. Resolves to
 * an error message when nothing could be started (the caller prints a link instead).
 */
export async function openInBrowser(link: string, options: OpenOptions): Promise<string | undefined> {
  const folder = join(options.stateDir, 'review');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const problem = await folderProblem(folder).catch((error: Error) => error.message);
  if (problem) return `could not open a browser without showing the link to others (${problem})`;
  await sweepOpeners(folder, options.ttlMs);
  const page = join(folder, `open-${newSecret()}.html`);
  await writeFile(page, openerHtml(link), { mode: 0o600, flag: 'wx' });
  const remove = () => {
    letGo(page);
    return rm(page, { force: true });
  };
  removeAtExit(page);
  setTimeout(() => void remove(), options.ttlMs).unref();
  const failed = await spawnOpener(pathToFileURL(page).href, options.env ?? process.env);
  if (failed) await remove();
  return failed;
}

const OPENER = /^open-[A-Za-z0-9_-]{43}\.html$/;

/** Removes the pages of processes that were killed before they could (their links have expired). */
async function sweepOpeners(folder: string, ttlMs: number): Promise<void> {
  for (const name of await readdir(folder).catch(() => [])) {
    if (!OPENER.test(name)) continue;
    const path = join(folder, name);
    const info = await lstat(path).catch(() => undefined);
    if (info?.isFile() && Date.now() - info.mtimeMs > ttlMs) await rm(path, { force: true });
  }
}

function openerHtml(link: string): string {
  const href = escapeHtml(link);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url=${href}">
<title>editgate review</title>
</head>
<body><p>Opening the editgate review page… <a href="${href}">Open it</a> if nothing happens.</p></body>
</html>
`;
}

function spawnOpener(address: string, env: Record<string, string | undefined>): Promise<string | undefined> {
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [address]]
    : process.platform === 'darwin'
      ? ['open', [address]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', address]]
        : ['xdg-open', [address]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { detached: true, stdio: 'ignore' });
      child.once('error', (error) => resolve(`could not open a browser (${command}: ${error.message})`));
      child.once('spawn', () => {
        child.unref();
        resolve(undefined);
      });
    } catch (error) {
      resolve(`could not open a browser (${error instanceof Error ? error.message : String(error)})`);
    }
  });
}
