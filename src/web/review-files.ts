/**
 * The files of a change as the review page shows them, the hash that names exactly the diff a person saw,
 * and the person's own version of a change (edit before approve) computed the way the gate computes it.
 */

import { createHash } from 'node:crypto';
import { adoptLineEnding, summarizeEol } from '../core/lines.js';
import { yourVersion } from '../core/your-version.js';
import type { ApprovalFile, ApprovalQuestion } from '../gate/approval.js';

/** One file of a change; `binary` (never set by the gate today) is shown as sizes, never as bytes. */
export interface ReviewFile extends Omit<ApprovalFile, 'kind'> {
  kind: 'create' | 'modify' | 'delete';
  binary?: boolean | { oldSize?: number; newSize?: number };
}

/** Every file a request changes; none for a read question. */
export function filesOf(request: ApprovalQuestion): ReviewFile[] {
  return request.files.flatMap((file) => (file.kind === 'read' ? [] : [{ ...file, kind: file.kind }]));
}

/**
 * What a decision must quote: a hash of everything the person judged (the question, each file's path,
 * kind and complete diff text). Any change to what is pending (recomputed, the person's own version)
 * changes it, so a decision about another diff is refused.
 */
export function reviewHash(
  request: Pick<ApprovalQuestion, 'files' | 'question'>,
  files: readonly ReviewFile[],
): string {
  const hash = createHash('sha256');
  const first = request.files[0]!;
  hash.update(JSON.stringify([first.kind, first.path, request.question ?? '']));
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
