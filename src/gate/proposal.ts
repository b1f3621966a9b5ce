import type { Diff } from '../core/diff.js';
import type { MatchTier } from '../core/match.js';
import type { Snapshot } from '../workspace/files.js';
import type { ResolvedPath } from '../workspace/guard.js';
import type { PreparedWrite } from '../workspace/stream/write/prepared.js';

export type ProposalKind = 'create' | 'modify' | 'delete' | 'noop';

/** A change computed in full before anyone is asked about it. */
export interface Proposal {
  id: string;
  tool: string;
  /** Workspace-relative path, '/'-separated: what people, globs and models see. */
  path: string;
  resolved: ResolvedPath;
  kind: ProposalKind;
  /** The file as it was when the change was computed; the commit refuses if it differs then. */
  base: Snapshot;
  /** The new text (with the file's own line endings); '' for a delete. */
  after: string;
  diff: Diff;
  unifiedDiff: string;
  stats: { added: number; removed: number };
  /** How many replacements a string edit made. */
  replacements?: number;
  /** Tolerant matching tiers used, when not exact (told to the model). */
  tiers?: MatchTier[];
  /** The tool call's input, for showing the call. */
  input: Record<string, unknown>;
  /**
   * A huge file's change, computed by streaming: the new content is this prepared temp file and `after`
   * is '' (and `base.text` is '' too: the old text was never held in memory).
   */
  streamed?: PreparedWrite;
  /** Something people and the model should know about the change (e.g. its diff is shown in part). */
  note?: string;
}
