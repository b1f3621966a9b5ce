import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/gate/approval.js';
import { firstAnswer } from '../../src/gate/first-answer.js';
import { createTerminalApprover } from '../../src/terminal/prompt.js';
import { PAGE_LINES } from '../../src/web/diff-html.js';
import { openReviewInBrowser } from '../../src/web/open-browser.js';
import { STALE_DENIAL } from '../../src/web/review-queue.js';
import { REPO } from '../built-cli.js';
import { oneFileRequest } from '../one-file-request.js';
import { fakeInput, fakeOutput } from '../terminal/streams.js';
import { readAll } from '../tools/workspace-fixture.js';
import { type Browser, launchBrowser, watchedPages } from './browser.js';
import { LINK } from './page-api.js';
import { fileChange, reviewWorkspace } from './review-fixture.js';
import { TYPED_ACROSS_MS, typedAcrossTheChange, typist } from './typing.js';

// The review page in a real browser (headless Chromium): what a person sees and does, and what reaches
// the files and the model.

/** Where the test run leaves screenshots for a person to look at (tmp/ is git-ignored). */
const SCREENSHOTS = join(REPO, 'tmp', 'screenshots');

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
  await mkdir(SCREENSHOTS, { recursive: true });
}, 60_000);
afterAll(() => browser?.close());

const watched = watchedPages(() => browser);
const { pages, open } = watched;
afterEach(() => watched.closeAll());

const APP = `import { readFile } from 'node:fs/promises';

export async function loadConfig(path: string) {
  const text = await readFile(path, 'utf8');
  return JSON.parse(text);
}

export function greet(name: string): string {
  return 'Hello, ' + name;
}
`;

