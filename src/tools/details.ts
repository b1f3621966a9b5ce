/**
 * What each tool's success carries for programs (`ToolSuccess.details`), typed. The tools build them
 * (read-page.ts for read_file, messages.ts `changeDetails` for every change tool), and the registry
 * (index.ts) pairs each name with a tool of those details, so front ends that read a success (the MCP
 * server's log line, the chat's tool line) read it through `readDetails` and `changeDetailsOf`, never by
 * poking at an untyped record. On the wire the details stay an open object: a field added later is no break.
 */
import type { Finding } from '../core/findings.js';
import type { MatchTier } from '../core/match.js';
import type { Approval } from '../gate/gate.js';
import type { PolicyRule } from '../gate/policy.js';
import type { ProposalKind } from '../gate/proposal.js';
import type { ToolSuccess } from './result.js';

/** read_file's answer. */
export type ReadDetails = {
  /** Relative to the workspace root. */
  path: string;
  /** Lines in the file. */
  lines: number;
  /** This read and the earlier ones together have covered every line of this version. */
  complete: boolean;
  /** The page shown (absent for an empty file). */
  firstLine?: number;
  lastLine?: number;
  encoding?: string;
  /** A huge file, read by streaming, and its size in bytes. */
  streamed?: boolean;
  size?: number;
};

/** One file of a change to several files. */
export type ChangedFileDetails = { path: string; kind: ProposalKind; added: number; removed: number };

/** Every change tool's answer (written, staged in preview mode, or nothing to change). */
/** What became of one file's hunks when the person chose some of them. */
export interface HunkOutcome {
  written: number[];
  rejected: { hunk: number; reason?: string }[];
}

export type ChangeDetails = {
  tool: string;
  /** The (first) file, relative to the workspace root. */
  path: string;
  kind: ProposalKind;
  /** What happened, in one line (a change set: one line per file). */
  summary: string;
  /** A change to several files: each one. */
  files?: ChangedFileDetails[];
  /** Lines added and removed (a change set: its first file's). */
  added: number;
  removed: number;
  replacements?: number;
  tiers?: MatchTier[];
  unifiedDiff: string;
  decision?: Approval['decision'];
  decidedBy?: Approval['decidedBy'];
  rule?: PolicyRule;
  grant?: Approval['grant'];
  auto?: string;
  approvalReason?: string;
  editedByUser?: string;
  /** A change decided hunk by hunk: per file, the hunks written and those not (0-based), with the reasons. */
  hunks?: Record<string, HunkOutcome>;
  hash?: string;
  hookMessage?: string;
  changeId?: string;
  changeHash?: string;
  expiresAt?: string;
  /** The file on disk was changed by this call. */
  written: boolean;
  /** What the checks and change rules found in the change (gate/checks.ts); secrets masked. */
  findings?: Finding[];
};

/** The lines a change added and removed, over every file of it (`added`/`removed` count the first only). */
export function changedLines(details: ChangeDetails): { added: number; removed: number } {
  const files = details.files ?? [details];
  return {
    added: files.reduce((total, file) => total + file.added, 0),
    removed: files.reduce((total, file) => total + file.removed, 0),
  };
}

/** Each tool's details, by its name. */
export type ToolDetailsByName = {
  read_file: ReadDetails;
  write_file: ChangeDetails;
  edit_file: ChangeDetails;
  multi_edit: ChangeDetails;
  edit_lines: ChangeDetails;
  apply_patch: ChangeDetails;
  undo_edit: ChangeDetails;
  apply_change: ChangeDetails;
};

/** The details of a read_file success (read-page.ts builds them with this type). */
export function readDetails(result: ToolSuccess): ReadDetails {
  return result.details as ReadDetails;
}

/**
 * The details of a change tool's success (messages.ts `changeDetails` builds them with this type);
 * undefined for read_file and for a name no tool has.
 */
export function changeDetailsOf(tool: string, result: ToolSuccess): ChangeDetails | undefined {
  return tool !== 'read_file' && Object.hasOwn(CHANGE_TOOLS, tool)
    ? (result.details as ChangeDetails)
    : undefined;
}

const CHANGE_TOOLS: Record<Exclude<keyof ToolDetailsByName, 'read_file'>, true> = {
  write_file: true,
  edit_file: true,
  multi_edit: true,
  edit_lines: true,
  apply_patch: true,
  undo_edit: true,
  apply_change: true,
};
