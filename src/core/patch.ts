/**
 * The patch language of Codex CLI's apply_patch and OpenAI's apply_patch tool (the "V4A" diff): parsed
 * into operations, nothing applied (patch-apply.ts applies hunks to a text; the apply_patch tool turns the
 * operations into one change set). The format, as its grammar has it:
 *
 *   *** Begin Patch
 *   *** Add File: PATH            then the new file's lines, each starting with "+"
 *   *** Delete File: PATH         nothing follows
 *   *** Update File: PATH         optionally "*** Move to: NEW PATH", then hunks:
 *   @@ [a line of the file]       a hunk; its optional text names a line above the change (a class, a
 *                                 function); several @@ lines in a row narrow it down in order
 *    context / -removed / +added  one line each (an empty line counts as an empty context line)
 *   *** End of File               after a hunk whose lines end the file
 *   *** End Patch
 *
 * The first hunk of a file may leave out its @@ line. What Codex's own parser also takes is taken: spaces
 * around the markers and file headers, blank lines between a file header and its first hunk, and the patch
 * inside a heredoc's `<<'EOF'` ... `EOF` lines. OpenAI's apply_patch_call carries one operation at a
 * time, its hunks as a headerless diff (`parseUpdateDiff`) or a new file's "+" lines (`parseCreateDiff`).
 * Whatever does not parse is refused with the line and what was expected there, before anything is read.
 */
import { EditgateError } from './errors.js';

export type PatchOperation =
  | { type: 'add'; path: string; content: string; line: number }
  | { type: 'delete'; path: string; line: number }
  | { type: 'update'; path: string; moveTo?: string; hunks: PatchHunk[]; line: number };

export interface PatchLine {
  kind: ' ' | '-' | '+';
  text: string;
}

