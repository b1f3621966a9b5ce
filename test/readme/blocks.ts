import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO } from '../built-cli.js';

/** One fenced code block of the README or a page under docs/. */
export interface Block {
  /** The page it is on, relative to the repository: README.md, CONTRIBUTING.md, docs/cli.md... */
  file: string;
  /** The fence's language: ts, sh, json, text... */
  lang: string;
  text: string;
  /** Line of the block's first line of content in its page (1-based), for messages that point at it. */
  line: number;
  /** The heading the block is under. */
  section: string;
  /** `file:line (section)`: where a failure points. */
  where: string;
}

export const README_PATH = join(REPO, 'README.md');

/** The documentation pages every code block of which is tested: the README, CONTRIBUTING and docs/. */
export function docPages(): string[] {
  const pages = ['README.md', 'CONTRIBUTING.md'];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(relative(REPO, path));
    }
  };
  walk(join(REPO, 'docs'));
  return pages.sort((a, b) => (a === 'README.md' ? -1 : b === 'README.md' ? 1 : a.localeCompare(b)));
}

export function readme(): string {
  return readFileSync(README_PATH, 'utf8');
}

/** Every documentation page's text, one after another (for checks on what the docs say anywhere). */
export function allDocs(): string {
  return docPages()
    .map((page) => readFileSync(join(REPO, page), 'utf8'))
    .join('\n');
}

/** One page's fenced blocks (``` fences), in order. */
export function pageBlocks(page: string): Block[] {
  const lines = readFileSync(join(REPO, page), 'utf8').split('\n');
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
    if (end === lines.length) throw new Error(`${page} line ${i + 1}: a code block is never closed`);
    const line = start + 1;
    blocks.push({
      file: page,
      lang: fence[1] ?? '',
      text: lines.slice(start, end).join('\n'),
      line,
      section,
      where: `${page}:${line} (${section})`,
    });
    i = end;
  }
  return blocks;
}

/** The fenced blocks of every documentation page (docPages), in order. */
export function docBlocks(): Block[] {
  return docPages().flatMap(pageBlocks);
}

/**
 * The block's commands with their page line numbers, without blank lines and whole-line comments; a line
 * ending in a backslash goes on in the next, as in the shell (the command is numbered by its first line).
 */
export function commandLines(block: Block): Array<{ command: string; line: number; where: string }> {
  const commands: Array<{ command: string; line: number; where: string }> = [];
  let pending: { command: string; line: number } | undefined;
  block.text.split('\n').forEach((text, i) => {
    const line = block.line + i;
    const part = text.trim();
    const joined = pending
      ? { command: `${pending.command} ${part}`, line: pending.line }
      : { command: part, line };
    if (part.endsWith('\\')) {
      pending = { command: joined.command.slice(0, -1).trimEnd(), line: joined.line };
      return;
    }
    pending = undefined;
    if (joined.command === '' || joined.command.startsWith('#')) return;
    commands.push({ ...joined, where: `${block.file}:${joined.line}` });
  });
  return commands;
}

/** The one block of `page` whose text contains `marker` (a transcript the tests check). */
export function docBlock(page: string, marker: string): Block {
  const found = pageBlocks(page).filter((block) => block.text.includes(marker));
  if (found.length !== 1)
    throw new Error(`${page}: ${found.length} code blocks contain ${JSON.stringify(marker)}; expected one`);
  return found[0]!;
}

/**
 * Whether a documented transcript is what the program printed: each line of the block (a line of `…`
 * stands for lines left out) must be a whole line of `output`, in the block's order. `same` makes both
 * sides comparable (a session id, a time). Returns what is wrong, or undefined, so the docs cannot drift
 * from the run a test makes.
 */
export function transcriptProblem(
  block: Block,
  output: string,
  same: (line: string) => string = (line) => line,
): string | undefined {
  const printed = output.split('\n').map((line) => same(line.trimEnd()));
  let at = 0;
  for (const [i, documented] of block.text.split('\n').entries()) {
    const line = same(documented.trimEnd());
    if (line === '…' || line === '') continue;
    const found = printed.indexOf(line, at);
    if (found === -1) {
      return `${block.file}:${block.line + i} (${block.section}) is not in the run's output, after the lines before it:\n  ${documented}\nThe run printed:\n${output}`;
    }
    at = found + 1;
  }
  return undefined;
}
