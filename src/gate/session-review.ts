/**
 * A session reviewed afterwards (issue #30): every file the session changed, from what it was before the
 * session's first change to it to what the session left (the file on disk while it still is that), shown as
 * one change set, hunk by hunk. A kept hunk stays; a reverted hunk goes back to its old text. A revert is a
 * change through the gate like any other: proposed from the file as it is now and written only while it is
 * still what the session left (STALE otherwise, for that file alone: nothing else lost), audited as the
 * person's, kept in undo history (`editgate undo` puts the hunk back) and logged in the session itself, so
 * the next review starts from what is there. The person's reasons are left in the session for the model
 * (workspace/session-log.ts's note), which each face hands over at its next turn or call.
 *
 * The decision is the gate's own Decision, answered on any face that answers a change set (the review page,
 * the terminal walk): accepting a hunk keeps it, rejecting it reverts it, with its reason; a plain yes
 * keeps everything; a denial reverts everything; an edited text is written as the person's version.
 */

import { type Diff, diffLines, formatUnifiedDiff } from '../core/diff.js';
import { applySomeHunks } from '../core/diff-hunks.js';
import { EditgateError, isEditgateError } from '../core/errors.js';
import { decodeText, type TextCodec } from '../core/text.js';
import { type Fingerprint, sha256 } from '../workspace/fingerprint.js';
import { keptBytes, type LoggedSession, takeNoteOf } from '../workspace/session-log.js';
import { readNow } from '../workspace/written-elsewhere.js';
import {
  type ApprovalFile,
  type ApprovalQuestion,
  type ApprovalRequest,
  type Decision,
  withFirstFileAliases,
} from './approval.js';
import type { Gate } from './gate.js';
import {
  checkHunkChoices,
  type FileHunkPlan,
  type FileHunks,
  rejectedHunkLines,
  reportOf,
} from './hunk-decision.js';

/** The tool name a session review's question and its reverts go by (the audit line says it). */
export const REVIEW_SESSION_TOOL = 'review_session';

/** One file of the session, as it can be reviewed. */
export interface ReviewedFile {
  path: string;
  absolute: string;
  root: string;
  /** Changes of it the session logged, and who made them. */
  changes: number;
  writers: string[];
  /** Before the session (null: it did not exist) and what the session left (null: deleted). */
  before: { text: string; codec: TextCodec } | null;
  after: { text: string; codec: TextCodec } | null;
  /** sha256 of what the session left (null: no file): a revert is written only while the file is this. */
  leftHash: string | null;
  /**
   * The file as the review read it, which is what the session left (null: no file): the review page's base,
   * so a change made to it after this is seen there as one, however soon the page gets the question.
   */
  left: Fingerprint | null;
  diff: Diff;
}

/** A file of the session that cannot be reviewed here, and why (said to the person; nothing is written). */
export interface UnreviewableFile {
  path: string;
  why: string;
}

export interface SessionReview {
  session: LoggedSession;
  files: ReviewedFile[];
  unreviewable: UnreviewableFile[];
  /** Files whose changes in the session add up to nothing now (undone or reverted since). */
  settled: number;
  /** The question every face answers (absent when there is nothing to review). */
  question?: ApprovalRequest;
}

