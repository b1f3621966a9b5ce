/**
 * The files of a change as the review page shows them, the hash that names exactly the diff a person saw,
 * and the person's own version of a change (edit before approve) computed the way the gate computes it.
 */

import { createHash } from 'node:crypto';
import { adoptLineEnding, summarizeEol } from '../core/lines.js';
import { yourVersion } from '../core/your-version.js';
import type { ApprovalFile, ApprovalRequest } from '../gate/approval.js';

/** One file of a change; `binary` (never set by the gate today) is shown as sizes, never as bytes. */
export interface ReviewFile extends ApprovalFile {
  binary?: boolean | { oldSize?: number; newSize?: number };
}

/** Every file of a request: its change set, or the one file it names; none for a read question. */
export function filesOf(request: ApprovalRequest): ReviewFile[] {
  if (request.files && request.files.length > 0) return request.files;
  if (request.kind === 'read') return [];
  const file: ReviewFile = {
    path: request.path,
    ...(request.root !== undefined && { root: request.root }),
    kind: request.kind,
    diff: request.diff,
    unifiedDiff: request.unifiedDiff,
    stats: request.stats,
  };
  if (request.texts) file.texts = request.texts;
  if (request.base) file.base = request.base;
  if (request.wholeOnly) file.wholeOnly = request.wholeOnly;
  const binary = (request as { binary?: ReviewFile['binary'] }).binary;
  if (binary) file.binary = binary;
  return [file];
}

/**
 * What a decision must quote: a hash of everything the person judged (the question, each file's path,
 * kind and complete diff text). Any change to what is pending (recomputed, the person's own version)
 * changes it, so a decision about another diff is refused.
 */
export function reviewHash(
  request: Pick<ApprovalRequest, 'kind' | 'path' | 'question'>,
  files: readonly ReviewFile[],
): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([request.kind, request.path, request.question ?? '']));
  for (const file of files) {
    hash.update('\0');
    hash.update(
      JSON.stringify([
        file.path,
        file.kind,
        file.binary ? 'binary' : '',
        file.stats.added,
        file.stats.removed,
      ]),
    );
    hash.update('\0');
    hash.update(file.unifiedDiff);
  }
  return hash.digest('hex');
}

/** A file whose new text a person may rewrite: its texts are held, and it is not being deleted. */
export function isEditable(file: ReviewFile): boolean {
  return file.texts !== undefined && file.kind !== 'delete' && !file.binary;
}

export class EditRefused extends Error {}

/**
 * The files with the person's versions in place of the proposed new texts, each diffed against the old
 * text as the gate will (their text takes the file's dominant line ending; a created file stays created).
 */
export function reviseFiles(
  files: readonly ReviewFile[],
  edited: Readonly<Record<string, string>>,
): ReviewFile[] {
  const known = new Set(files.map((file) => file.path));
  for (const path of Object.keys(edited)) {
    if (!known.has(path)) throw new EditRefused(`${path} is not a file of this change`);
  }
  return files.map((file) => {
    if (!Object.hasOwn(edited, file.path)) return file;
    if (!isEditable(file) || !file.texts) {
      throw new EditRefused(`the new text of ${file.path} cannot be edited here`);
    }
    const before = file.texts.before;
    const eol = file.kind === 'create' ? '\n' : summarizeEol(before).dominant;
    const after = adoptLineEnding(edited[file.path]!, eol);
    return { ...file, ...yourVersion(file, before, after) };
  });
}
