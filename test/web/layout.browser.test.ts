import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../built-cli.js';
import { type Browser, launchBrowser, type Screen, watchedPages } from './browser.js';
import { reviewWorkspace } from './review-fixture.js';

// The review page at a phone's, a small phone's and a tablet's width, touched, in headless Chromium (#31):
// nothing overflows the page sideways, the decision buttons are on screen without scrolling and stay there
// while the diff scrolls, large enough for a finger; hunks are chosen by touch; after the answer the page
// says done, not disconnected. Screenshots go to tmp/screenshots (scripts/screenshots.mjs makes the ones
// in docs/).

const SCREENSHOTS = join(REPO, 'tmp', 'screenshots');

const SCREENS: Screen[] = [
  { width: 320, height: 568, touch: true },
  { width: 390, height: 844, touch: true },
  { width: 768, height: 1024, touch: true },
];

/** A file long enough to scroll, with a line far wider than a phone, in a folder with a long name. */
const PATH = 'src/components/settings/notifications/NotificationPreferencesPanel.tsx';
const BEFORE = `${Array.from({ length: 90 }, (_, i) => `  const setting${i} = readSetting('notifications.channel${i}', { fallback: defaults.channel${i}, validate: isChannelName });`).join('\n')}\n`;
const AFTER = BEFORE.replace('channel5,', 'channel5 ?? "email",')
  .replace("'notifications.channel40'", "'notifications.channels.forty'")
  .replace('setting80 =', 'settingEighty =');

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
  height: number;
}

/** Where the visible decision buttons are, and the window's size. */
function buttonBoxes(page: Page) {
  return page.evaluate(() => ({
    width: window.innerWidth,
    height: window.innerHeight,
    boxes: Array.from(document.querySelectorAll('#decide .buttons button')).map((button) => {
      const { top, bottom, left, right, height } = button.getBoundingClientRect();
      return { top, bottom, left, right, height } as Box;
    }),
  }));
}

async function expectButtonsOnScreen(page: Page, touch: boolean): Promise<void> {
  const { width, height, boxes } = await buttonBoxes(page);
  expect(boxes).toHaveLength(5);
  for (const box of boxes) {
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(height);
    expect(box.left).toBeGreaterThanOrEqual(0);
    expect(box.right).toBeLessThanOrEqual(width);
    if (touch) expect(box.height).toBeGreaterThanOrEqual(44);
  }
}

/**
 * The page's own width against the window's: nothing sideways. A phone's browser zooms out to show a page
 * wider than the screen, and then reports a wider window: the layout viewport (clientWidth) must still be
 * the screen's width.
 */
async function expectNoOverflow(page: Page, screen: Screen): Promise<void> {
  const fit = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(fit.innerWidth).toBe(screen.width);
  expect(fit.clientWidth).toBe(screen.width);
  expect(fit.scrollWidth).toBeLessThanOrEqual(fit.innerWidth);
}

describe.each(SCREENS)('the review page at $width x $height', (screen) => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser(screen);
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await watched.closeAll();
    await browser?.close();
  });
  const watched = watchedPages(() => browser);
  const narrow = screen.width <= 720;

  it('fits the width, keeps the buttons on screen, takes hunks by touch, and says done after the answer', async () => {
    const { ws, server, propose } = await reviewWorkspace({ [PATH]: BEFORE, 'b.txt': 'one\n' });
    const change = await propose('write_file', { file_path: PATH, content: AFTER });
    const page = await watched.open(server.url);
    await expect.poll(() => page.textContent('#live')).toBe('live');

    await expectNoOverflow(page, screen);
    await expectButtonsOnScreen(page, true);
    // The list of changes: a line that opens on a phone, a column on a tablet.
    expect(await page.$eval('#changes', (details) => (details as HTMLDetailsElement).open)).toBe(!narrow);
    // The diff takes the width (less the page's margins), its long lines wrapped inside it.
    const diffWidth = await page.$eval('table.diff', (table) => table.getBoundingClientRect().width);
    if (narrow) expect(diffWidth).toBeGreaterThan(screen.width - 40);
    await page.screenshot({ path: join(SCREENSHOTS, `review-page-${screen.width}.png`) });

    // Scrolled halfway down the diff, the buttons are still there.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight / 2));
    await expectButtonsOnScreen(page, true);

    // By touch: leave hunk 2 out, with a reason, and apply the rest.
    await page.tap('label.pick:has(input.hunk[data-hunk="1"])');
    expect(await page.isChecked('input.hunk[data-hunk="1"]')).toBe(false);
    await page.tap('input.why[data-hunk="1"]');
    await page.keyboard.type('keep the old key: the mobile app reads it');
    await expectNoOverflow(page, screen);
    await expectButtonsOnScreen(page, true);
    await page.screenshot({ path: join(SCREENSHOTS, `review-page-${screen.width}-hunk.png`) });
    await page.tap('button[data-decision="once"]');
    await expect
      .poll(() => page.textContent('#status'))
      .toContain('Answered in the browser: allowed in part');
    const result = await change.result;
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text(PATH)).toBe(
      BEFORE.replace('channel5,', 'channel5 ?? "email",').replace('setting80 =', 'settingEighty ='),
    );
    expect(result.message).toContain('keep the old key: the mobile app reads it');

    // The process that asked ends with its answer: the page says done, not disconnected.
    await server.close();
    await expect.poll(() => page.textContent('#live')).toBe('done');
    expect(await page.getAttribute('#live', 'class')).toBe('live done');
  });

  it('side by side: the diff scrolls sideways inside its box, never the page', async () => {
    const { server, propose } = await reviewWorkspace({ [PATH]: BEFORE });
    const change = await propose('write_file', { file_path: PATH, content: AFTER });
    const page = await watched.open(`${server.signInLink()}`);
    await page.goto(`${server.origin}/?change=${change.id}&view=split`);
    await page.waitForSelector('html[data-ready="true"]');
    await page.waitForSelector('table.diff.split');
    await expectNoOverflow(page, screen);
    const box = await page.$eval('.diff-box', (element) => ({
      scrollWidth: element.scrollWidth,
      clientWidth: element.clientWidth,
    }));
    if (narrow) expect(box.scrollWidth).toBeGreaterThan(box.clientWidth);
    await expectButtonsOnScreen(page, true);
    await page.screenshot({ path: join(SCREENSHOTS, `review-page-${screen.width}-split.png`) });
    await page.tap('button[data-decision="deny"]');
    expect((await change.result).ok).toBe(false);
  });
});

describe('the live dot', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await watched.closeAll();
    await browser?.close();
  });
  const watched = watchedPages(() => browser);

  it('says disconnected when editgate goes away before the change is answered', async () => {
    const { server, propose } = await reviewWorkspace({ 'a.txt': 'one\n' });
    const change = await propose('write_file', { file_path: 'a.txt', content: 'two\n' });
    change.result.catch(() => undefined);
    const page = await watched.open(server.url);
    await expect.poll(() => page.textContent('#live')).toBe('live');
    await server.close();
    await expect
      .poll(() => page.textContent('#live'))
      .toBe('disconnected: the editgate process may have ended');
  });
});
