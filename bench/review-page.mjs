// What the review page's benches (and scripts/screenshots.mjs) share: the pending change they put on the
// page, and Debian's Chromium, headless, through playwright-core, with a fresh profile folder.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { random } from './lib.mjs';

export const CHROMIUM = process.env.EDITGATE_CHROMIUM ?? '/usr/bin/chromium';

/**
 * A headless Chromium window of `width` x `height` (touched, as a phone, with `touch`); exits the process
 * saying how to get one when there is none. `close()` removes its profile too.
 */
export async function launchChromium({ width = 1280, height = 900, touch = false } = {}) {
  if (!existsSync(CHROMIUM)) {
    console.error(
      `No Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set EDITGATE_CHROMIUM.`,
    );
    process.exit(1);
  }
  const profile = mkdtempSync(join(tmpdir(), 'editgate-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
    viewport: { width, height },
    ...(touch ? { hasTouch: true, isMobile: true } : {}),
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The pending change: TypeScript-like code, blocks of `block` changed lines between `block` unchanged ones
 * (one hunk per block, as real changes have many), `changed` lines in all. The same seed every run, so runs
 * compare.
 */
export function reviewChange(changed, block) {
  const next = random(18);
  const before = [];
  const after = [];
  for (let n = 0; n < changed / block; n++) {
    for (let i = 0; i < block; i++) {
      const name = `value${n * block + i}`;
      before.push(`  const ${name} = compute(${Math.floor(next() * 1e6)}, '${name}', options.limit);`);
      after.push(before.at(-1).replace('options.limit', 'options.maxItems ?? 10'));
    }
    for (let i = 0; i < block; i++) {
      const line = `  if (state${n}.size > ${i}) state${n}.update(${i});`;
      before.push(line);
      after.push(line);
    }
  }
  const oldText = `export function run(options: Options) {\n${before.join('\n')}\n}\n`;
  const newText = `export function run(options: Options) {\n${after.join('\n')}\n}\n`;
  return { oldText, newText };
}

/**
 * The one changed file of a pending write, as the gate puts it in an approval request: the diff from
 * `oldText` to `newText`, its unified form, its stats and both texts. Needs the built dist/.
 */
export async function reviewFile(oldText, newText, path = 'src/run.ts') {
  const { diffLines, formatUnifiedDiff } = await import('../dist/core/diff.js');
  const diff = diffLines(oldText, newText);
  return {
    path,
    kind: 'modify',
    diff,
    unifiedDiff: formatUnifiedDiff(diff, { oldPath: path, newPath: path }),
    stats: { added: diff.added, removed: diff.removed },
    texts: { before: oldText, after: newText },
  };
}
