import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../built-cli.js';

/** One fenced code block of the README. */
export interface Block {
  /** The fence's language: ts, sh, json, text... */
  lang: string;
  text: string;
  /** README line of the block's first line of content (1-based), for messages that point at it. */
  line: number;
  /** The heading the block is under. */
  section: string;
}

export const README_PATH = join(REPO, 'README.md');

export function readme(): string {
  return readFileSync(README_PATH, 'utf8');
}

/** The README's fenced blocks (``` fences), in order. */
export function readmeBlocks(): Block[] {
  const lines = readme().split('\n');
  const blocks: Block[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#+\s+(.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const fence = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (end === lines.length) throw new Error(`README.md line ${i + 1}: a code block is never closed`);
    blocks.push({ lang: fence[1] ?? '', text: lines.slice(start, end).join('\n'), line: start + 1, section });
    i = end;
  }
  return blocks;
}

/** The block's lines with their README line numbers, without blank lines and whole-line comments. */
export function commandLines(block: Block): Array<{ command: string; line: number }> {
  return block.text
    .split('\n')
    .map((text, i) => ({ command: text.trim(), line: block.line + i }))
    .filter(({ command }) => command !== '' && !command.startsWith('#'));
}
