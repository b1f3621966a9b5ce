import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../built-cli.js';
import { docPages, readme } from './blocks.js';

// The README is a door (#33): short, and every link from it and between the docs' pages leads somewhere.

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(page: string): Set<string> {
  const text = readFileSync(join(REPO, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#+\s+(.*)$/gm)].map((match) => anchorOf(match[1]!)));
}

describe('the docs’ links', () => {
  it('the README stays a door: at most 250 lines', () => {
    expect(readme().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('every relative link leads to a file that exists, and every #anchor to a heading', () => {
    const broken: string[] = [];
    for (const page of docPages()) {
      const text = readFileSync(join(REPO, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? page : join(dirname(page), path);
        if (!existsSync(join(REPO, file))) {
          broken.push(`${page}: ${target} (no ${file})`);
          continue;
        }
        if (anchor && file.endsWith('.md') && !anchorsIn(file).has(anchor)) {
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
