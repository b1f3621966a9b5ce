/**
 * The gate's after-write step, one for every writer: the history and ledger record, the audit line and the
 * after-change hooks. editgate's own commit (commit.ts) writes first and records history while the folder
 * fsync runs, then settles here (`settleCommitted`); a write someone else made (the upstream server behind
 * the proxy, a chat's shell command, an agent's own edit tool) is settled by `settleWrittenElsewhere`: the
 * file is read as it is now, compared byte for byte with what was approved, and its old bytes go into
 * history so `editgate undo` puts them back. Either way the audit line has one format (AuditLog) and the
 * after-change hooks see a WrittenChange.
 */
import { isAbsolute } from 'node:path';
import { diffLines, formatUnifiedDiff } from '../core/diff.js';
import { EditgateError } from '../core/errors.js';
import { decodeText } from '../core/text.js';
import { oldBytes } from '../workspace/commit.js';
import { type Fingerprint, isStatFingerprint, sha256 } from '../workspace/fingerprint.js';
import type { ResolvedPath } from '../workspace/guard.js';
import type { ChangeToRecord, SessionLog } from '../workspace/session-log.js';
import type { Workspace } from '../workspace/workspace.js';
import { readNow, recordWrittenElsewhere, sizeNow } from '../workspace/written-elsewhere.js';
import type { AuditedFile, AuditLog } from './audit.js';
import type { Approval } from './commit.js';
import type { Hooks, WrittenChange } from './hooks.js';
import type { Proposal } from './proposal.js';

/** The decision that let a write through, as the audit line records it. */
export type Allowed = Pick<
  Approval,
  'decision' | 'decidedBy' | 'rule' | 'grant' | 'auto' | 'reason' | 'askedBy'
>;

/**
 * Someone other than editgate wrote (or may have written) a file: which, who, the bytes before, and what was
 * approved. The gate reads what is there now itself.
 */
export interface WrittenElsewhere {
  /** The tool that wrote: the proxied server's write_file, 'bash', an agent's Edit. */
  tool: string;
  /** Who ran it, for the audit line: the proxied server's name, 'chat: bash', the agent's name. */
  writer: string;
  /** The file, absolute (or relative to the first root): resolved by the guard now, after the write. */
  path: string;
  /** The file's bytes before the write: null, it did not exist; undefined, not known (then no undo). */
  before: Buffer | null | undefined;
  /**
   * What was approved: the bytes the file was to hold (null: it was
   * to be deleted), and who let them through. Absent when nothing was
   * approved as a diff (a shell command's change to a file).
   */
  approved?: { bytes: Buffer | null; by: Allowed };
}

export interface Settled {
  /** Workspace-relative path, '/'-separated. */
  path: string;
  absolute: string;
  /** The root the file is in. */
  root: string;
  /** What the write did, from the bytes before to the bytes now. */
  kind: 'create' | 'modify' | 'delete' | 'noop';
  /**
   * The file is byte for byte what was approved; false, it is not (the audit line and `difference` say so);
   * null when nothing was approved.
   */
  matches: boolean | null;
  /** The file is not what it was before the write. */
  changed: boolean;
  /** The old content is in the undo history: `editgate undo` restores it. */
  undoable: boolean;
  /** The diff of the write itself, from before to now ('' when either is not text). */
  unifiedDiff: string;
  stats: { added: number; removed: number };
  /** When the file is not what was approved: the diff from what was approved to what is there. */
  difference?: string;
  /** What after-change hooks said, for the model. */
  hookMessage?: string;
}

export interface SettleSteps {
  workspace: Workspace;
  audit: AuditLog;
  hooks?: Hooks;
  /** The session's log of changes (workspace/session-log.ts): every settled write goes into it. */
  sessionLog?: SessionLog;
}

/**
 * The session log hears of every write settled here, editgate's own and others'. A log that cannot be
 * written never fails a change already on disk: it is said as a warning.
 */
