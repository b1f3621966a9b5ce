/**
 * Strict unified diffs: parse one file's hunks and apply them to a text, refusing anything that does not
 * fit exactly (no fuzz, no offsets). Used where a server shows its own preview as a diff (the filesystem
 * server's edit_file dryRun) and for tools that take a patch: the text editgate shows a person is then
 * exactly the server's preview applied to the file as it is, or nothing is shown at all.
 *
 * Lines split at "\n" only (the terminator is "\n" or, for a last line, none: `\ No newline at end of
 * file`); a "\r" stays part of its line's text, as diff tools see it.
 */

export class PatchError extends Error {
  override readonly name = 'PatchError';
}

interface PatchLine {
  op: ' ' | '-' | '+';
  text: string;
  /** The line ends with "\n" (false: a last line without one). */
  eol: boolean;
}

export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: PatchLine[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of a one-file unified diff; header lines before the first hunk (Index, ---, +++) are skipped. */
export function parseUnifiedPatch(patch: string): PatchHunk[] {
  const rows = patch.split('\n');
  if (rows.at(-1) === '') rows.pop();
  const hunks: PatchHunk[] = [];
  let i = 0;
  while (i < rows.length && !rows[i]!.startsWith('@@')) {
    if (
      hunks.length === 0 &&
      /^(Index: |={3,}|--- |\+\+\+ |diff |new file|deleted file|index )/.test(rows[i]!)
    ) {
      i++;
      continue;
    }
    throw new PatchError(
      `line ${i + 1} of the diff is neither a header nor a hunk: ${rows[i]!.slice(0, 80)}`,
    );
  }
  while (i < rows.length) {
    const header = HUNK_HEADER.exec(rows[i]!);
    if (!header) {
      if (/^(--- |\+\+\+ |diff |Index: )/.test(rows[i]!)) {
        throw new PatchError('the diff changes more than one file');
      }
      throw new PatchError(`line ${i + 1} of the diff is not a hunk header: ${rows[i]!.slice(0, 80)}`);
    }
    const hunk: PatchHunk = {
      oldStart: Number(header[1]),
      oldLines: header[2] === undefined ? 1 : Number(header[2]),
      newStart: Number(header[3]),
      newLines: header[4] === undefined ? 1 : Number(header[4]),
      lines: [],
    };
    i++;
    let oldSeen = 0;
    let newSeen = 0;
    while (oldSeen < hunk.oldLines || newSeen < hunk.newLines) {
      const row = rows[i];
      if (row === undefined) throw new PatchError('the diff ends inside a hunk');
      const op = row === '' ? ' ' : row[0];
      if (op !== ' ' && op !== '-' && op !== '+') {
        throw new PatchError(`line ${i + 1} of the diff is not part of its hunk: ${row.slice(0, 80)}`);
      }
      hunk.lines.push({ op, text: row.slice(1), eol: true });
      if (op !== '+') oldSeen++;
      if (op !== '-') newSeen++;
      i++;
      if (rows[i]?.startsWith('\\')) {
        hunk.lines.at(-1)!.eol = false;
        i++;
      }
    }
    if (oldSeen !== hunk.oldLines || newSeen !== hunk.newLines) {
      throw new PatchError('a hunk has more lines than its header says');
    }
    hunks.push(hunk);
  }
  return hunks;
}

interface TextLine {
  text: string;
  eol: boolean;
}

function splitText(text: string): TextLine[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const last = parts.pop()!;
  const lines = parts.map((part) => ({ text: part, eol: true }));
  if (last !== '') lines.push({ text: last, eol: false });
  return lines;
}

/** `text` with the hunks applied; PatchError when a hunk's old lines are not exactly where it says. */
export function applyUnifiedPatch(text: string, hunks: readonly PatchHunk[]): string {
  const old = splitText(text);
  const out: TextLine[] = [];
  let cursor = 0;
  for (const [index, hunk] of hunks.entries()) {
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    if (start < cursor || start > old.length) {
      throw new PatchError(
        `hunk ${index + 1} starts at line ${hunk.oldStart}, which the text does not allow`,
      );
    }
    out.push(...old.slice(cursor, start));
    let at = start;
    for (const line of hunk.lines) {
      if (line.op !== '+') {
        const current = old[at];
        if (!current || current.text !== line.text || current.eol !== line.eol) {
          throw new PatchError(
            `hunk ${index + 1} does not match the text at line ${at + 1}: the file is not what the diff was made from`,
          );
        }
        at++;
      }
      if (line.op !== '-') out.push({ text: line.text, eol: line.eol });
    }
    cursor = at;
  }
  out.push(...old.slice(cursor));
  return out.map((line) => (line.eol ? `${line.text}\n` : line.text)).join('');
}
