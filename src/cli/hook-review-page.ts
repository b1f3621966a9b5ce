/**
 * The review page an agent's hook asks on in web mode (issue #29 item 2): the `editgate review` running for
 * the root, or, when none runs, one the hook starts and shows the person. The agents do not show a hook's
 * output while it runs, so a page no one has open would only make the hook wait out its time: the page is
 * opened in the person's browser (web/open-browser.ts: $BROWSER or the system's opener, the sign-in link in
 * a file only they can read, never on a command line), and the person's "notify" setting, if any, is sent
 * by the page itself for each change (cli/review-announce.ts).
 *
 * The page started is `editgate review ROOT` itself, as a process of its own (detached: it outlives the hook
 * and the agent, and serves every later call for the root until it is stopped, or until it has had nothing
 * to do for 15 minutes: no change waiting, no page open), listening on 127.0.0.1 with its usual sign-in. Two hooks that find no page at once start one: a marker made with O_EXCL in the hook
 * server's run folder (STATE/run/review-KEY.starting) lets one start it; the others wait for its discovery
 * file (web/discovery.ts), which is how every process finds the page. Nothing is started when the state
 * folder, its review folder or its run folder could be changed by someone else (folderProblem): a page
 * whose discovery file another user could replace would not be trusted anyway.
 *
 * "review": { "startForHooks": false } in the person's config file turns this off: the hook then refuses
 * at once, saying to start `editgate review ROOT`, as before.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, lstatSync, openSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadUserConfig, userConfigPath } from '../agent/providers/user-config.js';
import { hookRunFolder } from '../hooks/hook-wire.js';
import { discoveryPath, folderProblem } from '../web/discovery.js';
import { openReviewInBrowser } from '../web/open-browser.js';
import { parseReviewSettings } from '../web/review-settings.js';
import type { RunningReview } from '../web/web-approval.js';
import { runFolderProblem } from './hook-server.js';

export interface HookReviewPageOptions {
  root: string;
  /** The user's state folder, where pages publish themselves. */
  stateDir: string;
  /** Looks for the page running for the root (cli/web-review.ts findWebReview). */
  look: () => Promise<RunningReview | undefined>;
  /** How editgate is run (default: this Node and this build's dist/cli/main.js); `review ROOT` is added. */
  editgate?: string[];
  /** The environment the page and the browser get ($BROWSER), and where the person's config is found. */
  env?: Record<string, string | undefined>;
  /** A line for the person (the hook's standard error). */
  warn: (line: string) => void;
  /** How long a page being started may take to publish itself (default 30 s). */
  startMs?: number;
}

const DEFAULT_START_MS = 30_000;
/**
 * A page started for a hook ends once nothing has waited on it and no page has been open for this long (as
 * the hook server ends when idle), rather than listening until the machine restarts.
 */
const PAGE_IDLE_EXIT = ['--idle-exit', '15'];
const POLL_MS = 100;

/**
 * The page to ask on: the running one, or one started now (and opened in the browser); undefined when none
 * runs and the person turned starting off. Throws, saying why, when a page cannot be started.
 */
