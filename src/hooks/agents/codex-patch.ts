/**
 * The bytes Codex's apply_patch leaves in a file (Codex 0.171.0, codex-rs/apply-patch): the file's lines
 * (split on "\n", a final empty one dropped), each hunk placed at the FIRST place its old lines occur at or
 * after the previous hunk (below its @@ line when it has one; at the end with *** End of File), with a
 * second try without a last empty line, then the lines written back with a final "\n" always. OpenCode's
 * apply_patch (1.18.33, offered to GPT models instead of edit and write) is a port of it: the same reading
 * where its lines match exactly, which is all editgate lets through (opencode-patch.ts refuses the framing
 * the two read differently).
 *
 * editgate places a hunk only where its lines occur exactly once (core/patch-apply.ts). The hook lets a
 * patch through only when both readings give the same bytes; when they differ (context that occurs twice,
 * text that the agent would find only by ignoring spaces or typography, a file whose line ends it may
 * rewrite) it refuses and says why, rather than show a diff that may not be what the agent writes.
 */
import { isAbsolute, resolve } from 'node:path';
import { EditgateError } from '../../core/errors.js';
import { type PatchHunk, type PatchOperation, parsePatch } from '../../core/patch.js';
import { applyHunks } from '../../core/patch-apply.js';
import type { CallKey, HookEvent, ProposedFile, RevisedFile } from '../adapter.js';

/** Whose apply_patch: the name its messages give ("Codex", "OpenCode"). */
export type PatchAgent = 'Codex' | 'OpenCode';

function refusal(message: string, path: string): EditgateError {
  return new EditgateError('INVALID_INPUT', message, { path });
}

/**
 * Where `pattern` first occurs in `lines` at or after `start`, exactly. With `eof` ("*** End of File"),
 * Codex looks at the end only, whatever `start`; OpenCode looks at the end when that is at or after
 * `start`, then at or after `start` as without it.
 */
function firstExact(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
  agent: PatchAgent,
): number {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return -1;
  const matches = (at: number) => pattern.every((line, offset) => lines[at + offset] === line);
  const end = lines.length - pattern.length;
  if (eof && agent === 'Codex') return matches(end) ? end : -1;
  if (eof && end >= start && matches(end)) return end;
  for (let at = start; at <= end; at++) if (matches(at)) return at;
  return -1;
}

/** The agent's reading of a file's hunks, or the reason editgate will not say what it writes. */
export function codexUpdate(
  path: string,
  current: Buffer,
  hunks: readonly PatchHunk[],
  agent: PatchAgent = 'Codex',
): Buffer {
  const text = current.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(current))
    throw refusal(
      `${path} is not UTF-8 text; ${agent}'s apply_patch would refuse it. Nothing was written.`,
      path,
    );
  if (text.includes('\r'))
    throw refusal(
      `${path} has CR line ends; editgate cannot be sure which line ends ${agent}'s apply_patch writes back, so it refuses the patch. Nothing was written.`,
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
        `${which} has ${hunk.anchors.length} "@@" lines in a row; ${agent}'s apply_patch reads one per hunk and would refuse it. Nothing was written. Give one "@@" line per hunk.`,
        path,
      );
    const anchor = hunk.anchors[0];
    if (anchor !== undefined) {
      const found = firstExact(lines, [anchor], next, false, agent);
      if (found === -1)
        throw refusal(
          `${which}: its @@ line "${anchor}" is not a line of the file exactly as written (editgate does not guess how ${agent} would match it otherwise). Nothing was written. Read the file and send the line exactly.`,
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
    let at = firstExact(lines, old, next, hunk.endOfFile, agent);
    let [pattern, insert] = [old, added];
    if (at === -1 && old.at(-1) === '') {
      pattern = old.slice(0, -1);
      insert = added.at(-1) === '' ? added.slice(0, -1) : added;
      at = firstExact(lines, pattern, next, hunk.endOfFile, agent);
    }
    if (at === -1)
      throw refusal(
        `${which}: its context and removed lines are not in the file exactly as written (editgate does not guess how ${agent} would match them otherwise). Nothing was written. Read the file and send the lines exactly.`,
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
 * The bytes the agent writes, when editgate's own reading (each hunk at exactly one place) gives the same; a
 * refusal saying how they differ otherwise.
 */
export function agreedUpdate(
  path: string,
  current: Buffer | null,
  hunks: readonly PatchHunk[],
  agent: PatchAgent = 'Codex',
): Buffer {
  if (current === null)
    throw refusal(
      `${path} does not exist, so ${agent}'s apply_patch cannot update it. Nothing was written.`,
      path,
    );
  const codex = codexUpdate(path, current, hunks, agent);
  let ours: string;
  try {
    ours = applyHunks(current.toString('utf8'), hunks, { path, matching: 'exact' }).text;
  } catch (error) {
    if (!(error instanceof EditgateError)) throw error;
    throw refusal(
      `editgate refuses this patch: ${agent} would apply it at the first place its lines occur, but editgate finds no single place for it (${error.message.replace(/ Nothing was changed\..*$/s, '')}). Nothing was written. Give each hunk enough context to occur once in the file.`,
      path,
    );
  }
  if (!Buffer.from(ours, 'utf8').equals(codex))
    throw refusal(
      `editgate refuses this patch: ${agent}'s apply_patch and editgate read it differently for ${path} (${agent} ends the file with a line break, or places a hunk elsewhere). Nothing was written. Give each hunk enough context to occur once, and end the file with a line break.`,
      path,
    );
  return codex;
}

/** The files a patch writes, each with the agent's bytes (agreed with editgate's reading), or a refusal. */
export function patchFiles(
  patch: string,
  cwd: string,
  agent: PatchAgent,
): ProposedFile[] | { refuse: string } {
  let operations: PatchOperation[];
  try {
    operations = parsePatch(patch);
  } catch (error) {
    if (error instanceof EditgateError) return { refuse: error.message };
    throw error;
  }
  const at = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));
  const files: ProposedFile[] = [];
  for (const operation of operations) {
    const path = at(operation.path);
    if (operation.type === 'add') {
      const content = Buffer.from(operation.content, 'utf8');
      files.push({ path, expected: () => content });
    } else if (operation.type === 'delete') {
      files.push({ path, delete: true });
    } else if (operation.moveTo !== undefined) {
      // The agent writes the patched text to the new path (replacing a file there) and removes the old
      // one: one change set of a deletion and a write, the write's bytes from the deleted file's.
      const to = at(operation.moveTo);
      if (to === path)
        return {
          refuse: `editgate refuses this patch: it moves ${operation.path} onto its own path, and editgate cannot be sure what ${agent}'s apply_patch leaves there (it writes the new path, then removes the old one). Nothing was written. Leave out the "*** Move to:" line.`,
        };
      const { hunks } = operation;
      files.push(
        { path, delete: true },
        { path: to, movedFrom: path, moved: (source) => agreedUpdate(operation.path, source, hunks, agent) },
      );
    } else {
      const { hunks } = operation;
      files.push({ path, expected: (current) => agreedUpdate(operation.path, current, hunks, agent) });
    }
  }
  return files;
}

/** A patch's lines for a whole text ("+" or "-" before each line). */
function linesOf(prefix: string, content: string): string[] {
  const lines = content.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => `${prefix}${line}`);
}

