import { randomUUID } from 'node:crypto';
import { type Diff, formatUnifiedDiff } from '../core/diff.js';
import type { Finding } from '../core/findings.js';
import type { MatchTier } from '../core/match.js';
import type { ChangeKind, FileChange } from '../workspace/workspace.js';
import type { ApprovalFile } from './approval.js';
import { wholeOnlyReason } from './hunk-decision.js';

export type ProposalKind = ChangeKind;

/**
 * One file of a proposal: the file as a person judges it (ApprovalFile: what people and programs are
 * shown), with the workspace's change behind it and what only the model is told of how it was found.
 */
export interface ProposedFile extends Omit<ApprovalFile, 'kind'> {
  /** 'noop': the change leaves the file as it is (shown to a person as a modification). */
  kind: ProposalKind;
  /** How many replacements a string edit made. */
  replacements?: number;
  /** Tolerant matching tiers used, when not exact (told to the model). */
  tiers?: MatchTier[];
  /** What the commit writes: the file as it was, and its new content (text, a prepared file, or none). */
  change: FileChange;
}

/**
 * The first file's fields beside `files`, as hooks and previews read them when a proposal had one file.
 * They equal `files[0]`'s; nothing inside editgate reads them.
 */
export interface FirstProposedFileAliases {
  /** @deprecated Read `files[0].path`. */
  path: string;
  /** @deprecated Read `files[0].kind`. */
  kind: ProposalKind;
  /** @deprecated Read `files[0].diff`. */
  diff: Diff;
  /** @deprecated Read `files[0].unifiedDiff`. */
  unifiedDiff: string;
  /** @deprecated Read `files[0].stats`. */
  stats: { added: number; removed: number };
  /** @deprecated Read `files[0].texts`. */
  texts?: { before: string; after: string };
  /** @deprecated Read `files[0].replacements`. */
  replacements?: number;
  /** @deprecated Read `files[0].tiers`. */
  tiers?: MatchTier[];
  /** @deprecated Read `files[0].note`. */
  note?: string;
}

/**
 * A change computed in full before anyone is asked about it. `files` holds every file it touches, in a
 * stable order: one for every tool today, several for a change set (issue #16), which is approved once and
 * committed all or nothing.
 */
export interface Proposal extends FirstProposedFileAliases {
  id: string;
  tool: string;
  /** The tool call's input, for showing the call. */
  input: Record<string, unknown>;
  files: ProposedFile[];
  /**
   * What the checks found in the change (gate/checks.ts) and the change rules that matched it (policy.ts),
   * every file's; set by the gate's screening, before anyone is asked.
   */
  findings?: Finding[];
}

/** A proposal of the changes a tool call computed. */
export function proposalOf(
  call: { tool: string; input: Record<string, unknown> },
  changes: readonly FileChange[],
): Proposal {
  const files = changes.map(proposedFile);
  for (const file of files) {
    const whole = wholeOnlyReason(files, file);
    if (whole) file.wholeOnly = whole;
  }
  const first = files[0]!;
  const proposal: Proposal = {
    id: randomUUID(),
    tool: call.tool,
    input: call.input,
    files,
    path: first.path,
    kind: first.kind,
    diff: first.diff,
    unifiedDiff: first.unifiedDiff,
    stats: first.stats,
  };
  if (first.texts) proposal.texts = first.texts;
  if (first.replacements !== undefined) proposal.replacements = first.replacements;
  if (first.tiers) proposal.tiers = first.tiers;
  if (first.note) proposal.note = first.note;
  return proposal;
}

function proposedFile(change: FileChange): ProposedFile {
  const { diff, display } = change;
  const file: ProposedFile = {
    path: display,
    kind: change.kind,
    diff,
    unifiedDiff: diff.identical
      ? ''
      : formatUnifiedDiff(diff, {
          oldPath: change.kind === 'create' ? '/dev/null' : display,
          newPath: change.kind === 'delete' ? '/dev/null' : display,
        }),
    stats: { added: diff.added, removed: diff.removed },
    // The version the change was computed from, so a face that keeps the question open can tell when the file
    // changes meanwhile (the gate checks again under the lock before writing).
    base: { absolutePath: change.path, fingerprint: change.base.exists ? change.base.fingerprint : null },
    change,
  };
  if (change.resolved.rootName !== undefined) file.root = change.resolved.rootName;
  if (change.texts) file.texts = change.texts;
  if (change.replacements !== undefined) file.replacements = change.replacements;
  if (change.tiers) file.tiers = change.tiers;
  if (change.note) file.note = change.note;
  return file;
}
