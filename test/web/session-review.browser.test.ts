/**
 * A session review on the review page, in real Chromium (#30 item 4): the review's own page, not a change's.
 * An auto-approved run's hunks (a file edited in three places, a file created) are shown under the review's
 * question with keep/revert boxes per hunk and per file, a reason per reverted hunk, a note for the agent,
 * one line that says what will happen and one button that sends it; no grant buttons, and the grant keys do
 * nothing. What it sends is the change's decision (`once` with `hunks`, the note as `reason`), which the
 * review reverts through the gate, byte for byte. Bad inputs: sending with nothing unchecked, an empty
 * request, a file changed on disk, a hunk reverted elsewhere while the page was open.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/gate/approval.js';
import { applySessionReview, openSessionReview } from '../../src/gate/session-review.js';
import { startReviewServer } from '../../src/web/review-server.js';
import { readSession } from '../../src/workspace/session-log.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';
import { type Browser, launchBrowser, watchedPages } from './browser.js';
import { HUNKS_1_AND_3, NUMBERED, signIn, THREE_HUNKS } from './review-fixture.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(() => browser?.close());

const watched = watchedPages(() => browser);
afterEach(() => watched.closeAll());

/** A run that edited a.txt in three places and created b.txt, every change auto-approved, and its review. */
async function reviewedRun(id: string, created = true) {
  const ws = await makeWorkspace({ 'a.txt': NUMBERED });
  const stateDir = tempFolder('editgate-session-page-');
  const tools = ws.tools({ stateDir, sessionLog: { id, face: 'library' } });
  await readAll(tools, 'a.txt');
  expect((await tools.execute('write_file', { file_path: 'a.txt', content: THREE_HUNKS })).ok).toBe(true);
  if (created)
    expect((await tools.execute('write_file', { file_path: 'b.txt', content: 'new file\n' })).ok).toBe(true);
  const reopen = async () => openSessionReview((await readSession(stateDir, id))!);
  const review = await reopen();
  const server = await startReviewServer({ root: ws.root, source: 'editgate review --session' });
  return { ws, tools, review, reopen, server };
}

