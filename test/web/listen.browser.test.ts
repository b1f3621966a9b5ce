/**
 * A change's link opened in a real Chromium at a phone's size, over HTTPS on the listening address:
 * Chromium trusts only the made certificate's public key (--ignore-certificate-errors-spki-list, the pin a
 * person makes by checking the fingerprint), signs in through the link and allows the change once.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { parseListenAddress } from '../../src/core/listen-host.js';
import { type ReviewServer, startReviewServer } from '../../src/web/review-server.js';
import { keptTlsIdentity } from '../../src/web/tls-identity.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';
import { CHROMIUM, CHROMIUM_ARGS } from './browser.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("a change's link in a phone's browser", () => {
  it('opens the change over HTTPS and allows it once; the audit line names the browser', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\ntwo\n' });
    const stateDir = tempFolder('editgate-listen-browser-');
    const tls = await keptTlsIdentity(stateDir, '127.0.0.2');
    const server: ReviewServer = await startReviewServer({
      root: ws.root,
      source: 'the test',
      listen: { address: parseListenAddress('127.0.0.2:0'), tls },
    });
    cleanups.push(() => server.close());
    const auditLog = join(stateDir, 'audit.jsonl');
    const tools = ws.tools({
      approve: (request, context) =>
        server.ask(request, context?.answeredFrom ? { answeredFrom: context.answeredFrom } : {}),
      auditLog,
    });
    await readAll(tools, 'a.txt');
    const queued = new Promise<string>((resolve) =>
      server.queue.subscribe((event) => resolve(event.item.id)),
    );
    const result = tools.execute('edit_file', { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' });
    const link = server.changeLink(await queued);

    const spki = createHash('sha256')
      .update(new X509Certificate(tls.cert).publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64');
    const profile = await mkdtemp(join(tmpdir(), 'editgate-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spki}`],
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    cleanups.push(async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(link);
    await page.waitForSelector('button[data-decision="once"]');
    expect(new URL(page.url()).search).toBe(''); // the token is gone from the address bar
    await page.click('button[data-decision="once"]');
    const outcome = await result;
    expect(outcome.ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('one\nTWO\n');
    const line = JSON.parse((await readFile(auditLog, 'utf8')).trim());
    expect(line.answeredFrom).toMatchObject({ via: 'change link' });
    expect(line.answeredFrom.userAgent).toMatch(/Chrome/);
    // The link is spent: opened again, it says so.
    await page.goto(link);
    expect(await page.textContent('body')).toContain('already used');
  });
});
