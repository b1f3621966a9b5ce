/**
 * Edit before approve: the person answered with their own version of the new text of one or more files of
 * a change. What is written is then theirs: for each such file the workspace computes a new FileChange
 * (`workspace.edit` with their text, in the file's line ending, as new_string and content get it) from the
 * very version the proposal was computed from (a file that changed since is STALE, nothing written), and
 * the diff from the proposed text to theirs is kept for the model, so it does not undo the correction on
 * its next turn. Files they did not edit keep their proposed change.
 */
import { diffLines, formatUnifiedDiff } from '../core/diff.js';
import { adoptLineEnding } from '../core/lines.js';
import type { Fingerprint } from '../workspace/fingerprint.js';
import { appearedError, staleError } from '../workspace/fs-errors.js';
import type { FileChange, Workspace } from '../workspace/workspace.js';
import { type Proposal, type ProposedFile, proposalOf } from './proposal.js';

/** The proposal to write instead, and what the person changed (proposed -> theirs, a unified diff). */
export type Revision = { proposal: Proposal; unifiedDiff: string } | { refused: string };

/**
 * Why the person's versions cannot be used (a denial reason, nothing written), or null. A version must
 * name files of this change, at least one, each held in memory and not being deleted.
 */
export function editRefusal(proposal: Proposal, edited: Readonly<Record<string, string>>): string | null {
  const paths = Object.keys(edited);
  const known = new Set(proposal.files.map((file) => file.path));
  const foreign = paths.filter((path) => !known.has(path));
  if (foreign.length > 0) {
    return `the approval named a version of ${foreign.join(', ')}, which this change does not touch; nothing was written`;
  }
  if (paths.length === 0) {
    return `the approval gave no text for ${[...known].join(', ')}; nothing was written`;
  }
  for (const file of proposal.files) {
    if (!Object.hasOwn(edited, file.path)) continue;
    if (file.kind === 'delete') {
      return `${file.path} is being deleted: there is no new text to edit; nothing was written`;
    }
    if (!file.texts || file.change.content?.type === 'prepared') {
      return `${file.path} is too large to hold in memory, so its change cannot be edited before approval; nothing was written`;
    }
  }
  return null;
}

/**
 * The proposal with the person's versions in place of the proposed texts. Call editRefusal first. Throws
 * STALE when a file is no longer the version its change was computed from.
 */
export async function reviseProposal(
  workspace: Workspace,
  proposal: Proposal,
  edited: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): Promise<{ proposal: Proposal; unifiedDiff: string }> {
  const changes: FileChange[] = [];
  const theirChanges: string[] = [];
  for (const file of proposal.files) {
    if (!Object.hasOwn(edited, file.path)) {
      changes.push(file.change);
      continue;
    }
    const change = await workspace.edit(
      file.change.resolved,
      {
        compute: (base) => {
          assertSameVersion(file, base.exists ? base.fingerprint : null);
          // The person's text (a browser gives "\n") takes the file's line ending.
          return { text: adoptLineEnding(edited[file.path]!, base.codec.eol) };
        },
        // A file that grew huge since is no longer the version the person saw.
        tooLarge: () => staleError(file.path, 'changed'),
      },
      { requireRead: false, ...(signal ? { signal } : {}) },
    );
    changes.push(change);
    const proposed = file.texts!.after;
    const theirs = change.texts!.after;
    if (proposed !== theirs) {
      theirChanges.push(
        formatUnifiedDiff(diffLines(proposed, theirs), { oldPath: file.path, newPath: file.path }),
      );
    }
  }
  const revised = proposalOf({ tool: proposal.tool, input: proposal.input }, changes);
  return { proposal: revised, unifiedDiff: theirChanges.join('') };
}

/** STALE (or the file appeared) unless the file is the version the proposal's change was computed from. */
export function assertSameVersion(file: ProposedFile, now: Fingerprint | null): void {
  const then = file.change.base.exists ? file.change.base.fingerprint : null;
  if (then === null && now === null) return;
  if (then === null) throw appearedError(file.path);
  if (now === null) throw staleError(file.path, 'deleted');
  if (then.hash !== now.hash) throw staleError(file.path, 'changed');
}