export async function hookReviewPage(options: HookReviewPageOptions): Promise<RunningReview | undefined> {
  const running = await options.look();
  if (running) return running;
  // The root comes from the agent's event: only a real folder's absolute path becomes an argument.
  if (
    !isAbsolute(options.root) ||
    !(await stat(options.root).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  )
    throw new Error(
      `no review page was started for ${options.root}: it is not an existing folder's absolute path`,
    );
  const env = options.env ?? process.env;
  const settings = parseReviewSettings((await loadUserConfig(env)).review, userConfigPath(env));
  if (settings.startForHooks === false) return undefined;
  const problem = await stateProblem(options.stateDir);
  if (problem) throw new Error(`no review page was started for ${options.root}: ${problem}`);
  const { page, started } = await startOrWait(options, env);
  if (!started) return page;
  const failed = await openReviewInBrowser(page, options.stateDir, env);
  options.warn(
    failed
      ? `editgate: started the review page for ${options.root} (editgate review, pid ${page.pid}) at ${page.address}, but ${failed}: open it yourself (editgate review --link prints a sign-in link).`
      : `editgate: started the review page for ${options.root} (editgate review, pid ${page.pid}) at ${page.address} and opened it in your browser.`,
  );
  return page;
}

/** Why no page may be started from this state folder, or undefined. */
async function stateProblem(stateDir: string): Promise<string | undefined> {
  const review = join(stateDir, 'review');
  try {
    await mkdir(review, { recursive: true, mode: 0o700 });
  } catch (error) {
    return `${review} cannot be made (${(error as Error).message})`;
  }
  return (await folderProblem(review)) ?? (await runFolderProblem(stateDir));
}

/** Starts the page, or waits for the one another hook is starting; `started` when this call started it. */
async function startOrWait(
  options: HookReviewPageOptions,
  env: Record<string, string | undefined>,
): Promise<{ page: RunningReview; started: boolean }> {
  const startMs = options.startMs ?? DEFAULT_START_MS;
  const key = basename(await discoveryPath(options.stateDir, options.root), '.json');
  const marker = join(hookRunFolder(options.stateDir), `review-${key}.starting`);
  const until = Date.now() + startMs;
  for (;;) {
    if (claim(marker, startMs)) {
      try {
        // Started and published between the look and the claim: that one.
        const page = await options.look();
        if (page) return { page, started: false };
        return { page: await start(options, env, key, startMs), started: true };
      } finally {
        rmSync(marker, { force: true });
      }
    }
    await sleep(POLL_MS);
    const page = await options.look();
    if (page) return { page, started: false };
    if (Date.now() > until)
      throw new Error(
        `the review page another hook was starting for ${options.root} did not come up within ${Math.round(startMs / 1000)} s`,
      );
  }
}

/** Whether this call may start the page: the marker made now, or one left by a start that died. */
function claim(marker: string, startMs: number): boolean {
  try {
    closeSync(openSync(marker, 'wx', 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const since = Date.now() - (lstatSync(marker, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  if (since < startMs) return false;
  rmSync(marker, { force: true });
  try {
    closeSync(openSync(marker, 'wx', 0o600));
    return true;
  } catch {
    return false;
  }
}

/** `editgate review ROOT` as a process of its own, until it has published itself. */
async function start(
  options: HookReviewPageOptions,
  env: Record<string, string | undefined>,
  key: string,
  startMs: number,
): Promise<RunningReview> {
  const command = options.editgate ?? thisEditgate();
  // Its standard error (why it could not start) is kept for the refusal; its standard output, which
  // holds a sign-in link, goes nowhere.
  const log = join(hookRunFolder(options.stateDir), `review-${key}.log`);
  const fd = openSync(log, 'w', 0o600);
  let exited: string | undefined;
  let pid: number | undefined;
  try {
    const child = spawn(command[0]!, [...command.slice(1), 'review', ...PAGE_IDLE_EXIT, '--', options.root], {
      detached: true,
      stdio: ['ignore', 'ignore', fd],
      cwd: options.stateDir,
      env: { ...env, EDITGATE_HOOK_SERVER: undefined },
    });
    pid = child.pid;
    child.once('error', (error) => {
      exited = error.message;
    });
    child.once('exit', (code, signal) => {
      exited = signal ? `stopped by ${signal}` : `exit code ${code}`;
    });
    child.unref();
  } finally {
    closeSync(fd);
  }
  const until = Date.now() + startMs;
  for (;;) {
    const page = await options.look();
    if (page) return page;
    if (exited !== undefined || Date.now() > until) break;
    await sleep(POLL_MS);
  }
  if (exited === undefined && pid !== undefined) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // Gone meanwhile.
    }
  }
  const said = readFileSync(log, 'utf8').trim().slice(0, 500);
  throw new Error(
    `editgate review ${options.root} did not start (${exited ?? `no page within ${Math.round(startMs / 1000)} s`})${said ? `: ${said}` : ''}`,
  );
}

/** This build's command line: Node and dist/cli/main.js (beside this file, or beside the hook bundle). */
function thisEditgate(): string[] {
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  if (!existsSync(main))
    throw new Error(`cannot start editgate review: ${main} is missing (editgate runs from a build)`);
  return [process.execPath, main];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
