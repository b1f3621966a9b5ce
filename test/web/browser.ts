/**
 * A real browser for the web review tests: Debian's Chromium (/usr/bin/chromium, or EDITGATE_CHROMIUM),
 * driven by playwright-core, headless, with a fresh profile folder per launch. A missing browser is a test
 * failure that says how to install it, never a skip (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { replySchemaFor, requestSchemaFor, wireProblem } from './wire-check.js';

export const CHROMIUM = process.env.EDITGATE_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** A browser's window: a desktop's by default; a phone's is narrow, touched, and honours the viewport tag. */
export interface Screen {
  width: number;
  height: number;
  touch?: boolean;
}

export async function launchBrowser(screen: Screen = { width: 1280, height: 900 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: the web review tests need a real browser. Install it (Debian: apt-get install -y chromium) or point EDITGATE_CHROMIUM at one.`,
    );
  }
  const profile = await mkdtemp(join(tmpdir(), 'editgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: screen.width, height: screen.height },
    ...(screen.touch ? { hasTouch: true, isMobile: true } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Pages of one browser, each opened and then watched: an error of its script, and every JSON API request
 * it sends or answer it reads that the wire schemas (wire.ts) do not describe, fail the test. `closeAll`
 * (afterEach) closes them and checks what was seen.
 */
export function watchedPages(browser: () => Browser) {
  const pages: Page[] = [];
  const wireProblems: string[] = [];

  function checkWire(page: Page): void {
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      const problem = wireProblem(requestSchemaFor(path), request.postData() ?? '', `sent to ${path}`);
      if (request.method() === 'POST' && problem) wireProblems.push(problem);
    });
    page.on('response', async (response) => {
      const path = new URL(response.url()).pathname;
      if (!path.startsWith('/api/')) return;
      const text = await response.text().catch(() => undefined);
      if (text === undefined) return;
      const problem = wireProblem(replySchemaFor(path, response.status()), text, `read from ${path}`);
      if (problem) wireProblems.push(problem);
    });
  }

  return {
    pages,
    /** A new page at `url`, once its script has loaded the change and answers keys. */
    async open(url: string): Promise<Page> {
      const page = await browser().context.newPage();
      pages.push(page);
      checkWire(page);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(url);
      await page.waitForSelector('html[data-ready="true"]');
      expect(errors).toEqual([]);
      return page;
    },
    async closeAll(): Promise<void> {
      for (const page of pages.splice(0)) await page.close();
      expect(wireProblems.splice(0)).toEqual([]);
    },
  };
}
