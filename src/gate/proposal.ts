import { randomUUID } from 'node:crypto';
import { type Diff, formatUnifiedDiff } from '../core/diff.js';
import type { Finding } from '../core/findings.js';
import type { MatchTier } from '../core/match.js';
import type { ChangeKind, FileChange } from '../workspace/workspace.js';

export type ProposalKind = ChangeKind;

/** One file of a proposal: what people and programs are shown, and the workspace's change behind it. */
export interface ProposedFile {
  /** Workspace-relative path, '/'-separated: what people, globs and models see. */
  path: string;
  kind: ProposalKind;
  diff: Diff;
  unifiedDiff: string;
  stats: { added: number; removed: number };
  /** Old and new text when both are held in memory (never for a streamed huge file). */
  texts?: { before: string; after: string };
  /** How many replacements a string edit made. */
  replacements?: number;
  /** Tolerant matching tiers used, when not exact (told to the model). */
  tiers?: MatchTier[];
  /** Something people and the model should know about the change (e.g. its diff is shown in part). */
  note?: string;
  /** What the commit writes: the file as it was, and its new content (text, a prepared file, or none). */
  change: FileChange;
}

/**
 * A change computed in full before anyone is asked about it. `files` holds every file it touches, in a
 * stable order: one for every tool today, several for a change set (issue #16), which is approved once and
 * committed all or nothing. The fields beside `files` describe the first file, as front ends read them.
 */
export interface Proposal extends Omit<ProposedFile, 'change'> {
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

/** A proposal of the changes a tool call computed (one file today). */
export function proposalOf(
  call: { tool: string; input: Record<string, unknown> },
  changes: readonly FileChange[],
): Proposal {
  const files = changes.map(proposedFile);
  const { change: _first, ...first } = files[0]!;
  return { id: randomUUID(), tool: call.tool, input: call.input, ...first, files };
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
    change,
  };
  if (change.texts) file.texts = change.texts;
  if (change.replacements !== undefined) file.replacements = change.replacements;
  if (change.tiers) file.tiers = change.tiers;
  if (change.note) file.note = change.note;
  return file;
}