/** Reads the session's log and the files as they are now: what the review shows. */
export async function openSessionReview(session: LoggedSession): Promise<SessionReview> {
  const byFile = new Map<string, LoggedSession['changes']>();
  for (const change of session.changes) {
    const list = byFile.get(change.absolute) ?? [];
    list.push(change);
    byFile.set(change.absolute, list);
  }
  const files: ReviewedFile[] = [];
  const unreviewable: UnreviewableFile[] = [];
  let settled = 0;
  for (const [absolute, changes] of byFile) {
    const first = changes[0]!;
    const last = changes.at(-1)!;
    const path = last.path;
    const cannot = (why: string) => unreviewable.push({ path, why });
    if (first.before === undefined || last.after === undefined) {
      cannot('its bytes were not kept (a file too large to hold in memory): review it with editgate undo');
      continue;
    }
    if (first.before === last.after) {
      settled++;
      continue;
    }
    const now = await readNow({ absolute, root: last.root }).catch(() => null);
    const nowHash = now ? sha256(now.bytes) : null;
    if (nowHash !== last.after) {
      cannot(
        nowHash === null
          ? 'it was deleted since the session changed it, so its changes cannot be reverted here'
          : 'it was changed since the session left it (by something else), so its hunks cannot be reverted here; nothing was written',
      );
      continue;
    }
    const beforeBytes = first.before === null ? null : await keptBytes(session, first.before);
    if (first.before !== null && beforeBytes === null) {
      cannot('its content before the session was not kept (too large, or removed from the state folder)');
      continue;
    }
    const before = beforeBytes === null ? null : textOf(beforeBytes);
    const after = now === null ? null : textOf(now.bytes);
    if (before === undefined || after === undefined) {
      cannot('it is not text editgate can show as a diff');
      continue;
    }
    files.push({
      path,
      absolute,
      root: last.root,
      changes: changes.length,
      writers: [...new Set(changes.map((change) => change.writer ?? change.tool))],
      before,
      after,
      leftHash: last.after,
      left: now?.fingerprint ?? null,
      diff: diffLines(before?.text ?? '', after?.text ?? ''),
    });
  }
  const review: SessionReview = { session, files, unreviewable, settled };
  if (files.length > 0) review.question = questionOf(session, files);
  return review;
}

function textOf(bytes: Buffer): { text: string; codec: TextCodec } | undefined {
  try {
    return decodeText(bytes);
  } catch {
    return undefined;
  }
}

function questionOf(session: LoggedSession, files: ReviewedFile[]): ApprovalRequest {
  const approvalFiles = files.map((file): ApprovalFile => {
    const kind = file.before === null ? 'create' : file.after === null ? 'delete' : 'modify';
    const shown: ApprovalFile = {
      path: file.path,
      kind,
      diff: file.diff,
      unifiedDiff: formatUnifiedDiff(file.diff, { oldPath: file.path, newPath: file.path }),
      stats: { added: file.diff.added, removed: file.diff.removed },
      texts: { before: file.before?.text ?? '', after: file.after?.text ?? '' },
      note: `${file.changes} change${file.changes === 1 ? '' : 's'} in the session, by ${file.writers.join(', ')}`,
      base: { absolutePath: file.absolute, fingerprint: file.left },
    };
    if (kind !== 'modify')
      shown.wholeOnly = `${file.path} was ${kind === 'create' ? 'created' : 'deleted'} in the session: it is kept or reverted whole`;
    return shown;
  });
  return withFirstFileAliases({
    tool: REVIEW_SESSION_TOOL,
    files: approvalFiles,
    question: `Keep the changes of session ${session.info.id} (${files.length} file${files.length === 1 ? '' : 's'})? A hunk left out is reverted, with your reason for the agent; deny reverts them all.`,
    input: { session: session.info.id },
  });
}

/**
 * What a review left for session `id`'s model (`noteFor`'s words), taken once, for a face that has no gate of
 * that session open (a hook at the agent's next prompt); undefined when there is none.
 */
export function takeReviewNote(stateDir: string, id: string): Promise<string | undefined> {
  return takeNoteOf(stateDir, id);
}

/** What a review did: the hunks it reverted per file, the files it could not, the note left for the model. */
export interface ReviewOutcome {
  reverted: FileHunks[];
  refused: UnreviewableFile[];
  /** The person kept everything. */
  keptAll: boolean;
  /** What the model is told (also left in the session's note); undefined when nothing is to be told. */
  note?: string;
}

/**
 * Writes what the person decided, file by file through the gate (each its own change: one file that changed
 * since is refused alone). The review's gate logs into the reviewed session, so the next review of it
 * starts from what is on disk.
 */
