// `editgate review [ROOT]`: serve the web review page for a root, alone, until stopped. Other editgate
// processes working on the root with --approve web (edit, write, lines, apply, mcp) find it through its
// discovery file and send their changes to it, so one browser tab reviews them all.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { discoveryPath, findReview, publishReview } from '../../web/discovery.js';
import { openInBrowser } from '../../web/open-browser.js';
import { pingReview } from '../../web/remote-review.js';
import { startReviewServer } from '../../web/review-server.js';
import { defaultStateDir } from '../state-dir.js';

export const HELP = `Usage: editgate review [ROOT] [--port PORT] [--open]

Serve the web review page for ROOT (default: the current folder) until stopped (Ctrl-C). Every editgate
process run with --approve web on this root (editgate edit, write, lines, apply, mcp; or "approve": "web"
in editgate.config.json) sends its changes here instead of opening a page of its own: each change waits on
the page for your decision (allow once, this file or all edits for the session, deny with a reason, or
allow your own edited version), and the terminal that asked stays live too: the first answer counts.

How processes find the page: it writes STATE/review/KEY.json, where STATE is your state folder
($XDG_STATE_HOME/editgate, or ~/.local/state/editgate; EDITGATE_STATE_DIR overrides it) and KEY a hash of
the root's real path. The file holds the port, the process id, the page's link and the token changes are
sent with; it is readable by you alone (mode 0600, in a 0700 folder), and a file owned by someone else or
readable by others is ignored. It is removed when the page stops.

The page listens on 127.0.0.1 only, on a free port (or --port). Open the link printed below: its token
signs the browser in (a cookie), and the address bar then shows the page without it.

Options:
  --port PORT   listen on this port (default: one the system picks)
  --open        open the page in your browser ($BROWSER, or the system's opener)
  -h, --help    show this help`;

export async function run(args: string[]): Promise<number> {
  let values: { port?: string; open?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { port: { type: 'string' }, open: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
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
  const existing = await findReview(stateDir, root);
  if ('refused' in existing) process.stderr.write(`editgate review: ${existing.refused}.\n`);
  if ('found' in existing && (await pingReview(existing.found))) {
    process.stderr.write(
      `editgate review: a review page for ${root} is already running (pid ${existing.found.pid}): ${existing.found.url}\n`,
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
    url: server.url,
  });
  process.stdout.write(
    `Review page for ${root}: ${server.url}\nChanges from editgate processes run with --approve web on this root appear there (discovery file ${await discoveryPath(stateDir, root)}). Ctrl-C stops.\n`,
  );
  if (values.open) {
    const failed = await openInBrowser(server.url);
    if (failed) process.stderr.write(`editgate review: ${failed}; open the link above yourself.\n`);
  }

  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await unpublish();
  await server.close();
  return 0;
}
