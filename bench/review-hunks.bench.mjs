// The review page deciding hunk by hunk (issue 30), on a pending change of 1,000 hunks (10,000 changed
// lines, review-change.mjs, the change `npm run bench -- review` renders), in Debian's Chromium through
// playwright-core. Target: the page's decision round trip under 200 ms with 999 hunks left out: from the
// click on Allow until the page shows the answer (the POST with the choice, the server's check of it
// against the change with the gate's own rule, the reply, the page closing its decisions). Reference in
// the same run: the same round trip for a whole approval. Also timed in the page, until it has painted the
// result: the file's checkbox (every hunk left out, loaded or not), a hunk's checkbox, and the key x.
// The gate's write of such a choice is `npm run bench -- hunks`.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatMs, formatRatio, median, printTable } from './lib.mjs';
import { launchChromium, reviewChange, reviewFile } from './review-page.mjs';

const { startReviewServer } = await import('../dist/web/review-server.js');
const { withFirstFileAliases } = await import('../dist/gate/approval.js');

const DECISION_TARGET_MS = 200;
const RUNS = 7;

const { oldText, newText } = reviewChange(10_000, 10);
const file = await reviewFile(oldText, newText);
const { diff, path } = file;
const HUNKS = diff.hunks.length;
console.log(
  `A change of ${HUNKS.toLocaleString('en')} hunks (+${diff.added} -${diff.removed}) in ${path}.\n`,
);

const root = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-bench-review-hunks-')));
const browser = await launchChromium();
const { context } = browser;

/** A fresh page server with the change just proposed, answered once `measure` is done with it. */
async function withChange(measure) {
  const server = await startReviewServer({ root });
  // The request as the gate builds it: `files`, and the first file's fields beside them.
  const pending = server.ask(withFirstFileAliases({ tool: 'write_file', files: [file] }));
  pending.catch(() => undefined);
  try {
    return await measure(server);
  } finally {
    await server.close();
  }
}

/**
 * In the page: the time from a click on Allow (whole, or with the hunks chosen by `choose`) until the page
 * shows the answer.
 */
async function timeDecision(url, choose) {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('html[data-ready="true"]');
  const toggles = choose ? await choose(page) : undefined;
  const ms = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const status = document.getElementById('status');
        const start = performance.now();
        new MutationObserver(() => {
          if (status.textContent.startsWith('Answered')) resolve(performance.now() - start);
        }).observe(status, { childList: true, characterData: true, subtree: true });
        document.querySelector('button[data-decision="once"]').click();
      }),
  );
  const text = await page.textContent('#status');
  await page.close();
  return { ms, text, toggles };
}

/** Every hunk left out by the file's checkbox, then hunk 1 taken back; how long each took in the page. */
async function leaveOutAllButOne(page) {
  // Each from the click (or key) until the page has painted the result (the second animation frame after).
  const click = (selector) =>
    page.evaluate(async (css) => {
      const start = performance.now();
      document.querySelector(css).click();
      await new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)));
      return performance.now() - start;
    }, selector);
  const file = await click('input.file');
  const hunk = await click('input.hunk[data-hunk="0"]');
  // The key x on the hunk the keys point at (hunk 1, just clicked), after a pause (the typing guard).
  await new Promise((resolve) => setTimeout(resolve, 600));
  const key = await page.evaluate(async () => {
    const box = document.querySelector('input.hunk[data-hunk="0"]');
    const start = performance.now();
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'x', bubbles: true }));
    await new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)));
    const ms = performance.now() - start;
    if (box.checked) throw new Error('x did not leave the hunk out');
    box.click();
    await new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)));
    return ms;
  });
  const summary = await page.textContent('#selection');
  if (!summary.startsWith(`1 of ${HUNKS} hunks checked`)) throw new Error(`unexpected: ${summary}`);
  return { file, hunk, key };
}

const whole = [];
const partial = [];
const toggles = { file: [], hunk: [], key: [] };
let answer = '';
try {
  await withChange((server) => timeDecision(server.url, leaveOutAllButOne)); // warm-up
  for (let run = 0; run < RUNS; run++) {
    // In turn, so load on the machine weighs on both alike.
    await withChange(async (server) => whole.push((await timeDecision(server.url)).ms));
    await withChange(async (server) => {
      const timed = await timeDecision(server.url, leaveOutAllButOne);
      partial.push(timed.ms);
      answer = timed.text;
      for (const key of Object.keys(toggles)) toggles[key].push(timed.toggles[key]);
    });
  }
} finally {
  await browser.close();
  rmSync(root, { recursive: true, force: true });
}

const range = (values) => `${formatMs(Math.min(...values))} - ${formatMs(Math.max(...values))}`;
printTable(
  [`page, ${HUNKS.toLocaleString('en')} hunks`, 'median', 'range', 'vs whole approval'],
  [
    ['decision round trip, whole approval (reference)', formatMs(median(whole)), range(whole), '1.00x'],
    [
      `decision round trip, ${HUNKS - 1} hunks left out`,
      formatMs(median(partial)),
      range(partial),
      formatRatio(median(partial), median(whole)),
    ],
    ["the file's checkbox (every hunk out)", formatMs(median(toggles.file)), range(toggles.file), ''],
    ['a hunk checkbox (click)', formatMs(median(toggles.hunk)), range(toggles.hunk), ''],
    ['x on the current hunk (key)', formatMs(median(toggles.key)), range(toggles.key), ''],
  ],
);
console.log(
  `\n${RUNS} runs each, in turn, each on a change just proposed; the page answered "${answer}". Target: the median decision round trip with hunks < ${DECISION_TARGET_MS} ms (the range is the machine's noise as much as the page's).`,
);
const judged = median(partial);
console.log(
  judged < DECISION_TARGET_MS
    ? 'Target met.'
    : `Target missed: median decision round trip with hunks ${formatMs(judged)}.`,
);
process.exit(judged < DECISION_TARGET_MS ? 0 : 1);
