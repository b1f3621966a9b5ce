import { chown, lstat, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openInBrowser } from '../../src/web/open-browser.js';
import { makeWorkspace } from '../tools/workspace-fixture.js';

const LINK = 'http://127.0.0.1:1/?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** A $BROWSER that records its arguments (what every user of the machine could read) in a file. */
async function recordingBrowser(folder: string) {
  const recorded = join(folder, 'argv.txt');
  const browser = join(folder, 'browser.sh');
  await writeFile(browser, `#!/bin/sh\nprintf '%s' "$*" > '${recorded}'\n`, { mode: 0o755 });
  return { env: { BROWSER: browser }, recorded };
}

async function until(test: () => Promise<boolean>) {
  while (!(await test())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('opening a sign-in link in the browser', () => {
  it('hands the browser a 0600 page in the review folder: the link is on no command line', async () => {
    const ws = await makeWorkspace();
    const stateDir = join(ws.root, '.state');
    const browser = await recordingBrowser(ws.root);
    expect(await openInBrowser(LINK, { stateDir, ttlMs: 60_000, env: browser.env })).toBeUndefined();
    await until(() =>
      lstat(browser.recorded).then(
        () => true,
        () => false,
      ),
    );
    const argv = await readFile(browser.recorded, 'utf8');
    expect(argv).not.toContain('token');
    const page = argv.replace(/^file:\/\//, '');
    expect(page.startsWith(join(stateDir, 'review', 'open-'))).toBe(true);
    expect((await lstat(page)).mode & 0o777).toBe(0o600);
    expect((await lstat(join(stateDir, 'review'))).mode & 0o777).toBe(0o700);
    expect(await readFile(page, 'utf8')).toContain(`<meta http-equiv="refresh" content="0; url=${LINK}">`);
  });

  it('removes the pages of processes killed before they could, once their links expired', async () => {
    const ws = await makeWorkspace();
    const stateDir = join(ws.root, '.state');
    const folder = join(stateDir, 'review');
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const old = join(folder, `open-${'o'.repeat(43)}.html`);
    const recent = join(folder, `open-${'r'.repeat(43)}.html`);
    await writeFile(old, 'x', { mode: 0o600 });
    await writeFile(recent, 'x', { mode: 0o600 });
    const past = new Date(Date.now() - 120_000);
    await utimes(old, past, past);
    const browser = await recordingBrowser(ws.root);
    await openInBrowser(LINK, { stateDir, ttlMs: 60_000, env: browser.env });
    const left = await readdir(folder);
    expect(left).not.toContain(`open-${'o'.repeat(43)}.html`);
    expect(left).toContain(`open-${'r'.repeat(43)}.html`);
    expect(left).toHaveLength(2);
  });

  it('refuses, saying why, when the review folder is not yours alone: nothing is written or started', async () => {
    const ws = await makeWorkspace();
    const stateDir = join(ws.root, '.state');
    const folder = join(stateDir, 'review');
    await mkdir(folder, { recursive: true, mode: 0o700 });
    // The tests run as root: another user is a chown away.
    await chown(folder, 4242, 4242);
    const browser = await recordingBrowser(ws.root);
    const failed = await openInBrowser(LINK, { stateDir, ttlMs: 60_000, env: browser.env });
    expect(failed).toBe(
      `could not open a browser without showing the link to others (the folder ${folder} is not yours (owner uid 4242))`,
    );
    expect(await readdir(folder)).toEqual([]);
    await expect(lstat(browser.recorded)).rejects.toThrow();
  });
});
