/**
 * Edit before approve: the person answered with their own version of the new text. The change written is
 * then theirs: the same base (so the commit still refuses a file that changed since), their text with the
 * file's line ending, the diff computed again, and the diff from the proposed text to theirs, which the
 * model is told so it does not undo the correction on its next turn.
 */
import { randomUUID } from 'node:crypto';
import { diffLines, formatUnifiedDiff } from '../core/diff.js';
import { adoptLineEnding } from '../core/lines.js';
import type { Proposal } from './proposal.js';

export type Revision = { proposal: Proposal; unifiedDiff: string } | { refused: string };

export function reviseProposal(proposal: Proposal, edited: Record<string, string>): Revision {
  const paths = Object.keys(edited);
  const foreign = paths.filter((path) => path !== proposal.path);
  if (foreign.length > 0) {
    return {
      refused: `the approval named a version of ${foreign.join(', ')}, which this change does not touch; nothing was written`,
    };
  }
  if (!Object.hasOwn(edited, proposal.path)) {
    return { refused: `the approval gave no text for ${proposal.path}; nothing was written` };
  }
  if (proposal.streamed) {
    return {
      refused: `${proposal.path} is too large to hold in memory, so its change cannot be edited before approval; nothing was written`,
    };
  }
  if (proposal.kind === 'delete') {
    return {
      refused: `${proposal.path} is being deleted: there is no new text to edit; nothing was written`,
    };
  }
  const { base, path } = proposal;
  // The person's text (a browser gives "\n") takes the file's line ending, as new_string and content do.
  const after = adoptLineEnding(edited[path]!, base.codec.eol);
  const kind = !base.exists ? 'create' : after === base.text ? 'noop' : 'modify';
  const diff = diffLines(base.text, after);
  const revised: Proposal = {
    ...proposal,
    id: randomUUID(),
    kind,
    after,
    diff,
    unifiedDiff: diff.identical
      ? ''
      : formatUnifiedDiff(diff, { oldPath: kind === 'create' ? '/dev/null' : path, newPath: path }),
    stats: { added: diff.added, removed: diff.removed },
  };
  // Counts and match tiers described the proposed edit, not the person's text.
  delete revised.replacements;
  delete revised.tiers;
  const change = diffLines(proposal.after, after);
  return { proposal: revised, unifiedDiff: formatUnifiedDiff(change, { oldPath: path, newPath: path }) };
}