function deletesOrMoves(patch: string): boolean {
  try {
    return parsePatch(patch).some(
      (operation) => operation.type === 'delete' || (operation.type === 'update' && operation.moveTo),
    );
  } catch {
    return false;
  }
}

/**
 * The person's version as the patch the agent runs instead: each file replaced whole (its old lines removed,
 * the new ones added, at the end of the file), which apply_patch places at exactly one place; or why a patch
 * cannot say it.
 */
export function patchOfApproved(
  patch: unknown,
  files: readonly RevisedFile[],
  agent: PatchAgent,
): string | { refuse: string } {
  // A file the patch deletes or moves away has no text of the person's to write back as an update.
  if (typeof patch === 'string' && deletesOrMoves(patch))
    return { refuse: 'the patch deletes or moves a file, which a patch of your text cannot say' };
  const parts = ['*** Begin Patch'];
  for (const file of files) {
    if (!file.approved.endsWith('\n') && file.approved !== '')
      return {
        refuse: `${agent}'s apply_patch always ends a file with a line break, and your version of ${file.path} has none`,
      };
    if (file.before === '') parts.push(`*** Add File: ${file.path}`, ...linesOf('+', file.approved));
    else
      parts.push(
        `*** Update File: ${file.path}`,
        '@@',
        ...linesOf('-', file.before),
        ...linesOf('+', file.approved),
        '*** End of File',
      );
  }
  parts.push('*** End Patch', '');
  return parts.join('\n');
}

/**
 * An apply_patch call's event as the runner reads it: before the tool, the files it writes (or the refusal);
 * after it, the paths to settle (none when the patch was refused: nothing of it ran).
 */
export function patchEvent(
  phase: 'pre' | 'post',
  call: { cwd: string; tool: string; key: CallKey; input: Record<string, unknown> },
  files: ProposedFile[] | { refuse: string },
): HookEvent {
  const { cwd, tool, key, input } = call;
  if (phase === 'post') {
    const paths = 'refuse' in files ? [] : files.map((file) => file.path);
    return { phase: 'post', cwd, read: { kind: 'settle', tool, key, paths } };
  }
  if ('refuse' in files) return { phase: 'pre', cwd, read: { kind: 'refuse', reason: files.refuse } };
  return { phase: 'pre', cwd, read: { kind: 'write', tool, key, input, files } };
}
