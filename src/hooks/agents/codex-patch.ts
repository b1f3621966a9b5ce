/**
 * The bytes Codex's apply_patch leaves in a file (Codex 0.171.0, codex-rs/apply-patch): the file's lines
 * (split on "\n", a final empty one dropped), each hunk placed at the FIRST place its old lines occur at or
 * after the previous hunk (below its @@ line when it has one; at the end with *** End of File), with a
 * second try without a last empty line, then the lines written back with a final "\n" always.
 *
 * editgate places a hunk only where its lines occur exactly once (core/patch-apply.ts). The hook lets a
 * patch through only when both readings give the same bytes; when they differ (context that occurs twice,
 * text that Codex would find only by ignoring spaces or typography, a file whose line ends it may rewrite)
 * it refuses and says why, rather than show a diff that may not be what Codex writes.
 */
import { EditgateError } from '../../core/errors.js';
import type { PatchHunk } from '../../core/patch.js';
import { applyHunks } from '../../core/patch-apply.js';

function refusal(message: string, path: string): EditgateError {
  return new EditgateError('INVALID_INPUT', message, { path });
}

/** Where `pattern` first occurs in `lines` at or after `start` (only at the end with `eof`), exactly. */
function firstExact(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
): number {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return -1;
  const from = eof ? lines.length - pattern.length : start;
  for (let at = from; at <= lines.length - pattern.length; at++) {
    if (pattern.every((line, offset) => lines[at + offset] === line)) return at;
  }
  return -1;
}

/** Codex's reading of a file's hunks, or the reason editgate will not say what it writes. */
export function codexUpdate(path: string, current: Buffer, hunks: readonly PatchHunk[]): Buffer {
  const text = current.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(current))
    throw refusal(
      `${path} is not UTF-8 text; Codex's apply_patch would refuse it. Nothing was written.`,
      path,
    );
  if (text.includes('\r'))
    throw refusal(
      `${path} has CR line ends; editgate cannot be sure which line ends Codex's apply_patch writes back, so it refuses the patch. Nothing was written.`,
      path,
    );
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const replacements: Array<{ at: number; remove: number; insert: string[] }> = [];
  let next = 0;
  for (const [index, hunk] of hunks.entries()) {
    const which = `hunk ${index + 1} of ${path}`;
    if (hunk.anchors.length > 1)
      throw refusal(
        `${which} has ${hunk.anchors.length} "@@" lines in a row; Codex's apply_patch reads one per hunk and would refuse it. Nothing was written. Give one "@@" line per hunk.`,
        path,
      );
    const anchor = hunk.anchors[0];
    if (anchor !== undefined) {
      const found = firstExact(lines, [anchor], next, false);
      if (found === -1)
        throw refusal(
          `${which}: its @@ line "${anchor}" is not a line of the file exactly as written (editgate does not guess how Codex would match it otherwise). Nothing was written. Read the file and send the line exactly.`,
          path,
        );
      next = found + 1;
    }
    const old = hunk.lines.filter((line) => line.kind !== '+').map((line) => line.text);
    const added = hunk.lines.filter((line) => line.kind !== '-').map((line) => line.text);
    if (old.length === 0) {
      // Only added lines: at the end (before a last empty line, as Codex puts them).
      replacements.push({
        at: lines.at(-1) === '' ? lines.length - 1 : lines.length,
        remove: 0,
        insert: added,
      });
      continue;
    }
    let at = firstExact(lines, old, next, hunk.endOfFile);
    let [pattern, insert] = [old, added];
    if (at === -1 && old.at(-1) === '') {
      pattern = old.slice(0, -1);
      insert = added.at(-1) === '' ? added.slice(0, -1) : added;
      at = firstExact(lines, pattern, next, hunk.endOfFile);
    }
    if (at === -1)
      throw refusal(
        `${which}: its context and removed lines are not in the file exactly as written (editgate does not guess how Codex would match them otherwise). Nothing was written. Read the file and send the lines exactly.`,
        path,
      );
    replacements.push({ at, remove: pattern.length, insert });
    next = at + pattern.length;
  }
  const result = [...lines];
  for (const { at, remove, insert } of [...replacements].sort((a, b) => a.at - b.at).reverse())
    result.splice(at, remove, ...insert);
  if (result.at(-1) !== '') result.push('');
  return Buffer.from(result.join('\n'), 'utf8');
}

/**
 * The bytes Codex writes, when editgate's own reading (each hunk at exactly one place) gives the same; a
 * refusal saying how they differ otherwise.
 */
export function agreedUpdate(path: string, current: Buffer | null, hunks: readonly PatchHunk[]): Buffer {
  if (current === null)
    throw refusal(
      `${path} does not exist, so Codex's apply_patch cannot update it. Nothing was written.`,
      path,
    );
  const codex = codexUpdate(path, current, hunks);
  let ours: string;
  try {
    ours = applyHunks(current.toString('utf8'), hunks, { path, matching: 'exact' }).text;
  } catch (error) {
    if (!(error instanceof EditgateError)) throw error;
    throw refusal(
      `editgate refuses this patch: Codex would apply it at the first place its lines occur, but editgate finds no single place for it (${error.message.replace(/ Nothing was changed\..*$/s, '')}). Nothing was written. Give each hunk enough context to occur once in the file.`,
      path,
    );
  }
  if (!Buffer.from(ours, 'utf8').equals(codex))
    throw refusal(
      `editgate refuses this patch: Codex's apply_patch and editgate read it differently for ${path} (Codex ends the file with a line break, or places a hunk elsewhere). Nothing was written. Give each hunk enough context to occur once, and end the file with a line break.`,
      path,
    );
  return codex;
}