export interface PatchHunk {
  /** The texts of the @@ lines before the hunk, in order ("@@ def run():" gives "def run():"). */
  anchors: string[];
  lines: PatchLine[];
  /** `*** End of File` follows the hunk: its old lines end the file. */
  endOfFile: boolean;
  /** 1-based line of the patch where the hunk starts (its first @@ line, or its first line). */
  line: number;
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';
const HEREDOC_START = ['<<EOF', "<<'EOF'", '<<"EOF"'];

const OPERATION_EXPECTED = `a file operation ("${ADD}PATH", "${UPDATE}PATH" or "${DELETE}PATH") or "${END}"`;
const HUNK_LINE_EXPECTED =
  'a hunk line: " " and the line (context), "-" and the line (removed), "+" and the line (added), an "@@" line, or "*** End of File"';

/** The patch's lines, "\r\n" read as "\n"; a final line break does not start another line. */
function linesOf(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** A refusal that names the line of the patch and what was expected there. */
export function patchSyntaxError(line: number, expected: string, found: string | undefined): EditgateError {
  const what = found === undefined ? 'the patch ends there' : `found ${quote(found)}`;
  return new EditgateError(
    'INVALID_INPUT',
    `The patch does not parse: line ${line}: expected ${expected}; ${what}. Nothing was changed. Fix the patch and send it again whole.`,
    { line, expected, found: found ?? null },
  );
}

function quote(line: string): string {
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
}

/** A whole patch, `*** Begin Patch` to `*** End Patch`, as its operations in order. */
export function parsePatch(text: string): PatchOperation[] {
  if (typeof text !== 'string') throw patchSyntaxError(1, `"${BEGIN}"`, undefined);
  const lines = linesOf(text);
  // Blank lines around the envelope (as a heredoc or a JSON string often leaves them) are not the patch.
  let first = 0;
  while (first < lines.length && lines[first]!.trim() === '') first++;
  let last = lines.length - 1;
  while (last >= first && lines[last]!.trim() === '') last--;
  // A heredoc's markers around it, as Codex's parser takes them (<<EOF, <<'EOF' or <<"EOF" first, a line
  // ending in EOF last): a model that wrote the shell form still meant the patch inside.
  if (
    last - first >= 3 &&
    HEREDOC_START.includes(lines[first]!.trim()) &&
    lines[last]!.trimEnd().endsWith('EOF')
  ) {
    first++;
    last--;
    while (first < last && lines[first]!.trim() === '') first++;
    while (last > first && lines[last]!.trim() === '') last--;
  }
  if (first > last || lines[first]!.trim() !== BEGIN) {
    throw patchSyntaxError(first + 1, `"${BEGIN}" as the first line`, lines[first]);
  }
  const cursor = new Cursor(lines, first + 1, last);
  const operations: PatchOperation[] = [];
  for (;;) {
    const line = cursor.peek();
    if (line === undefined) throw patchSyntaxError(last + 1, `"${END}" as the last line`, lines[last]);
    if (line.trim() === END) {
      if (cursor.index !== last)
        throw patchSyntaxError(cursor.number + 1, 'nothing after "*** End Patch"', lines[cursor.index + 1]);
      break;
    }
    operations.push(parseOperation(cursor));
  }
  if (operations.length === 0) {
    throw patchSyntaxError(
      cursor.number,
      OPERATION_EXPECTED.replace(` or "${END}"`, ''),
      lines[cursor.index],
    );
  }
  checkDistinctPaths(operations);
  return operations;
}

/** OpenAI's update_file diff: the hunks of one file, without the envelope (the first @@ may be left out). */
export function parseUpdateDiff(diff: string): PatchHunk[] {
  const lines = linesOf(typeof diff === 'string' ? diff : '');
  const cursor = new Cursor(lines, 0, lines.length - 1);
  const hunks = parseHunks(cursor, true);
  const rest = cursor.peek();
  if (rest !== undefined) throw patchSyntaxError(cursor.number, HUNK_LINE_EXPECTED, rest);
  if (hunks.length === 0) throw patchSyntaxError(1, 'at least one hunk', lines[0]);
  return hunks;
}

/** OpenAI's create_file diff: the new file's lines, each starting with "+". */
export function parseCreateDiff(diff: string): string {
  const lines = linesOf(typeof diff === 'string' ? diff : '');
  const cursor = new Cursor(lines, 0, lines.length - 1);
  const content = parseAddedLines(cursor);
  const rest = cursor.peek();
  if (rest !== undefined)
    throw patchSyntaxError(cursor.number, 'a line of the new file, starting with "+"', rest);
  return content;
}

/** Reads the lines from `index` to `last` (inclusive) of the patch. */
class Cursor {
  constructor(
    readonly lines: readonly string[],
    public index: number,
    readonly last: number,
  ) {}

  /** 1-based line number of the current line. */
  get number(): number {
    return this.index + 1;
  }

  peek(): string | undefined {
    return this.index <= this.last ? this.lines[this.index] : undefined;
  }

  /** `line` is the patch's last line and reads "*** End Patch" (spaces around it are not the patch's). */
  atEnd(line: string): boolean {
    return this.index === this.last && line.trim() === END;
  }

  next(): string | undefined {
    const line = this.peek();
    if (line !== undefined) this.index++;
    return line;
  }
}

function parseOperation(cursor: Cursor): PatchOperation {
  const number = cursor.number;
  // Spaces around a file header are not part of it (Codex's parser trims the line too).
  const header = cursor.next()!.trim();
  const add = pathAfter(header, ADD, number);
  if (add !== undefined) return { type: 'add', path: add, content: parseAddedLines(cursor), line: number };
  const remove = pathAfter(header, DELETE, number);
  if (remove !== undefined) return { type: 'delete', path: remove, line: number };
  const update = pathAfter(header, UPDATE, number);
  if (update === undefined) throw patchSyntaxError(number, OPERATION_EXPECTED, header);
  let moveTo: string | undefined;
  const moveLine = cursor.peek();
  if (moveLine?.startsWith(MOVE)) {
    moveTo = pathAfter(moveLine, MOVE, cursor.number);
    cursor.next();
  }
  // Blank lines between the header and the first hunk separate them, as Codex reads them: they are not
  // empty context lines.
  while (cursor.peek() !== undefined && cursor.peek()!.trim() === '') cursor.next();
  const hunks = parseHunks(cursor, true);
  if (hunks.length === 0 && moveTo === undefined) {
    throw patchSyntaxError(cursor.number, `a hunk ("@@" and its lines) for ${update}`, cursor.peek());
  }
  const operation: PatchOperation = { type: 'update', path: update, hunks, line: number };
  if (moveTo !== undefined) operation.moveTo = moveTo;
  return operation;
}

/** The path after a header (undefined when the line is not that header); an empty path is refused. */
function pathAfter(line: string, header: string, number: number): string | undefined {
  const bare = header.trimEnd();
  if (!line.startsWith(bare)) return undefined;
  const path = line.slice(bare.length).trim();
  if (path === '') throw patchSyntaxError(number, `a path after "${bare}"`, line);
  return path;
}

/** A new file's "+" lines, up to the next "***" line: each line without its "+", every one ending in "\n". */
function parseAddedLines(cursor: Cursor): string {
  let content = '';
  for (
    let line = cursor.peek();
    line !== undefined && !line.trimStart().startsWith('***') && !cursor.atEnd(line);
    line = cursor.peek()
  ) {
    if (!line.startsWith('+')) {
      throw patchSyntaxError(cursor.number, 'a line of the new file, starting with "+"', line);
    }
    content += `${line.slice(1)}\n`;
    cursor.next();
  }
  return content;
}

/** Hunks up to the next "***" line that is not "*** End of File". */
function parseHunks(cursor: Cursor, firstMayOmitHeader: boolean): PatchHunk[] {
  const hunks: PatchHunk[] = [];
  let anchors: string[] = [];
  let start: number | undefined;
  let current: PatchHunk | undefined;
  const close = () => {
    if (!current) return;
    if (!current.lines.some((line) => line.kind !== ' ')) {
      throw new EditgateError(
        'INVALID_INPUT',
        `The patch does not parse: the hunk at line ${current.line} has no "-" or "+" line, so it changes nothing. Nothing was changed. Leave it out, or add the lines it should remove and add.`,
        { line: current.line, expected: 'a "-" or "+" line in the hunk' },
      );
    }
    hunks.push(current);
    current = undefined;
  };
  for (let line = cursor.peek(); line !== undefined; line = cursor.peek()) {
    if (cursor.atEnd(line)) break;
    if (line.startsWith('***')) {
      if (line.trim() !== END_OF_FILE) break;
      if (!current) throw patchSyntaxError(cursor.number, 'a hunk before "*** End of File"', line);
      current.endOfFile = true;
      cursor.next();
      close();
      continue;
    }
    if (line.startsWith('@@')) {
      close();
      start ??= cursor.number;
      const text = anchorText(line);
      if (text !== '') anchors.push(text);
      cursor.next();
      // Several @@ lines in a row narrow the place down; the hunk's lines follow the last one.
      if (!cursor.peek()?.startsWith('@@')) {
        current = { anchors, lines: [], endOfFile: false, line: start };
        anchors = [];
        start = undefined;
      }
      continue;
    }
    if (!current) {
      if (!(firstMayOmitHeader && hunks.length === 0)) {
        throw patchSyntaxError(cursor.number, '"@@" to start the next hunk', line);
      }
      current = { anchors: [], lines: [], endOfFile: false, line: cursor.number };
    }
    const kind = line === '' ? ' ' : line[0];
    if (kind !== ' ' && kind !== '-' && kind !== '+')
      throw patchSyntaxError(cursor.number, HUNK_LINE_EXPECTED, line);
    current.lines.push({ kind, text: line.slice(1) });
    cursor.next();
  }
  if (current && current.lines.length === 0) {
    throw patchSyntaxError(
      cursor.number,
      `the lines of the hunk that starts at line ${current.line}`,
      cursor.peek(),
    );
  }
  close();
  return hunks;
}

/**
 * The text of an @@ line: what follows "@@". A unified diff's "@@ -12,7 +12,8 @@ text" gives "text": its
 * line numbers are never used to place a hunk.
 */
export function anchorText(line: string): string {
  const text = line.slice(2).trim();
  const unified = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$/.exec(text);
  return (unified ? unified[1]! : text).trim();
}

/** A file may appear in one operation only (as its path or as a move's destination). */
function checkDistinctPaths(operations: readonly PatchOperation[]): void {
  const seen = new Map<string, number>();
  for (const operation of operations) {
    const paths = [operation.path];
    if (operation.type === 'update' && operation.moveTo !== undefined) paths.push(operation.moveTo);
    for (const path of paths) {
      const key = path.replace(/^\.\//, '');
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        throw new EditgateError(
          'INVALID_INPUT',
          `The patch names ${path} twice (lines ${earlier} and ${operation.line}); a file may appear in one operation only. Put all of a file's hunks under one "${UPDATE}${path}". Nothing was changed.`,
          { path, lines: [earlier, operation.line] },
        );
      }
      seen.set(key, operation.line);
    }
  }
}
