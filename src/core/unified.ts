/**
 * A Diff as unified-diff text that `git apply` and `patch -p1` accept.
 *
 * Paths: pass plain relative paths with "/" separators ('src/x.ts'); they are written as `a/src/x.ts` and
 * `b/src/x.ts` (the form `git apply` and `patch -p1` expect), and '/dev/null' (a created or deleted file) is
 * written as is. A path with a space gets a trailing tab and one with a quote, backslash or control character
 * is C-quoted, both as git writes them.
 *
 * Lines: the patch carries every line's own terminator, so CRLF content stays CRLF. A line without a final
 * terminator is followed by `\ No newline at end of file`. git and patch split lines only at "\n", so lines
 * joined by a lone "\r" are written as the single line those tools see (changed as a whole if any part
 * changed); `diffLines` keeps such lines inside one hunk and with enough trailing context. Hunk positions
 * still count editgate lines, which in a file with lone "\r" are more than the tools count: both find the
 * hunk by its context, as with any offset. With `context: 0` use `git apply --unidiff-zero` (git otherwise
 * wants context to place a hunk; patch does not).
 *
 * An identical diff gives ''. A plain unified diff cannot express creating or deleting an empty file.
 */
import type { Diff, DiffLine, Hunk } from './diff.js';

export function formatUnifiedDiff(diff: Diff, options: { oldPath: string; newPath: string }): string {
  if (diff.hunks.length === 0) return '';
  const parts: string[] = [
    `--- ${formatPath(options.oldPath, 'a/')}\n`,
    `+++ ${formatPath(options.newPath, 'b/')}\n`,
  ];
  for (const hunk of diff.hunks) {
    if (hunk.lines.some((line) => line.eol === '\r')) formatJoinedHunk(hunk, parts);
    else formatHunk(hunk, parts);
  }
  return parts.join('');
}

function formatHunk(hunk: Hunk, parts: string[]): void {
  parts.push(header(hunk.oldStart, hunk.oldLines, hunk.newStart, hunk.newLines));
  for (const line of hunk.lines) {
    const mark = line.kind === 'context' ? ' ' : line.kind === 'add' ? '+' : '-';
    pushLine(parts, mark, line.text + line.eol);
  }
}

/**
 * A hunk with lone-"\r" lines: regroup into "\n"-terminated lines. A block ends where both sides are at such
 * a line end; a block of context only is context, any other block is its old lines removed and its new lines
 * added.
 */
function formatJoinedHunk(hunk: Hunk, parts: string[]): void {
  const body: string[] = [];
  let oldCount = 0;
  let newCount = 0;
  let block: DiffLine[] = [];
  let oldOpen = false;
  let newOpen = false;
  const flush = () => {
    if (block.length === 0) return;
    if (block.every((line) => line.kind === 'context')) {
      for (const joined of join(block)) {
        pushLine(body, ' ', joined);
        oldCount++;
        newCount++;
      }
    } else {
      for (const joined of join(block.filter((line) => line.kind !== 'add'))) {
        pushLine(body, '-', joined);
        oldCount++;
      }
      for (const joined of join(block.filter((line) => line.kind !== 'remove'))) {
        pushLine(body, '+', joined);
        newCount++;
      }
    }
    block = [];
  };
  for (const line of hunk.lines) {
    block.push(line);
    const open = line.eol === '\r';
    if (line.kind !== 'add') oldOpen = open;
    if (line.kind !== 'remove') newOpen = open;
    if (!oldOpen && !newOpen) flush();
  }
  flush();
  // A side is empty here exactly when it is empty in editgate lines, so the start numbers carry over.
  parts.push(header(hunk.oldStart, oldCount, hunk.newStart, newCount), ...body);
}

/** Concatenate lines into the "\n"-terminated lines git and patch see. */
function join(lines: DiffLine[]): string[] {
  const joined: string[] = [];
  let current = '';
  for (const line of lines) {
    current += line.text + line.eol;
    if (line.eol !== '\r') {
      joined.push(current);
      current = '';
    }
  }
  if (current !== '') joined.push(current);
  return joined;
}

function pushLine(parts: string[], mark: string, content: string): void {
  if (content.endsWith('\n')) parts.push(mark, content);
  else parts.push(mark, content, '\n\\ No newline at end of file\n');
}

function header(oldStart: number, oldLines: number, newStart: number, newLines: number): string {
  return `@@ -${range(oldStart, oldLines)} +${range(newStart, newLines)} @@\n`;
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

function formatPath(path: string, prefix: string): string {
  if (path === '/dev/null') return path;
  const name = prefix + path;
  if (/["\\\x00-\x1f\x7f]/.test(name)) return quote(name);
  return name.includes(' ') ? `${name}\t` : name;
}

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
};

/** git's C-style quoting of a path. */
function quote(name: string): string {
  let out = '"';
  for (const char of name) {
    const code = char.charCodeAt(0);
    if (ESCAPES[char] !== undefined) out += ESCAPES[char];
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, '0')}`;
    else out += char;
  }
  return `${out}"`;
}
