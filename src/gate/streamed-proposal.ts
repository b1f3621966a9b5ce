/**
 * Proposals for huge files (workspace/stream): the change was computed by streaming, so the proposal
 * carries the prepared temp file instead of the new text (`after` is ''), with a diff of the same type as
 * any other. Approval, hooks, policy and audit see no difference; commit renames the temp file.
 */
import { randomUUID } from 'node:crypto';
import { formatUnifiedDiff } from '../core/diff.js';
import type { ResolvedPath } from '../workspace/guard.js';
import type { StreamedChange } from '../workspace/stream/streamer.js';
import { discardPrepared } from '../workspace/stream/write/prepared.js';
import type { ChangeRequest } from './gate.js';
import type { Proposal } from './proposal.js';

export function streamedProposal(
  request: ChangeRequest,
  resolved: ResolvedPath,
  change: StreamedChange,
): Proposal {
  const proposal: Proposal = {
    id: randomUUID(),
    tool: request.tool,
    path: resolved.relative,
    resolved,
    kind: change.kind,
    base: change.base,
    after: '',
    diff: change.diff,
    unifiedDiff: formatUnifiedDiff(change.diff, { oldPath: resolved.relative, newPath: resolved.relative }),
    stats: change.stats,
    replacements: change.replacements,
    tiers: change.tiers,
    input: request.input,
  };
  if (change.prepared) proposal.streamed = change.prepared;
  if (change.note) proposal.note = change.note;
  return proposal;
}

/** A proposal that will not be committed (denied, failed): remove its prepared temp file, if any. */
export async function discardProposal(proposal: Proposal): Promise<void> {
  if (proposal.streamed) await discardPrepared(proposal.streamed);
}