describe('the review page', () => {
  it('shows the diff of a pending edit; Allow writes exactly that change', async () => {
    const { ws, server, propose } = await reviewWorkspace({ 'src/config.ts': APP });
    const change = await propose('edit_file', {
      file_path: 'src/config.ts',
      old_string: '  return JSON.parse(text);\n}',
      new_string:
        "  const config = JSON.parse(text);\n  if (typeof config !== 'object') throw new Error(path + ': not an object');\n  return config;\n}",
    });
    const page = await open(server.url);
    expect(new URL(page.url()).search).toBe(''); // the token is gone from the address bar
    await expect.poll(() => page.textContent('#live')).toBe('live');
    expect(await page.textContent('h1')).toBe('Apply this edit to src/config.ts?');
    const removed = await page.locator('tr.d td.cd').allTextContents();
    const added = await page.locator('tr.a td.cd').allTextContents();
    expect(removed).toEqual(['  return JSON.parse(text);']);
    expect(added).toEqual([
      '  const config = JSON.parse(text);',
      "  if (typeof config !== 'object') throw new Error(path + ': not an object');",
      '  return config;',
    ]);
    // Syntax colours and changed words, as in the terminal.
    expect(await page.locator('tr.a .s-keyword').first().textContent()).toBe('const');
    expect(await page.locator('tr.d .em').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'web-review.png') });
    await page.keyboard.press('s');
    await page.waitForSelector('table.diff.split');
    await page.waitForSelector('html[data-ready="true"]');
    await page.screenshot({ path: join(SCREENSHOTS, 'web-review-split.png') });

    await page.click('button[data-decision="once"]');
    await expect.poll(() => page.textContent('#status')).toBe('Answered in the browser: allowed once.');
    const result = await change.result;
    expect(result.ok).toBe(true);
    expect(await ws.text('src/config.ts')).toBe(
      APP.replace(
        '  return JSON.parse(text);\n}',
        "  const config = JSON.parse(text);\n  if (typeof config !== 'object') throw new Error(path + ': not an object');\n  return config;\n}",
      ),
    );
    expect(await page.locator('#decide').count()).toBe(0);
  });

  it('Deny with a typed reason (r, text, Enter) leaves the file byte for byte, and the reason reaches the model', async () => {
    const { ws, server, propose } = await reviewWorkspace({ 'src/config.ts': APP });
    const before = await ws.bytes('src/config.ts');
    const change = await propose('edit_file', {
      file_path: 'src/config.ts',
      old_string: "'Hello, '",
      new_string: "'Hi, '",
    });
    const page = await open(server.url);
    await page.keyboard.press('r');
    await page.keyboard.type('keep the greeting; use a template literal instead');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.textContent('#status'))
      .toBe('Answered in the browser: denied: keep the greeting; use a template literal instead.');
    const result = await change.result;
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(result.message).toContain(
      'The user denied this edit: keep the greeting; use a template literal instead',
    );
    expect((await ws.bytes('src/config.ts')).equals(before)).toBe(true);
  });

  it('Allow with a note (r, text, the allow button): the change is written and the note reaches the model', async () => {
    const { ws, server, propose } = await reviewWorkspace({ 'src/config.ts': APP });
    const change = await propose('edit_file', {
      file_path: 'src/config.ts',
      old_string: "'Hello, '",
      new_string: "'Hi, '",
    });
    const page = await open(server.url);
    await page.keyboard.press('r');
    await page.keyboard.type('fine; greet in French next time');
    await page.click('button[data-decision="send-note"]');
    await expect
      .poll(() => page.textContent('#status'))
      .toBe('Answered in the browser: allowed: fine; greet in French next time.');
    const result = await change.result;
    expect(result.ok).toBe(true);
    expect(result.message).toContain(
      'The user approved this change with a note: fine; greet in French next time',
    );
    expect(await ws.text('src/config.ts')).toBe(APP.replace("'Hello, '", "'Hi, '"));
  });

  it("edit before approve: the person's version is shown as a diff, written, and the model is told what they changed", async () => {
    const { ws, server, propose } = await reviewWorkspace({ 'src/config.ts': APP });
    const change = await propose('edit_file', {
      file_path: 'src/config.ts',
      old_string: "  return 'Hello, ' + name;",
      new_string: "  return 'Hello, ' + name + '!';",
    });
    const page = await open(server.url);
    await page.keyboard.press('e');
    const editor = page.locator('section.file .editor textarea');
    await expect
      .poll(() => editor.inputValue())
      .toBe(APP.replace("'Hello, ' + name;", "'Hello, ' + name + '!';"));
    await editor.fill(APP.replace("  return 'Hello, ' + name;", "  return 'Hi, ' + name.trim();"));
    await page.click('button.preview');
    await expect.poll(() => page.textContent('#status')).toContain('Your version');
    expect(await page.locator('tr.a td.cd').allTextContents()).toEqual(["  return 'Hi, ' + name.trim();"]);
    await page.locator('body').press('y');
    await expect
      .poll(() => page.textContent('#status'))
      .toBe('Answered in the browser: allowed with your own version of the new text.');
    const result = await change.result;
    expect(result.ok).toBe(true);
    expect(await ws.text('src/config.ts')).toBe(
      APP.replace("  return 'Hello, ' + name;", "  return 'Hi, ' + name.trim();"),
    );
    expect(result.message).toContain('The user edited your change before approving it');
    expect(result.message).toContain("-  return 'Hello, ' + name + '!';\n+  return 'Hi, ' + name.trim();");
  });

  it('a change set of three files: every file with its diff, j/k between them, one answer for all', async () => {
    const { server } = await reviewWorkspace();
    const files = [
      fileChange('src/config.ts', APP, APP.replace("'Hello, ' + name", "'Hello, ' + name.trim()")),
      fileChange('src/config.test.ts', '', "import { greet } from './config';\n\ngreet('you');\n", 'create'),
      fileChange('src/legacy.ts', 'export const old = true;\n', '', 'delete'),
    ];
    const request: ApprovalRequest = { tool: 'apply_patch', ...files[0]!, files };
    const decision = server.ask(request);
    const page = await open(server.url);
    expect(await page.textContent('h1')).toBe('Apply this change to 3 files?');
    expect(await page.locator('nav.files li').allTextContents()).toEqual([
      'src/config.ts modified +1 -1',
      'src/config.test.ts created +3 -0',
      'src/legacy.ts deleted +0 -1',
    ]);
    expect(await page.locator('section.file').count()).toBe(3);
    expect(await page.locator('#f1 tr.a td.cd').allTextContents()).toEqual([
      "import { greet } from './config';",
      '',
      "greet('you');",
    ]);
    expect(await page.locator('#f2 tr.d td.cd').allTextContents()).toEqual(['export const old = true;']);
    const current = () => page.getAttribute('section.file.current', 'id');
    expect(await current()).toBe('f0');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await current()).toBe('f2');
    await page.keyboard.press('j');
    expect(await current()).toBe('f2');
    await page.keyboard.press('k');
    expect(await current()).toBe('f1');
    await page.screenshot({ path: join(SCREENSHOTS, 'web-review-change-set.png'), fullPage: true });
    await page.keyboard.press('y');
    expect(await decision).toBe('once');
  });

  it('a three-file apply_patch through the gate: one question on the page, y writes all three', async () => {
    const { ws, server, tools, propose } = await reviewWorkspace({
      'src/config.ts': APP,
      'src/legacy.ts': 'export const old = true;\n',
    });
    await readAll(tools, 'src/config.ts');
    await readAll(tools, 'src/legacy.ts');
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/config.ts',
      '@@ export function greet(name: string): string {',
      "-  return 'Hello, ' + name;",
      "+  return 'Hello, ' + name.trim();",
      '*** Add File: src/config.test.ts',
      "+import { greet } from './config';",
      '+',
      "+greet('you');",
      '*** Delete File: src/legacy.ts',
      '*** End Patch',
    ].join('\n');
    const change = await propose('apply_patch', { patch });
    const page = await open(server.url);
    expect(await page.textContent('h1')).toBe('Apply this change to 3 files?');
    expect(await page.locator('section.file').count()).toBe(3);
    expect(await page.locator('nav.files li').allTextContents()).toEqual(
      expect.arrayContaining([
        'src/config.ts modified +1 -1',
        'src/config.test.ts created +3 -0',
        'src/legacy.ts deleted +0 -1',
      ]),
    );
    expect(await ws.text('src/config.ts')).toBe(APP);
    await page.keyboard.press('y');
    const result = await change.result;
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text('src/config.ts')).toBe(APP.replace("'Hello, ' + name", "'Hello, ' + name.trim()"));
    expect(await ws.text('src/config.test.ts')).toBe("import { greet } from './config';\n\ngreet('you');\n");
    expect(existsSync(ws.path('src/legacy.ts'))).toBe(false);
  });

  it('a file changed on disk while the page is open: the change is marked stale and can no longer be approved', async () => {
    const { ws, server, propose } = await reviewWorkspace({ 'src/config.ts': APP });
    const change = await propose('edit_file', {
      file_path: 'src/config.ts',
      old_string: "'Hello, '",
      new_string: "'Hi, '",
    });
    const page = await open(server.url);
    expect(await page.isEnabled('button[data-decision="once"]')).toBe(true);
    await ws.put('src/config.ts', `${APP}// edited by hand\n`);
    await expect
      .poll(() => page.textContent('#status'))
      .toContain('changed on disk after this diff was made');
    for (const decision of ['once', 'file', 'all', 'send-note']) {
      expect(await page.isDisabled(`button[data-decision="${decision}"]`)).toBe(true);
    }
    await page.keyboard.press('y');
    await page.keyboard.press('A');
    expect(server.queue.get(change.id)!.status).toBe('stale');
    await page.keyboard.press('n');
    const result = await change.result;
    expect(result.message).toContain(STALE_DENIAL);
    expect(await ws.text('src/config.ts')).toBe(`${APP}// edited by hand\n`);
  });

  it('text from the model or the file is shown as text: no script runs, direction and escape characters are visible', async () => {
    const payload =
      '<script>window.pwned = 1</script></textarea><img src=x onerror="window.pwned = 2">\u202Egnp.exe\x1b[31m';
    const { server, propose } = await reviewWorkspace({ 'notes.md': '# Notes\n' });
    const change = await propose('write_file', { file_path: 'notes.md', content: `# Notes\n${payload}\n` });
    const page = await open(server.url);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    const shown = await page.locator('tr.a td.cd').textContent();
    expect(shown).toBe(
      '<script>window.pwned = 1</script></textarea><img src=x onerror="window.pwned = 2"><U+202E>gnp.exe␛[31m',
    );
    expect(await page.locator('tr.a .ctl').allTextContents()).toEqual(['<U+202E>', '␛']);
    // The editor holds the text exactly as it is, and inserting it ran nothing either.
    await page.click('button.edit');
    await expect.poll(() => page.locator('.editor textarea').inputValue()).toBe(`# Notes\n${payload}\n`);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    await page.click('button[data-decision="deny"]');
    expect((await change.result).ok).toBe(false);
  });

  it('the terminal stays live beside the page: the first answer counts, and each side shows who answered', async () => {
    const { server } = await reviewWorkspace();
    const input = fakeInput();
    const output = fakeOutput();
    const terminal = createTerminalApprover({
      input,
      output: output.output,
      color: 0,
      width: 100,
      height: 40,
    });
    const approve = firstAnswer([
      { where: 'in the terminal', ask: terminal },
      { where: 'in the browser', ask: (request, ask = {}) => server.ask(request, ask) },
    ]);
    const file = fileChange('a.txt', 'one\n', 'two\n');
    const request: ApprovalRequest = oneFileRequest({ tool: 'write_file', ...file });

    const first = approve(request);
    const page = await open(server.url);
    await output.waitFor('view the whole diff');
    input.write('y');
    expect(await first).toBe('once');
    await expect.poll(() => page.textContent('#status')).toBe('Answered in the terminal: allowed once.');
    expect(await page.locator('#decide').count()).toBe(0);

    const second = approve(oneFileRequest({ tool: 'write_file', ...file, path: 'b.txt' }));
    await output.waitFor('b.txt');
    // The same browser opens the page again without a link: it is signed in (a link works once).
    const next = await open(`${server.origin}/`);
    await next.keyboard.press('n');
    expect(await second).toBe('deny');
    await output.waitFor('✗ No (answered in the browser)');
  });

  it('closing the tab is not a decision: the change waits for an answer', async () => {
    const { server, propose, ws } = await reviewWorkspace({ 'a.txt': 'one\n' });
    const change = await propose('write_file', { file_path: 'a.txt', content: 'two\n' });
    const page = await open(server.url);
    await page.close();
    pages.splice(pages.indexOf(page), 1);
    expect(server.queue.get(change.id)!.status).toBe('pending');
    expect(await ws.text('a.txt')).toBe('one\n');
    const again = await open(`${server.origin}/`);
    await again.keyboard.press('y');
    expect((await change.result).ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('two\n');
  });

  it('huge diffs are paged; unchanged regions expand; s switches to side by side', async () => {
    const lines = Array.from({ length: 6000 }, (_, i) => `line ${i}`);
    const changed = lines.map((line, i) => (i % 2 === 0 && i < 5000 ? `${line} changed` : line));
    const { server, propose } = await reviewWorkspace({ 'big.txt': `${lines.join('\n')}\n` });
    const change = await propose('write_file', { file_path: 'big.txt', content: `${changed.join('\n')}\n` });
    const page = await open(server.url);
    const selector = 'table.diff tr.a, table.diff tr.d, table.diff tr.c';
    const rows = () => page.locator(selector).count();
    expect(await rows()).toBe(PAGE_LINES);
    expect(await page.locator('button.page').textContent()).toBe(
      `Show diff lines ${PAGE_LINES + 1}–${(2 * PAGE_LINES).toLocaleString('en')} of 7,502`,
    );
    // A click on the button (in the DOM: a click by playwright scrolls it into view first, where it loads
    // by itself, and playwright's click then lands on the next page's button).
    await page.$eval('button.page', (button) => (button as HTMLButtonElement).click());
    await expect.poll(rows).toBe(2 * PAGE_LINES);
    // Scrolling down loads each next page as it comes into view, until the whole diff is there.
    for (let shown = await rows(); shown < 7502; shown = await rows()) {
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await page.waitForFunction(
        ([css, before]) => document.querySelectorAll(css as string).length > (before as number),
        [selector, shown],
      );
    }
    expect(await rows()).toBe(7502);
    expect(await page.locator('button.page').count()).toBe(0);
    // The 998 unchanged lines after the last change: 500 shown per click.
    const gap = page.locator('button.expand');
    expect(await gap.textContent()).toBe('Show 500 of 998 unchanged lines');
    await gap.click();
    await expect.poll(rows).toBe(8002);
    expect(await page.locator('tr.c td.cd', { hasText: /^line 5501$/ }).count()).toBe(1);

    await page.keyboard.press('s');
    await page.waitForSelector('table.diff.split');
    await page.waitForSelector('html[data-ready="true"]');
    expect(await page.locator('tr.x').first().locator('td').allTextContents()).toEqual([
      '1',
      'line 0',
      '1',
      'line 0 changed',
    ]);
    await page.keyboard.press('y');
    expect((await change.result).ok).toBe(true);
    // 7,502 rows loaded page by page in a real browser: a minute on a busy shared machine.
  }, 180_000);

  it('a page waiting with nothing to review shows each new change as it arrives', async () => {
    const { server, propose } = await reviewWorkspace({ 'a.txt': 'one\n' });
    const page = await open(server.url);
    expect(await page.textContent('#change')).toContain('No changes are waiting.');
    const change = await propose('write_file', { file_path: 'a.txt', content: 'two\n' });
    await page.waitForSelector('h1');
    await page.waitForSelector('html[data-ready="true"]');
    expect(await page.textContent('h1')).toBe('Apply this edit to a.txt?');
    await page.keyboard.press('y');
    expect((await change.result).ok).toBe(true);
  });
});