export async function applySessionReview(
  gate: Gate,
  review: SessionReview,
  decision: Decision,
): Promise<ReviewOutcome> {
  const question = review.question;
  if (!question) return { reverted: [], refused: [], keptAll: true };
  const plans = plansOf(question, decision);
  const edited = typeof decision === 'object' && 'edited' in decision ? decision.edited : undefined;
  const outcome: ReviewOutcome = { reverted: [], refused: [], keptAll: true };
  for (const [index, file] of review.files.entries()) {
    const plan = plans[index]!;
    const own = edited?.[file.path];
    if (plan.rejected.length === 0 && own === undefined) continue;
    outcome.keptAll = false;
    try {
      const report = await revertFile(gate, review, file, plan, own);
      if (report) outcome.reverted.push(report);
    } catch (error) {
      if (!isEditgateError(error)) throw error;
      outcome.refused.push({ path: file.path, why: error.message });
    }
  }
  const note = noteFor(outcome, decision);
  if (note) {
    outcome.note = note;
    await gate.sessionLog?.leaveNote(note);
  }
  return outcome;
}

/** The decision as a plan per file: accepted hunks are kept, rejected ones reverted. */
function plansOf(question: ApprovalRequest, decision: Decision): FileHunkPlan[] {
  const all = (keep: boolean, reason?: string): FileHunkPlan[] =>
    question.files.map((file) => {
      const hunks = [...file.diff.hunks.keys()];
      return {
        path: file.path,
        total: hunks.length,
        accepted: keep ? hunks : [],
        rejected: keep ? [] : hunks.map((hunk) => (reason ? { hunk, reason } : { hunk })),
      };
    });
  if (decision === 'deny') return all(false);
  if (typeof decision === 'object' && 'deny' in decision) return all(false, decision.deny);
  if (typeof decision === 'object' && 'hunks' in decision) {
    const checked = checkHunkChoices(question, decision.hunks);
    if ('problem' in checked)
      throw new EditgateError(
        'INVALID_INPUT',
        `${checked.problem.replace('nothing was written', 'nothing was reverted')}.`,
      );
    return checked.files;
  }
  return all(true);
}

async function revertFile(
  gate: Gate,
  review: SessionReview,
  file: ReviewedFile,
  plan: FileHunkPlan,
  own: string | undefined,
): Promise<FileHunks | undefined> {
  const accepted = new Set(plan.accepted);
  const beforeText = file.before?.text ?? '';
  const { text, placed } =
    own === undefined
      ? applySomeHunks(beforeText, file.diff, (hunk) => accepted.has(hunk))
      : { text: own, placed: [] };
  // A file the session created, with nothing of it kept, goes; one it deleted comes back whole.
  const remove = own === undefined && file.before === null && accepted.size === 0;
  const codec = file.after?.codec ?? file.before?.codec;
  const revertedHunks = plan.rejected.map((each) => each.hunk + 1).join(', ');
  const proposal = await gate.propose({
    tool: REVIEW_SESSION_TOOL,
    path: file.absolute,
    input: {
      session: review.session.info.id,
      file_path: file.path,
      ...(own === undefined
        ? { revert_hunks: plan.rejected.map((each) => each.hunk + 1) }
        : { edited: true }),
    },
    requireRead: false,
    prepare: (workspace, resolved, options) =>
      remove
        ? workspace.remove(resolved, options)
        : workspace.edit(
            resolved,
            {
              compute: () => ({ text, ...(codec ? { codec } : {}) }),
              tooLarge: () =>
                new EditgateError(
                  'STALE',
                  `${file.path} grew too large since the session left it; nothing was reverted.`,
                ),
            },
            options,
          ),
  });
  const proposed = proposal.files[0];
  // What the revert was computed from must be what the session left: otherwise someone changed it since.
  const base = proposed?.change.base;
  const baseHash = base?.exists ? (base.fingerprint?.hash ?? null) : null;
  if (!proposed || baseHash !== file.leftHash) {
    await gate.discard(proposal);
    throw new EditgateError(
      'STALE',
      `${file.path} changed since this review was shown (something else wrote it), so ${own === undefined ? `hunk${plan.rejected.length === 1 ? '' : 's'} ${revertedHunks}` : 'your version'} ${plan.rejected.length === 1 ? 'was' : 'were'} not reverted and nothing was written. Review the session again to see it as it is now.`,
      { path: file.path, reason: 'changed' },
    );
  }
  if (proposed.kind === 'noop') return undefined;
  const reasons = plan.rejected
    .filter((each) => each.reason)
    .map((each) => `hunk ${each.hunk + 1}: ${each.reason}`);
  try {
    await gate.commit(proposal, {
      decision: 'once',
      decidedBy: 'user',
      reason: `session review of ${review.session.info.id}: ${own === undefined ? `reverted hunk${plan.rejected.length === 1 ? '' : 's'} ${revertedHunks} of ${plan.total}` : "wrote the person's own version"}${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`,
    });
  } catch (error) {
    await gate.discard(proposal);
    throw error;
  }
  // The model has not seen the file as it is now: it reads it again before its next edit.
  gate.workspace.ledger.forget(file.absolute);
  return own === undefined
    ? reportOf({ path: file.path, diff: file.diff }, plan, placed)
    : { path: file.path, total: plan.total, written: [], rejected: [] };
}

