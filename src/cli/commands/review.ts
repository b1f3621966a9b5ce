// `editgate review [ROOT]`: serve the web review page for a root, alone, until stopped. Other editgate
// processes working on the root with --approve web (edit, write, lines, apply, mcp) find it through its
// discovery file and send their changes to it, so one browser tab reviews them all.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { discoveryPath, findReview, publishReview, type ReviewDiscovery } from '../../web/discovery.js';
import { openReviewInBrowser } from '../../web/open-browser.js';
import { proveReview, requestSignInLink } from '../../web/remote-review.js';
import { startReviewServer } from '../../web/review-server.js';
import { defaultStateDir } from '../state-dir.js';

export const HELP = `Usage: editgate review [ROOT] [--port PORT] [--open]
       editgate review [ROOT] --link

Serve the web review page for ROOT (default: the current folder) until stopped (Ctrl-C). Every editgate
process run with --approve web on this root (editgate edit, write, lines, apply, mcp; or "approve": "web"
in editgate.config.json) sends its changes here instead of opening a page of its own: each change waits on
the page for your decision (allow once, this file or all edits for the session, deny with a reason, or
allow your own edited version), and the terminal that asked stays live too: the first answer counts.

How processes find the page: it writes STATE/review/KEY.json, where STATE is your state folder
(~/.local/state/editgate; EDITGATE_STATE_DIR overrides it) and KEY a hash of
the root's real path. The file holds the port, the process id, the token changes are sent with and a key
the page proves itself with; it is readable by you alone (mode 0600, in a 0700 folder). A file owned by
someone else, readable by others or in a folder others can change is ignored, and so is a page that does
not prove it holds the file's key (another program on that port): nothing is sent to it. The file is
removed when the page stops (Ctrl-C, kill, the terminal closing).

The page listens on 127.0.0.1 only, on a free port (or --port). Open the link printed below: its token
signs one browser in, once (a second use is refused), and the address bar then shows the page without it.
For another browser, editgate review --link prints a new link.

Options:
  --port PORT   listen on this port (default: one the system picks)
  --open        open the page in your browser ($BROWSER, or the system's opener), through a file only you
                can read: the link never shows on a command line
  --link        print a new sign-in link for the page already running for ROOT, and exit
  -h, --help    show this help`;

/** The review page running for the root, when its discovery file is trusted and its server proves itself. */
async function runningReview(stateDir: string, root: string): Promise<ReviewDiscovery | undefined> {
  const existing = await findReview(stateDir, root);
  if ('refused' in existing) process.stderr.write(`editgate review: ${existing.refused}.\n`);
  if ('note' in existing && existing.note) process.stderr.write(`editgate review: ${existing.note}.\n`);
  if (!('found' in existing)) return undefined;
  const proven = await proveReview(existing.found);
  if ('proven' in proven) return existing.found;
  process.stderr.write(`editgate review: ${proven.refused}; nothing was sent to it.\n`);
  return undefined;
}

export async function run(args: string[]): Promise<number> {
  let values: { port?: string; open?: boolean; link?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        open: { type: 'boolean' },
        link: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
    if (positionals.length > 1) throw new Error(`one ROOT at a time (got ${positionals.join(', ')})`);
    if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) {
      throw new Error(`--port must be a port number (got "${values.port}")`);
    }
  } catch (error) {
    process.stderr.write(
      `editgate review: ${(error as Error).message}. Run editgate review --help for its options.\n`,
    );
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const root = resolve(positionals[0] ?? process.cwd());
  if (
    !(await stat(root).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    process.stderr.write(`editgate review: ${root} is not an existing folder.\n`);
    return 2;
  }
  const stateDir = defaultStateDir();
  const running = await runningReview(stateDir, root);
  if (values.link) {
    if (!running) {
      process.stderr.write(
        `editgate review: no review page is running for ${root}; start one with editgate review.\n`,
      );
      return 1;
    }
    process.stdout.write(`${await requestSignInLink(running)}\n`);
    return 0;
  }
  if (running) {
    process.stderr.write(
      `editgate review: a review page for ${root} is already running (pid ${running.pid}, http://127.0.0.1:${running.port}/); editgate review --link prints a new sign-in link for it.\n`,
    );
    return 1;
  }

  const server = await startReviewServer({
    root,
    acceptSubmissions: true,
    ...(values.port !== undefined ? { port: Number(values.port) } : {}),
  }).catch((error: unknown) => {
    process.stderr.write(
      `editgate review: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return undefined;
  });
  if (!server) return 1;
  const unpublish = await publishReview(stateDir, {
    root,
    pid: process.pid,
    port: server.port,
    submitToken: server.submitToken!,
    serverKey: server.serverKey!,
  }).catch(async (error: unknown) => {
    process.stderr.write(`editgate review: ${error instanceof Error ? error.message : String(error)}.\n`);
    await server.close();
    return undefined;
  });
  if (!unpublish) return 1;
  process.stdout.write(
    `Review page for ${root}: ${server.url}\nChanges from editgate processes run with --approve web on this root appear there (discovery file ${await discoveryPath(stateDir, root)}). Ctrl-C stops.\n`,
  );
  if (values.open) {
    const failed = await openReviewInBrowser(server, stateDir);
    if (failed) process.stderr.write(`editgate review: ${failed}; open the link above yourself.\n`);
  }

  // Every way the page is told to stop removes the discovery file: Ctrl-C, kill, and the terminal closing
  // (SIGHUP). An uncaught error ends the process through its exit hook, which removes it too.
  await new Promise<void>((done) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, done);
  });
  await unpublish();
  await server.close();
  return 0;
}
