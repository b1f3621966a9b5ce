import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/gate/approval.js';
import { REPO } from '../built-cli.js';
import { type Browser, launchBrowser, watchedPages } from './browser.js';
import { fileChange, HUNKS_1_AND_3, NUMBERED, reviewWorkspace, THREE_HUNKS } from './review-fixture.js';
import { TYPED_ACROSS_MS, typedAcrossTheChange, typist } from './typing.js';

// Part of a change on the review page, in a real browser (#30): a checkbox per hunk and per file, a reason
// per hunk left out, the keys, and what reaches the files and the model.

const SCREENSHOTS = join(REPO, 'tmp', 'screenshots');

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(() => browser?.close());

const watched = watchedPages(() => browser);
const { open } = watched;
afterEach(() => watched.closeAll());

async function threeHunks() {
  const review = await reviewWorkspace({ 'a.txt': NUMBERED });
  const change = await review.propose('write_file', { file_path: 'a.txt', content: THREE_HUNKS });
  return { ...review, change };
}

describe('hunk by hunk on the review page', () => {
  it('hunk 2 unchecked with a reason: hunks 1 and 3 are written byte for byte, and the model reads the reason', async () => {
    const { ws, server, change } = await threeHunks();
    const page = await open(server.url);
    expect(await page.locator('label.pick:has(input.hunk)').allTextContents()).toEqual([
      ' hunk 1 of 3',
      ' hunk 2 of 3',
      ' hunk 3 of 3',
    ]);
    expect(await page.locator('#selection').isVisible()).toBe(false);
    await page.click('label.pick:has(input.hunk[data-hunk="1"])');
    const why = page.locator('input.why[data-hunk="1"]');
    expect(await why.isVisible()).toBe(true);
    await why.fill('line 10 is quoted in the docs');
    expect(await page.textContent('#selection')).toBe(
      '2 of 3 hunks checked: Allow writes only those; the agent is told which were left out and why.',
    );
    expect(await page.textContent('button[data-decision="once"]')).toContain('Apply the checked hunks');
    expect(await page.locator('tbody.hunk.left-out').count()).toBe(1);
    // The whole file's checkbox shows that part of it is written.
    expect(await page.$eval('input.file', (box) => (box as HTMLInputElement).indeterminate)).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'web-review-hunks.png') });

    await page.click('button[data-decision="once"]');
    await expect
      .poll(() => page.textContent('#status'))
      .toBe(
        'Answered in the browser: allowed in part: a.txt: hunks 1 and 3 written, hunk 2 not (line 10 is quoted in the docs).',
      );
    const result = await change.result;
    expect(result.ok, result.message).toBe(true);
    expect((await ws.bytes('a.txt')).equals(Buffer.from(HUNKS_1_AND_3))).toBe(true);
    expect(result.message).toContain(
      "a.txt hunk 2 of 3 (line 10 as it is now): the user's reason: line 10 is quoted in the docs",
    );
    // Nothing more to choose once answered, here or on the change's page opened again.
    expect(await page.locator('input.hunk:not(:disabled)').count()).toBe(0);
    const again = await open(`${server.origin}/?change=${change.id}`);
    expect(await again.locator('input.hunk').count()).toBe(3);
    expect(await again.locator('input.hunk:not(:disabled)').count()).toBe(0);
  });

  it('by keys: ] and [ move between hunks, x leaves one out, Tab to its reason, Enter back, y applies', async () => {
    const { ws, server, change } = await threeHunks();
    const page = await open(server.url);
    await new Promise((resolve) => setTimeout(resolve, 600)); // a pause: the next key is an answer
    for (const key of [']', ']', ']', '[', 'x']) await page.keyboard.press(key);
    expect(
      await page.$$eval('input.hunk', (boxes) => boxes.map((box) => (box as HTMLInputElement).checked)),
    ).toEqual([true, false, true]);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('why');
    // Typed into the reason, the page's keys are text (y, n, x do nothing there).
    await page.keyboard.type('not yet: x and y need a test');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('hunk');
    expect(server.queue.get(change.id)!.status).toBe('pending');
    await page.keyboard.press('y');
    await expect.poll(() => page.textContent('#status')).toContain('Answered');
    const result = await change.result;
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text('a.txt')).toBe(HUNKS_1_AND_3);
    expect(result.message).toContain("the user's reason: not yet: x and y need a test");
  });

  it("the file's checkbox leaves out every hunk, even those on pages not loaded yet; one checked back is all that is written", async () => {
    // 700 hunks: the first page of the diff shows fewer than half of them.
    const lines = Array.from({ length: 7000 }, (_, i) => `line ${i}`);
    const changed = lines.map((line, i) => (i % 10 === 0 ? `${line} changed` : line));
    const { ws, server, propose } = await reviewWorkspace({ 'big.txt': `${lines.join('\n')}\n` });
    const change = await propose('write_file', { file_path: 'big.txt', content: `${changed.join('\n')}\n` });
    const page = await open(server.url);
    expect(await page.getAttribute('section.file', 'data-hunks')).toBe('700');
    const loaded = await page.locator('input.hunk').count();
    expect(loaded).toBeLessThan(700);
    await page.click('input.file');
    expect(await page.locator('input.hunk:checked').count()).toBe(0);
    expect(await page.textContent('#selection')).toContain('No hunk is checked: Allow writes nothing');
    // The next page, loaded now, shows its hunks left out too.
    await page.$eval('button.page', (button) => (button as HTMLButtonElement).click());
    await expect.poll(() => page.locator('input.hunk').count()).toBeGreaterThan(loaded);
    expect(await page.locator('input.hunk:checked').count()).toBe(0);
    await page.click('label.pick:has(input.hunk[data-hunk="0"])');
    expect(await page.textContent('#selection')).toContain('1 of 700 hunks checked');
    await page.click('button[data-decision="once"]');
    const result = await change.result;
    expect(result.ok, result.message).toBe(true);
    const expected = lines.map((line, i) => (i === 0 ? `${line} changed` : line));
    expect(await ws.text('big.txt')).toBe(`${expected.join('\n')}\n`);
  });

  it('a change taken whole (it deletes a file) offers no checkboxes and says why', async () => {
    const { server } = await reviewWorkspace();
    const why =
      'this change deletes old.txt, whose text may move into another of its files: its files are accepted or rejected together, whole';
    const files = [
      fileChange('a.txt', NUMBERED, THREE_HUNKS, 'modify'),
      fileChange('old.txt', 'gone\n', '', 'delete'),
    ].map((file) => ({ ...file, wholeOnly: why }));
    const request: ApprovalRequest = { tool: 'apply_patch', ...files[0]!, files };
    const decision = server.ask(request);
    const page = await open(server.url);
    expect(await page.locator('input.hunk, input.file').count()).toBe(0);
    expect(await page.locator('p.whole').allTextContents()).toEqual([
      `No hunks to choose here: ${why}.`,
      `No hunks to choose here: ${why}.`,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await page.keyboard.press('x'); // nothing to toggle
    await page.keyboard.press('y');
    expect(await decision).toBe('once');
  });

  it('keys typed as the change appears do not leave hunks out', { timeout: TYPED_ACROSS_MS }, async () => {
    // Typing full of the page's keys (x, [ and ]), at typing speed, begun before the change appears and
    // going on after it is on screen.
    const SENTENCE = 'fix x box; extra x ]]x[x mixes ';
    const KEY_MS = 90;
    const { page, change, review } = await typedAcrossTheChange('x[]', async () => {
      const review = await reviewWorkspace({ 'a.txt': NUMBERED });
      const page = await open(review.server.url);
      const person = await typist(page);
      // The sentence at least once, and a dozen keys more after the change is on screen (an x is never
      // further apart than that in it).
      const typing = person.typeUntilShown(SENTENCE, KEY_MS, 'input.hunk', 12);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const change = await review.propose('write_file', { file_path: 'a.txt', content: THREE_HUNKS });
      await typing;
      await page.waitForSelector('html[data-ready="true"]');
      return { person, page, change, review };
    });
    expect(await page.locator('input.hunk:checked').count()).toBe(3);
    expect(await page.textContent('#typing')).toContain('pause, then press the key you mean');
    // A pause, then one key: that is an answer.
    await new Promise((resolve) => setTimeout(resolve, 800));
    await page.keyboard.press('y');
    expect((await change.result).ok).toBe(true);
    expect(await review.ws.text('a.txt')).toBe(THREE_HUNKS);
  });
});