/** The page's own request to the JSON API (its nonce, its origin), as a script or a stale tab would send it. */
async function postFromPage(
  page: Page,
  body: unknown,
): Promise<{ status: number; json: { error?: string } }> {
  const id = await page.getAttribute('body', 'data-change');
  return page.evaluate(
    async ({ id, body }) => {
      const response = await fetch(`/api/changes/${encodeURIComponent(id!)}/decision`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: {
          'Content-Type': 'application/json',
          'X-Editgate-Nonce': localStorage.getItem('editgate-review-nonce') ?? '',
        },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    },
    { id, body },
  );
}

/** Whether a promise is still waiting (a decision not yet sent). */
async function stillWaiting(promise: Promise<unknown>): Promise<boolean> {
  const waiting = Symbol('waiting');
  return (
    (await Promise.race([promise, new Promise((resolve) => setTimeout(resolve, 300, waiting))])) === waiting
  );
}

const selection = (page: Page) => page.textContent('#selection');
const submitLabel = (page: Page) => page.textContent('#decide button[data-decision="submit"]');

describe('a session review on the page', () => {
  it('is its own page: keep or revert per hunk and per file, reasons, a note, one summary line and one button; it grants nothing', async () => {
    const { ws, tools, review, server } = await reviewedRun('run-page');
    try {
      const decided = server.ask(review.question!);
      const page = await watched.open(server.url);
      expect(await page.textContent('h1')).toContain('Keep the changes of session run-page (2 files)?');
      // No grant: the change page's buttons and its selection words are not here.
      for (const grant of ['once', 'file', 'all', 'deny', 'reason', 'send-note'])
        expect(await page.locator(`#decide button[data-decision="${grant}"]`).count(), grant).toBe(0);
      expect(await page.textContent('#decide')).not.toMatch(/Allow|Deny|session\)/);
      expect(await page.textContent('footer.keys')).not.toContain('allow');
      expect(await page.locator('#decide button').count()).toBe(1);
      expect(await page.locator('button.edit').count()).toBe(0);
      expect(await selection(page)).toBe('Keep everything: nothing is reverted.');
      expect(await submitLabel(page)).toBe('Keep everything');

      // A box per hunk of a.txt, and b.txt (created in the run) kept or reverted whole with its file's box.
      expect(await page.locator('label.pick:has(input.hunk)').count()).toBe(3);
      expect(await page.locator('section.file[data-path="b.txt"] input.file').count()).toBe(1);
      expect(await page.textContent('section.file[data-path="b.txt"] p.whole')).toContain(
        'Kept or reverted whole',
      );

      await page.click('label.pick:has(input.hunk[data-hunk="1"])');
      await page.locator('input.why[data-hunk="1"]').fill('keep line 10 as it was');
      expect(await selection(page)).toBe(
        'Revert 1 hunk in 1 file, keep the rest. The agent is told which and why.',
      );
      expect(await submitLabel(page)).toBe('Revert 1 hunk in 1 file');
      await page.click('section.file[data-path="b.txt"] input.file');
      expect(await selection(page)).toBe(
        'Revert 2 hunks in 2 files, keep the rest. The agent is told which and why.',
      );
      // Back and forth: the file's box keeps b.txt again.
      await page.click('section.file[data-path="b.txt"] input.file');
      expect(await selection(page)).toBe(
        'Revert 1 hunk in 1 file, keep the rest. The agent is told which and why.',
      );

      // The change page's grant keys answer nothing here, after a pause as much as before.
      await page.waitForTimeout(600);
      for (const key of ['y', 'a', 'A', 'n', 'r']) await page.keyboard.press(key);
      expect(await stillWaiting(decided)).toBe(true);
      expect(await page.locator('#decide .reason').count()).toBe(0);

      await page.fill('#note', 'and say so in the changelog');
      await page.click('#decide button[data-decision="submit"]');
      const decision = await decided;
      expect(decision).toEqual({
        allow: 'once',
        hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'keep line 10 as it was' }] } },
        reason: 'and say so in the changelog',
      } satisfies Decision);
      await page.waitForSelector('#status.s-answered');
      expect(await page.textContent('#status')).toBe(
        'Answered in the browser: a.txt: revert hunk 2 (keep line 10 as it was); keep 1, 3. Note for the agent: and say so in the changelog.',
      );
      expect(await page.locator('#decide').count()).toBe(0);

      const outcome = await applySessionReview(await tools.gate(), review, decision);
      expect(outcome.refused).toEqual([]);
      expect((await ws.bytes('a.txt')).equals(Buffer.from(HUNKS_1_AND_3))).toBe(true);
      expect(await ws.text('b.txt')).toBe('new file\n');
      expect(outcome.note).toContain("the user's reason: keep line 10 as it was");
      expect(outcome.note).toContain("The user's note: and say so in the changelog");
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a file created in the run, unchecked, is reverted whole (removed); the edited file is kept', async () => {
    const { ws, tools, review, server } = await reviewedRun('run-created');
    try {
      const decided = server.ask(review.question!);
      const page = await watched.open(server.url);
      await page.click('section.file[data-path="b.txt"] input.file');
      expect(await submitLabel(page)).toBe('Revert 1 hunk in 1 file');
      await page.click('#decide button[data-decision="submit"]');
      const outcome = await applySessionReview(await tools.gate(), review, await decided);
      expect(outcome.refused).toEqual([]);
      expect(existsSync(ws.path('b.txt'))).toBe(false);
      expect(await ws.text('a.txt')).toBe(THREE_HUNKS);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('bad inputs: sending with nothing unchecked keeps everything and says so; an empty request is refused with what to send', async () => {
    const { ws, tools, review, server } = await reviewedRun('run-nothing', false);
    try {
      const decided = server.ask(review.question!);
      decided.catch(() => undefined);
      const page = await watched.open(server.url);
      // A script's empty request (the page's own requests are checked against the wire schema).
      const script = await signIn(server);
      const empty = await script.decide(server.queue.list()[0]!.id, {});
      expect(empty.status).toBe(400);
      expect(empty.json().error).toBe(
        'The request is not understood: hash: missing: the hash of the diff you saw (the change\'s "hash", from GET /api/changes/ID).',
      );
      expect(await stillWaiting(decided)).toBe(true);

      await page.click('#decide button[data-decision="submit"]');
      const decision = await decided;
      expect(decision).toBe('once');
      await page.waitForSelector('#status.s-answered');
      expect(await page.textContent('#status')).toBe(
        'Answered in the browser: Keep everything: nothing is reverted.',
      );
      const outcome = await applySessionReview(await tools.gate(), review, decision);
      expect(outcome.keptAll).toBe(true);
      expect(outcome.note).toBeUndefined();
      expect(await ws.text('a.txt')).toBe(THREE_HUNKS);
      // A decision counts once: the same answer again is refused.
      const again = await postFromPage(page, {
        hash: await page.getAttribute('body', 'data-hash'),
        decision: 'once',
      });
      expect(again.status).toBe(409);
      expect(again.json.error).toContain('already answered');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('bad inputs: a file changed on disk, or a hunk reverted elsewhere, while the page was open: nothing is reverted from it, and it says what to do', async () => {
    for (const cause of ['edited', 'reverted elsewhere'] as const) {
      const { ws, tools, review, reopen, server } = await reviewedRun(
        `run-stale-${cause.replace(' ', '-')}`,
        false,
      );
      try {
        const decided = server.ask(review.question!);
        decided.catch(() => undefined);
        const page = await watched.open(server.url);
        await page.click('label.pick:has(input.hunk[data-hunk="1"])');
        let onDisk: string;
        if (cause === 'edited') {
          onDisk = `${THREE_HUNKS}one more line\n`;
          await writeFile(ws.path('a.txt'), onDisk);
        } else {
          // The same hunk reverted in the terminal (editgate review --session) while the page showed it.
          const elsewhere = await applySessionReview(await tools.gate(), review, {
            allow: 'once',
            hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1 }] } },
          });
          expect(elsewhere.refused).toEqual([]);
          onDisk = HUNKS_1_AND_3;
        }
        await page.waitForSelector('#status.s-stale', { timeout: 20_000 });
        expect(await page.textContent('#status')).toContain(
          'A file of this review changed on disk after it was shown',
        );
        expect(await page.textContent('#status')).toContain(
          `review the session again (editgate review --session run-stale-${cause.replace(' ', '-')})`,
        );
        expect(await page.textContent('#status')).not.toContain('deny');
        expect(await page.isDisabled('#decide button[data-decision="submit"]')).toBe(true);
        // Sent anyway (a script, or a tab that missed the news): refused, whatever it asks, and nothing written.
        const hash = await page.getAttribute('body', 'data-hash');
        for (const body of [
          { hash, decision: 'once', hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1 }] } } },
          { hash, decision: 'deny' },
        ]) {
          const sent = await postFromPage(page, body);
          expect(sent.status, JSON.stringify(body)).toBe(409);
          expect(sent.json.error).toContain('nothing can be reverted from here and nothing was written');
        }
        expect(await stillWaiting(decided)).toBe(true);
        expect(await ws.text('a.txt')).toBe(onDisk);
        if (cause === 'reverted elsewhere') {
          // Reviewed again, the reverted hunk is not offered a second time.
          const again = await reopen();
          expect(again.question!.files[0]!.diff.hunks).toHaveLength(2);
        }
      } finally {
        await server.close();
      }
    }
  }, 90_000);
});
