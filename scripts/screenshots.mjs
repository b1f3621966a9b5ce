// The review page's pictures in docs/ (docs/review-page-320.png, -390.png, -768.png): a change of three
// hunks pending on a real review server, opened in headless Chromium at a small phone's, a phone's and a
// tablet's width with touch, hunk 2 left out by touch with a reason. Run after `npm run build`:
//   node scripts/screenshots.mjs
// (EDITGATE_CHROMIUM points at another Chromium than /usr/bin/chromium). test/web/layout.browser.test.ts
// checks the same layout at the same widths.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const DOCS = join(REPO, 'docs');
const SCREENS = [
  { width: 320, height: 568 },
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
];

if (!existsSync(join(REPO, 'dist', 'web', 'review-server.js'))) {
  console.error('No dist/: run `npm run build` first.');
  process.exit(1);
}
const { launchChromium } = await import('../bench/review-page.mjs');
const { diffLines, formatUnifiedDiff } = await import('../dist/core/diff.js');
const { startReviewServer } = await import('../dist/web/review-server.js');

const path = 'src/notify.ts';
const before = `import { send } from './transport.js';

export interface Options {
  retries: number;
  timeoutMs: number;
}

export const DEFAULTS: Options = { retries: 3, timeoutMs: 5000 };

/** The channels a user can choose. */
export const CHANNELS = ['email', 'sms', 'push'] as const;

export type Channel = (typeof CHANNELS)[number];

export function isChannel(name: string): name is Channel {
  return (CHANNELS as readonly string[]).includes(name);
}

/** Sends a message to every channel the user chose. */
export async function notifyAll(channels: Channel[], text: string, options = DEFAULTS) {
  for (const channel of channels) {
    await send(channel, text, options);
  }
}

/** How a failed message is retried, in words for the settings page. */
export function describe(options: Options): string {
  const seconds = options.timeoutMs / 1000;
  const tries = options.retries + 1;
  const each = 'each waiting';
  const plural = tries === 1 ? 'try' : 'tries';
  return [tries, plural, each, seconds, 'seconds'].join(' ');
}
`;
const after = before
  .replace('retries: 3, timeoutMs: 5000', 'retries: 5, timeoutMs: 10_000')
  .replace(
    '  for (const channel of channels) {\n    await send(channel, text, options);\n  }',
    "  const results = await Promise.allSettled(channels.map((channel) => send(channel, text, options)));\n  return results.filter((result) => result.status === 'rejected').length;",
  )
  .replace("'seconds'].join(' ')", "seconds === 1 ? 'second' : 'seconds'].join(' ')");
const diff = diffLines(before, after);
if (diff.hunks.length !== 3) throw new Error(`expected 3 hunks, got ${diff.hunks.length}`);

const root = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-screenshots-')));
const server = await startReviewServer({ root, source: 'claude (pid 4242)' });
const pending = server.ask({
  tool: 'edit_file',
  path,
  kind: 'modify',
  diff,
  unifiedDiff: formatUnifiedDiff(diff, { oldPath: path, newPath: path }),
  stats: { added: diff.added, removed: diff.removed },
  texts: { before, after },
});
pending.catch(() => undefined);

try {
  for (const { width, height } of SCREENS) {
    const browser = await launchChromium({ width, height, touch: true });
    const { context } = browser;
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(server.signInLink());
      await page.waitForSelector('html[data-ready="true"]');
      await page.tap('label.pick:has(input.hunk[data-hunk="1"])');
      await page.tap('input.why[data-hunk="1"]');
      await page.keyboard.type('keep it sequential: the SMS gateway rate-limits');
      await page.evaluate(() => document.activeElement?.blur());
      await page.evaluate(() => window.scrollTo(0, 0));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 0) throw new Error(`the page overflows by ${overflow} px at ${width} px`);
      const file = join(DOCS, `review-page-${width}.png`);
      await page.screenshot({ path: file });
      console.log(`wrote ${file}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
