/**
 * A session review on the review page, in real Chromium (#30 item 4): an auto-approved run's three hunks
 * shown under the review's own question; hunk 2 unchecked with a reason and applied; the review reverts it
 * through the gate, byte for byte.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applySessionReview, openSessionReview } from '../../src/gate/session-review.js';
import { startReviewServer } from '../../src/web/review-server.js';
import { readSession } from '../../src/workspace/session-log.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';
import { type Browser, launchBrowser, watchedPages } from './browser.js';
import { HUNKS_1_AND_3, NUMBERED, THREE_HUNKS } from './review-fixture.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(() => browser?.close());

const watched = watchedPages(() => browser);
afterEach(() => watched.closeAll());

describe('a session review on the page', () => {
  it('hunk 2 unchecked with a reason is reverted; 1 and 3 are kept', async () => {
    const ws = await makeWorkspace({ 'a.txt': NUMBERED });
    const stateDir = await mkdtemp(join(tmpdir(), 'editgate-session-page-'));
    const tools = ws.tools({ stateDir, sessionLog: { id: 'run-page', face: 'library' } });
    await readAll(tools, 'a.txt');
    expect((await tools.execute('write_file', { file_path: 'a.txt', content: THREE_HUNKS })).ok).toBe(true);
    const review = await openSessionReview((await readSession(stateDir, 'run-page'))!);

    const server = await startReviewServer({ root: ws.root, source: 'editgate review --session' });
    try {
      const decided = server.ask(review.question!);
      const page = await watched.open(server.url);
      expect(await page.textContent('h1')).toContain('Keep the changes of session run-page (1 file)?');
      expect(await page.locator('label.pick:has(input.hunk)').count()).toBe(3);
      await page.click('label.pick:has(input.hunk[data-hunk="1"])');
      await page.locator('input.why[data-hunk="1"]').fill('keep line 10 as it was');
      await page.click('button[data-decision="once"]');
      const decision = await decided;
      const outcome = await applySessionReview(await tools.gate(), review, decision);
      expect(outcome.refused).toEqual([]);
      expect((await ws.bytes('a.txt')).equals(Buffer.from(HUNKS_1_AND_3))).toBe(true);
      expect(outcome.note).toContain("the user's reason: keep line 10 as it was");
    } finally {
      await server.close();
    }
  }, 60_000);
});