/** What the model is told of the review: the reverted hunks with the reasons, in the gate's words. */
function noteFor(outcome: ReviewOutcome, decision: Decision): string | undefined {
  const allowReason = typeof decision === 'object' && 'reason' in decision ? decision.reason : undefined;
  if (outcome.keptAll)
    return allowReason
      ? `The user reviewed the changes you made in this session and kept them all, with this note: ${allowReason}`
      : undefined;
  const lines = [
    'The user reviewed the changes you made in this session (editgate review) and reverted part of them; the files hold the rest. Read a file again before you edit it.',
  ];
  const told = rejectedHunkLines(outcome.reverted);
  if (told.length > 0) {
    lines.push(
      "Reverted (each: where its old text stands now, the user's reason, the lines your change had):",
    );
    lines.push(...told);
  }
  for (const file of outcome.reverted.filter((each) => each.rejected.length === 0))
    lines.push(`- ${file.path}: the user wrote their own version of it; read it again.`);
  if (outcome.refused.length > 0)
    lines.push(`Not reverted (changed since): ${outcome.refused.map((each) => each.path).join(', ')}.`);
  if (allowReason) lines.push(`The user's note: ${allowReason}`);
  return lines.join('\n');
}

/** One line for a person: what the review did. */
export function reviewSummary(outcome: ReviewOutcome): string[] {
  const lines: string[] = [];
  if (outcome.keptAll && outcome.refused.length === 0)
    lines.push('Kept every change of the session; nothing was written.');
  for (const file of outcome.reverted) {
    if (file.rejected.length === 0) {
      lines.push(`${file.path}: your version written.`);
      continue;
    }
    const hunks = file.rejected.map((hunk) => `${hunk.hunk + 1}${hunk.reason ? ` (${hunk.reason})` : ''}`);
    lines.push(
      `${file.path}: reverted hunk${hunks.length === 1 ? '' : 's'} ${hunks.join(', ')} of ${file.total}; editgate undo ${file.path} puts ${hunks.length === 1 ? 'it' : 'them'} back.`,
    );
  }
  for (const file of outcome.refused) lines.push(`${file.path}: not reverted. ${file.why}`);
  return lines;
}

/**
 * Why a session review can no longer be answered from where it was shown: a file of it changed on disk
 * since (a revert done elsewhere, an edit). Said instead of an approval's words: a denial here would revert
 * everything, so it is never the advice.
 */
export function staleReviewText(question: ApprovalQuestion): string {
  const id = typeof question.input?.session === 'string' ? question.input.session : undefined;
  return `A file of this review changed on disk after it was shown (reverted elsewhere, or edited), so nothing can be reverted from here and nothing was written. Stop this review (Ctrl-C where editgate review runs) and review the session again${id ? ` (editgate review --session ${id})` : ''} to see it as it is now.`;
}

/** Whether a question is a session review's (its answer reverts rather than writes). */
export function isSessionReview(question: ApprovalQuestion): boolean {
  return question.tool === REVIEW_SESSION_TOOL;
}