async function logToSession(log: SessionLog | undefined, changes: ChangeToRecord[]): Promise<void> {
  if (!log) return;
  for (const change of changes) {
    try {
      await log.record(change);
    } catch (error) {
      process.emitWarning(
        `editgate session log: ${change.path} was changed but not logged for review (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
}

/** Text for a diff of bytes editgate may not be able to decode (undefined then). */
function textOf(bytes: Buffer | null): string | undefined {
  if (bytes === null) return '';
  try {
    return decodeText(bytes).text;
  } catch {
    return undefined;
  }
}

/**
 * Whether two contents of a file are the same bytes; null is "no file". The one comparison of what was
 * approved, kept or forwarded with what is on disk (settle here, the proxy before it forwards a write).
 */
export function sameBytes(a: Buffer | null | undefined, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a?.equals(b) === true;
}

export async function settleWrittenElsewhere(write: WrittenElsewhere, steps: SettleSteps): Promise<Settled> {
  const { workspace, audit } = steps;
  const resolved = await workspace.guard.resolve(write.path);
  if (isAbsolute(write.path) && resolved.absolute !== write.path)
    await refuseRedirected(write, resolved, audit);
  if (write.before === undefined && !write.approved) return settleUnknown(write, resolved, steps);
  const now = await readNow(resolved);
  const after = now?.bytes ?? null;
  const changed = !sameBytes(write.before, after);
  const undoable =
    changed &&
    (await recordWrittenElsewhere(workspace.history, workspace.ledger, {
      resolved,
      before: write.before,
      now,
      tool: write.tool,
    }));
  const kind: Settled['kind'] = !changed
    ? 'noop'
    : write.before === null
      ? 'create'
      : after === null
        ? 'delete'
        : 'modify';
  const display = resolved.relative;
  const [old, found] = [write.before === undefined ? undefined : textOf(write.before), textOf(after)];
  const real = old !== undefined && found !== undefined ? diffLines(old, found) : undefined;
  const settled: Settled = {
    path: display,
    absolute: resolved.absolute,
    root: resolved.root,
    kind,
    matches: write.approved ? sameBytes(write.approved.bytes, after) : null,
    changed,
    undoable,
    unifiedDiff: real ? formatUnifiedDiff(real, { oldPath: display, newPath: display }) : '',
    stats: real ? { added: real.added, removed: real.removed } : { added: 0, removed: 0 },
  };
  if (settled.matches === false) settled.difference = differenceFrom(write.approved!.bytes, after, display);

  const file: AuditedFile = {
    path: display,
    kind,
    stats: settled.stats,
    hashBefore: write.before ? sha256(write.before) : null,
    hashAfter: now?.fingerprint.hash ?? null,
  };
  const by = write.approved?.by;
  // The audit line and the session log are files of their own: written at once (logToSession never throws).
  await Promise.all([
    audit.recordFiles(write.tool, [file], {
      decision: by?.decision ?? 'unreviewed',
      decidedBy: by?.decidedBy ?? 'none',
      ...decidedWith(by),
      writer: write.writer,
      ...(settled.matches === null ? {} : { asApproved: settled.matches }),
      reason:
        settled.matches === false
          ? `${write.writer} left the file other than the bytes that were approved`
          : by?.reason || undefined,
    }),
    changed && kind !== 'noop'
      ? logToSession(steps.sessionLog, [
          {
            tool: write.tool,
            writer: write.writer,
            path: display,
            absolute: resolved.absolute,
            root: resolved.root,
            kind,
            beforeBytes: write.before,
            afterHash: now?.fingerprint.hash ?? null,
          },
        ])
      : undefined,
  ]);
  if (changed) {
    const said = await runAfterChange(steps.hooks, [
      {
        tool: write.tool,
        path: display,
        absolutePath: resolved.absolute,
        kind: kind === 'noop' ? 'modify' : kind,
        stats: settled.stats,
        unifiedDiff: settled.unifiedDiff,
      },
    ]);
    if (said) settled.hookMessage = said;
  }
  return settled;
}

/**
 * The path now leads to another file inside the root (the writer put a link in its place): what is there is
 * not the file that was written, so nothing is recorded for it (its history would undo the wrong file).
 * Audited, then refused.
 */
async function refuseRedirected(
  write: WrittenElsewhere,
  resolved: ResolvedPath,
  audit: AuditLog,
): Promise<never> {
  const error = new EditgateError(
    'OUTSIDE_ROOT',
    `${resolved.relative} is not where ${write.tool} wrote: the path now leads there through a link, so nothing was recorded for undo. Look at what ${write.writer} did to the file before using it.`,
    { path: write.path, reason: 'changed' },
  );
  await audit.recordFiles(
    write.tool,
    [
      {
        path: write.path,
        kind: 'modify',
        hashBefore: write.before ? sha256(write.before) : null,
        hashAfter: null,
      },
    ],
    {
      decision: write.approved?.by.decision ?? 'unreviewed',
      decidedBy: write.approved?.by.decidedBy ?? 'none',
      writer: write.writer,
      code: error.code,
      reason: error.message,
    },
  );
  throw error;
}

/**
 * A write whose old bytes are not known (a file too large to have been kept before a command): the file is
 * not read (it may be huge), nothing goes into history; the audit line and the hooks still hear of it.
 */
async function settleUnknown(
  write: WrittenElsewhere,
  resolved: ResolvedPath,
  steps: SettleSteps,
): Promise<Settled> {
  const size = sizeNow(resolved);
  steps.workspace.ledger.forget(resolved.absolute);
  const settled: Settled = {
    path: resolved.relative,
    absolute: resolved.absolute,
    root: resolved.root,
    kind: size === null ? 'delete' : 'modify',
    matches: null,
    changed: true,
    undoable: false,
    unifiedDiff: '',
    stats: { added: 0, removed: 0 },
  };
  await steps.audit.recordFiles(
    write.tool,
    [{ path: settled.path, kind: settled.kind, hashBefore: null, hashAfter: null }],
    {
      decision: 'unreviewed',
      decidedBy: 'none',
      writer: write.writer,
      reason: 'its bytes before the write were not kept (too large), so it cannot be undone',
    },
  );
  await logToSession(steps.sessionLog, [
    {
      tool: write.tool,
      writer: write.writer,
      path: settled.path,
      absolute: settled.absolute,
      root: settled.root,
      kind: settled.kind === 'delete' ? 'delete' : 'modify',
    },
  ]);
  const said = await runAfterChange(steps.hooks, [
    {
      tool: write.tool,
      path: settled.path,
      absolutePath: settled.absolute,
      kind: settled.kind === 'delete' ? 'delete' : 'modify',
      stats: settled.stats,
      unifiedDiff: '',
    },
  ]);
  if (said) settled.hookMessage = said;
  return settled;
}

/** The diff from the approved bytes to what the file holds, or a sentence when that is not text. */
function differenceFrom(approved: Buffer | null, after: Buffer | null, display: string): string {
  if (after === null) return `${display} does not exist after the write.`;
  if (approved === null)
    return `${display} still exists (${after.length} bytes); the write approved was its deletion.`;
  const [shown, found] = [textOf(approved), textOf(after)];
  if (shown === undefined || found === undefined) {
    return `${display} holds ${after.length} bytes that differ from the ${approved.length} approved (not text editgate can show as a diff).`;
  }
  return formatUnifiedDiff(diffLines(shown, found), {
    oldPath: `${display} (as approved)`,
    newPath: `${display} (as written)`,
  });
}

/**
 * editgate's own commit, settled: the workspace has written the proposal and recorded it in history and the
 * ledger (while the folder fsync ran); here the audit line and the after-change hooks, for every file.
 */
export async function settleCommitted(
  proposal: Proposal,
  approval: Approval | undefined,
  written: (Fingerprint | null)[],
  steps: Omit<SettleSteps, 'workspace'>,
): Promise<string | undefined> {
  // The audit line and the session log are files of their own: written at once (logToSession never throws).
  await Promise.all([
    steps.audit.record(proposal, {
      decision: approval?.decision ?? 'once',
      decidedBy: approval?.decidedBy ?? 'user',
      ...decidedWith(approval),
      ...(approval?.reason ? { reason: approval.reason } : {}),
      written,
    }),
    logToSession(
      steps.sessionLog,
      proposal.files.flatMap((file, i): ChangeToRecord[] => {
        if (file.kind === 'noop') return [];
        const { base, resolved } = file.change;
        const after = written[i];
        return [
          {
            tool: proposal.tool,
            path: file.path,
            absolute: file.change.path,
            root: resolved.root,
            kind: file.kind,
            // A streamed huge file's bytes are not held: its hashes only, when they are content hashes.
            ...(base.exists ? beforeOf(base) : { beforeBytes: null }),
            afterHash:
              file.kind === 'delete' ? null : after && !isStatFingerprint(after) ? after.hash : undefined,
          },
        ];
      }),
    ),
  ]);
  return runAfterChange(
    steps.hooks,
    proposal.files.map((file) => ({
      tool: proposal.tool,
      path: file.path,
      absolutePath: file.change.path,
      kind: file.kind === 'noop' ? 'modify' : file.kind,
      stats: file.stats,
      unifiedDiff: file.unifiedDiff,
    })),
  );
}

/** What the session log can know of a file's bytes before a commit: the bytes, or their hash, or nothing. */
function beforeOf(
  base: Proposal['files'][number]['change']['base'],
): Pick<ChangeToRecord, 'beforeBytes' | 'beforeHash'> {
  const bytes = oldBytes(base);
  if (bytes) return { beforeBytes: bytes };
  const fingerprint = base.fingerprint;
  return fingerprint && !isStatFingerprint(fingerprint) ? { beforeHash: fingerprint.hash } : {};
}

/**
 * The after-change hooks for written changes, in order: what they said, joined (undefined when nothing). A
 * failing hook does not undo a write: its failure is what it said.
 */
export async function runAfterChange(
  hooks: Hooks | undefined,
  changes: WrittenChange[],
): Promise<string | undefined> {
  const afterChange = hooks?.afterChange;
  if (!afterChange) return undefined;
  const said: string[] = [];
  for (const change of changes) {
    try {
      const message = await afterChange(change);
      if (typeof message === 'string' && message.trim()) said.push(message.trim());
    } catch (error) {
      // The change is written; a failing observer must not turn that into a reported failure.
      said.push(`after-change hook failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return said.length > 0 ? said.join('\n') : undefined;
}

/**
 * What an approval names beside who decided (the rule, the grant, the auto-approver, what insisted on a
 * person), for the record.
 */
export function decidedWith(
  approval: Pick<Approval, 'rule' | 'grant' | 'auto' | 'askedBy' | 'answeredFrom'> | undefined,
): Pick<Approval, 'rule' | 'grant' | 'auto' | 'askedBy' | 'answeredFrom'> {
  if (!approval) return {};
  return {
    ...(approval.rule ? { rule: approval.rule } : {}),
    ...(approval.grant ? { grant: approval.grant } : {}),
    ...(approval.auto ? { auto: approval.auto } : {}),
    ...(approval.askedBy && approval.askedBy.length > 0 ? { askedBy: approval.askedBy } : {}),
    ...(approval.answeredFrom ? { answeredFrom: approval.answeredFrom } : {}),
  };
}
