import type { RunningReview, WebApproval } from '../web/web-approval.js';
import { defaultStateDir } from './state-dir.js';
import type { GlobalOptions } from './usage.js';

/** The review page a command asks on (--approve web), and the lines that tell the person where it is. */
export interface OpenedWebReview extends WebApproval {
  /** The page's link (and any warning, or that the browser could not be opened), one line each. */
  announcement: string[];
}

/**
 * Starts the review page for the root (or finds the one `editgate review` serves for it) and, with --open,
 * opens it in the browser. Nothing is written here: the caller shows the announcement where its person
 * reads (the terminal, standard error, or the chat's transcript).
 */
export async function openWebReview(
  globals: Pick<GlobalOptions, 'root' | 'open'>,
  command: string,
): Promise<OpenedWebReview> {
  // Loaded only here: commands that ask in the terminal never pay for the web layer.
  const [{ openWebApproval }, { openReviewInBrowser }] = await Promise.all([
    import('../web/web-approval.js'),
    import('../web/open-browser.js'),
  ]);
  const announcement: string[] = [];
  const stateDir = defaultStateDir();
  const web = await openWebApproval({
    root: globals.root,
    stateDir,
    source: `${command} (pid ${process.pid})`,
    warn: (message) => announcement.push(`editgate: ${message}`),
  });
  announcement.push(
    web.sharedWith === undefined
      ? `Review changes in your browser: ${web.url}`
      : `Changes go to the review page of editgate review (pid ${web.sharedWith}): ${web.url}`,
  );
  if (globals.open) {
    const failed = await openReviewInBrowser(web, stateDir);
    if (failed) announcement.push(`editgate: ${failed}; open the link above yourself.`);
  }
  return { ...web, announcement };
}

/**
 * Looks for the review page `editgate review` serves for the root, at each call (undefined while none is
 * running). Nothing is started: for a command that asks on the page only when a person has it open
 * (editgate proxy's auto), and that uses a page started after it.
 */
export function findWebReview(
  root: string,
  command: string,
  warn: (message: string) => void,
): () => Promise<RunningReview | undefined> {
  let finder: Promise<() => Promise<RunningReview | undefined>> | undefined;
  return async () => {
    // Loaded at the first look: commands that never look never pay for the web layer.
    finder ??= import('../web/web-approval.js').then(({ runningReviewFinder }) =>
      runningReviewFinder({
        root,
        stateDir: defaultStateDir(),
        source: `${command} (pid ${process.pid})`,
        warn,
      }),
    );
    return (await finder)();
  };
}