describe('signing in from the browser', () => {
  it('--open: the browser gets a 0600 file, which signs it in once; the page decides with the nonce it kept', async () => {
    const { server, propose, ws } = await reviewWorkspace({ 'a.txt': 'one\n' });
    const change = await propose('write_file', { file_path: 'a.txt', content: 'two\n' });
    const stateDir = join(ws.root, '.state');
    const recorded = join(ws.root, 'opened.txt');
    const opener = join(ws.root, 'browser.sh');
    await writeFile(opener, `#!/bin/sh\nprintf '%s' "$1" > '${recorded}'\n`, { mode: 0o755 });
    expect(await openReviewInBrowser(server, stateDir, { BROWSER: opener })).toBeUndefined();
    while (!existsSync(recorded)) await new Promise((resolve) => setTimeout(resolve, 20));
    const address = await readFile(recorded, 'utf8');
    expect(address.startsWith('file://')).toBe(true);
    expect((await lstat(fileURLToPath(address))).mode & 0o777).toBe(0o600);
    const link = LINK.exec(await readFile(fileURLToPath(address), 'utf8'))![0];

    const page = await open(address);
    expect(page.url()).toBe(`${server.origin}/`);
    await page.keyboard.press('y');
    expect((await change.result).ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('two\n');

    // The link inside it worked once: opened again, it says so and signs nothing in.
    const again = await browser.context.newPage();
    pages.push(again);
    const answer = await again.goto(link);
    expect(answer?.status()).toBe(410);
    expect(await again.textContent('#message')).toContain('This sign-in link was already used');
  });
});

describe('keys typed as a change appears', () => {
  // A sentence full of the page's keys (y, a, A, n, r, j, k), typed at typing speed (a key every 90 ms).
  const SENTENCE = 'yay Anna ran a yak and any nanny may say yay ';
  const KEY_MS = 90;

  it('keys of a run that began before the change appeared do not decide it, however long it goes on; a key after a pause does', {
    timeout: TYPED_ACROSS_MS,
  }, async () => {
    const { page, change, server, ws } = await typedAcrossTheChange('yaAnrjk', async () => {
      const { server, propose, ws } = await reviewWorkspace({ 'a.txt': 'one\n' });
      const page = await open(server.url);
      expect(await page.textContent('#change')).toContain('No changes are waiting.');
      // The person types; the change arrives (and opens as a new page) in the middle of the sentence, and
      // the typing goes on for a few seconds after it is on screen.
      const person = await typist(page);
      const typing = person.typeUntilShown(SENTENCE, KEY_MS, '#decide', 12);
      await new Promise((resolve) => setTimeout(resolve, 6 * KEY_MS));
      const change = await propose('write_file', { file_path: 'a.txt', content: 'two\n' });
      await typing;
      await page.waitForSelector('html[data-ready="true"]');
      return { person, page, change, server, ws };
    });
    expect(await page.textContent('h1')).toBe('Apply this edit to a.txt?');
    expect(server.queue.get(change.id)!.status).toBe('pending');
    expect(await page.locator('#reason').isVisible()).toBe(false);
    expect(await page.textContent('#typing')).toContain('pause, then press the key you mean');
    expect(await ws.text('a.txt')).toBe('one\n');

    // A pause, then one key: that is an answer.
    await new Promise((resolve) => setTimeout(resolve, 800));
    await page.keyboard.press('n');
    const result = await change.result;
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(await ws.text('a.txt')).toBe('one\n');
  });

  it('a change already on screen: a run that begins after it appeared answers at once', async () => {
    const { server, propose, ws } = await reviewWorkspace({ 'a.txt': 'one\n' });
    const change = await propose('write_file', { file_path: 'a.txt', content: 'two\n' });
    const page = await open(server.url);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await page.keyboard.type('jky', { delay: KEY_MS });
    expect((await change.result).ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('two\n');
  });
});
