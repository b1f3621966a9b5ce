/**
 * Part of a change, hunk by hunk (issue #30): a decision `{ allow, hunks }` accepts some hunks of a file's
 * diff (and some files of a change set) and rejects others, each with an optional reason. This file holds the
 * one rule for it, which the gate and every front end use:
 *   - which files can be split at all (`wholeOnlyReason`, shown as ApprovalFile.wholeOnly);
 *   - whether a choice fits the change (`checkHunkChoices`; a front end asks `hunkChoiceProblem` before it
 *     answers): a path the change does not touch, a hunk that does not exist, a hunk both accepted and
 *     rejected or listed twice, a field it does not know are refused whole, nothing guessed;
 *   - the change rebuilt from the accepted hunks (`takeHunks`): each split file's new text is core's
 *     `applySomeHunks` of its diff, computed again by the workspace from the very version the proposal was
 *     made from (re-diffed; STALE when the file changed), as an edited answer is (revised-proposal.ts);
 *   - what landed and what did not, for the model (`rejectedHunkLines`, and tools/messages.ts).
 *
 * A hunk of a named file that is neither accepted nor rejected is rejected, without a reason: what is
 * written must be what the person chose, so a hunk nobody chose is not written.
 */
import type { Diff, DiffLine, Hunk } from '../core/diff.js';
import { applySomeHunks, type PlacedHunk } from '../core/diff-hunks.js';
import { EditgateError } from '../core/errors.js';
import { staleError } from '../workspace/fs-errors.js';
import type { FileChange, Workspace } from '../workspace/workspace.js';
import type { ApprovalQuestion } from './approval.js';
import { type Proposal, type ProposedFile, proposalOf } from './proposal.js';
import { assertSameVersion } from './revised-proposal.js';

/**
 * Why this file's hunks cannot be accepted one by one (it is taken whole or not at all), or undefined when
 * they can. A line diff's hunks are independent by construction (core/diff-hunks.ts), so what cannot be split
 * is what has no text to split, or whose parts belong together.
 */
export function wholeOnlyReason(files: readonly ProposedFile[], file: ProposedFile): string | undefined {
  if (file.kind === 'delete')
    return `${file.path} is being deleted: a deletion is accepted or rejected whole`;
  const deleted = files.find((other) => other.kind === 'delete');
  if (deleted && files.length > 1) {
    return `this change deletes ${deleted.path}, whose text may move into another of its files: its files are accepted or rejected together, whole`;
  }
  if (file.change.history === 'step-back')
    return `${file.path}'s change is an undo, which puts back the earlier version whole`;
  if (!file.texts || file.change.content?.type === 'prepared' || file.change.partialDiff) {
    return `${file.path} is too large to hold in memory, so its change is accepted or rejected whole`;
  }
  return undefined;
}

/** What a checked choice does to one file of the change. */
export interface FileHunkPlan {
  path: string;
  /** Hunks in the file's diff. */
  total: number;
  /** Accepted hunks, ascending (0-based). */
  accepted: number[];
  /** Rejected hunks, ascending, with the person's reason when they gave one. */
  rejected: { hunk: number; reason?: string }[];
}

/**
 * Why `choices` cannot be applied to this change (a sentence for the approver's author and the model;
 * nothing is written), or null when it can. For a front end, before it answers.
 */
export function hunkChoiceProblem(request: ApprovalQuestion, choices: unknown): string | null {
  const checked = checkHunkChoices(request, choices);
  return 'problem' in checked ? checked.problem : null;
}

/** The plan of a valid choice (every file of the change, in its order), or why it is not valid. */
export function checkHunkChoices(
  request: ApprovalQuestion,
  choices: unknown,
): { files: FileHunkPlan[] } | { problem: string } {
  const refuse = (why: string) => ({
    problem: `the approval's choice of hunks cannot be used: ${why}; nothing was written`,
  });
  if (!choices || typeof choices !== 'object' || Array.isArray(choices)) {
    return refuse('`hunks` must be an object from file paths to { accept, reject }');
  }
  const { files } = request;
  for (const path of Object.keys(choices)) {
    const named = files.filter((file) => file.path === path);
    if (named.length === 0) {
      return refuse(
        `it names ${path}, which this change does not touch (its files: ${files.map((file) => file.path).join(', ')})`,
      );
    }
    if (named.length > 1) return refuse(`${path} names ${named.length} files of this change (one per root)`);
  }
  const plans: FileHunkPlan[] = [];
  for (const file of files) {
    const total = file.diff.hunks.length;
    const all = [...Array(total).keys()];
    if (!Object.hasOwn(choices, file.path)) {
      plans.push({ path: file.path, total, accepted: all, rejected: [] });
      continue;
    }
    const choice: unknown = (choices as Record<string, unknown>)[file.path];
    const planned = planOf(file.path, total, choice);
    if (typeof planned === 'string') return refuse(planned);
    const split = planned.accepted.length > 0 && planned.rejected.length > 0;
    if (split && file.wholeOnly) return refuse(`${file.wholeOnly}; accept all of its hunks or none`);
    plans.push(planned);
  }
  // A set that deletes a file (its text may move into another) is taken whole or not at all.
  const whole = plans.filter((plan) => plan.rejected.length === 0).length;
  if (
    files.length > 1 &&
    files.some((file) => file.kind === 'delete') &&
    whole !== 0 &&
    whole !== plans.length
  ) {
    const deleted = files.find((file) => file.kind === 'delete')!;
    return refuse(
      `this change deletes ${deleted.path}, whose text may move into another of its files: accept all of it or none`,
    );
  }
  return { files: plans };
}

function planOf(path: string, total: number, choice: unknown): FileHunkPlan | string {
  const where = `hunks[${JSON.stringify(path)}]`;
  if (!choice || typeof choice !== 'object' || Array.isArray(choice)) {
    return `${where} must be { accept: [hunk numbers], reject?: [{ hunk, reason? }] }`;
  }
  const unknown = Object.keys(choice).filter((key) => key !== 'accept' && key !== 'reject');
  if (unknown.length > 0) return `${where} has ${unknown.join(', ')}, which is not accept or reject`;
  const { accept, reject = [] } = choice as { accept?: unknown; reject?: unknown };
  if (!Array.isArray(accept)) return `${where}.accept must be a list of hunk numbers (0-based)`;
  if (!Array.isArray(reject)) return `${where}.reject must be a list of { hunk, reason? }`;
  const seen = new Map<number, 'accepted' | 'rejected'>();
  const range = total === 0 ? 'its diff has no hunks' : `its diff has ${total}, numbered 0 to ${total - 1}`;
  const mark = (hunk: unknown, as: 'accepted' | 'rejected'): string | null => {
    if (typeof hunk !== 'number' || !Number.isInteger(hunk) || hunk < 0 || hunk >= total) {
      return `${path} has no hunk ${JSON.stringify(hunk)} (${range})`;
    }
    const before = seen.get(hunk);
    if (before === as) return `hunk ${hunk} of ${path} is ${as} twice`;
    if (before) return `hunk ${hunk} of ${path} is both accepted and rejected`;
    seen.set(hunk, as);
    return null;
  };
  for (const hunk of accept) {
    const wrong = mark(hunk, 'accepted');
    if (wrong) return wrong;
  }
  const reasons = new Map<number, string>();
  for (const entry of reject) {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
      return `${where}.reject must be a list of { hunk, reason? }`;
    }
    const { hunk, reason, ...rest } = entry as { hunk?: unknown; reason?: unknown };
    if (Object.keys(rest).length > 0) {
      return `${where}.reject has ${Object.keys(rest).join(', ')}, which is not hunk or reason`;
    }
    const wrong = mark(hunk, 'rejected');
    if (wrong) return wrong;
    if (reason !== undefined && typeof reason !== 'string') {
      return `the reason for hunk ${hunk} of ${path} must be text`;
    }
    if (typeof reason === 'string' && reason.trim()) reasons.set(hunk as number, reason.trim());
  }
  const accepted = [...Array(total).keys()].filter((hunk) => seen.get(hunk) === 'accepted');
  // Neither accepted nor rejected: rejected without a reason (only what was chosen is written).
  const rejected = [...Array(total).keys()]
    .filter((hunk) => seen.get(hunk) !== 'accepted')
    .map((hunk) => (reasons.has(hunk) ? { hunk, reason: reasons.get(hunk)! } : { hunk }));
  return { path, total, accepted, rejected };
}

/** Where a written or rejected hunk's lines stand in the file as it is after the commit (1-based). */
export interface HunkPlace {
  hunk: number;
  start: number;
  /** 0: no lines there (a written deletion, a rejected insertion): the place before line `start`. */
  count: number;
}

/** A rejected hunk as the model is told of it. */
export interface RejectedHunk extends HunkPlace {
  reason?: string;
  /** The hunk's changed lines as proposed ("-old", "+new"), at most a few, each cut short. */
  proposed: string[];
}

/** What became of one file of a change decided hunk by hunk. */
export interface FileHunks {
  path: string;
  total: number;
  written: HunkPlace[];
  rejected: RejectedHunk[];
}

/** A change decided hunk by hunk: what is written instead of the proposal, and what landed per file. */
export interface TakenHunks {
  proposal: Proposal;
  files: FileHunks[];
}

/** Whether a plan writes every hunk of every file (a plain approval) or none at all (a denial). */
export function planTakes(plans: readonly FileHunkPlan[]): 'all' | 'none' | 'some' {
  if (plans.every((plan) => plan.rejected.length === 0)) return 'all';
  if (plans.every((plan) => plan.accepted.length === 0)) return 'none';
  return 'some';
}

/**
 * The proposal with only the accepted hunks: files taken whole keep their change as it is, files with
 * nothing accepted are left out, and each split file gets a new change, computed by the workspace from the
 * version the proposal was made from (STALE when the file is no longer that version). Call only for a plan
 * that takes some but not all (planTakes).
 */
export async function takeHunks(
  workspace: Workspace,
  proposal: Proposal,
  plans: readonly FileHunkPlan[],
  signal?: AbortSignal,
): Promise<TakenHunks> {
  const changes: FileChange[] = [];
  const files: FileHunks[] = [];
  for (const [index, file] of proposal.files.entries()) {
    const plan = plans[index]!;
    const accepted = new Set(plan.accepted);
    if (plan.rejected.length === 0) {
      changes.push(file.change);
      files.push(reportOf(file, plan, placesIn(file.diff, true)));
      continue;
    }
    if (accepted.size === 0) {
      files.push(reportOf(file, plan, placesIn(file.diff, false)));
      continue;
    }
    const { before, after } = file.texts!;
    // The diff must rebuild the proposed text exactly before a part of it is trusted.
    if (applySomeHunks(before, file.diff, () => true).text !== after) {
      throw new EditgateError(
        'INVALID_INPUT',
        `${file.path}: its diff does not rebuild the proposed text, so its hunks cannot be taken apart; nothing was written. Approve or deny the change whole.`,
        { path: file.path },
      );
    }
    const { text, placed } = applySomeHunks(before, file.diff, (hunk) => accepted.has(hunk));
    const proposed = file.change.content?.type === 'text' ? file.change.content.codec : undefined;
    const change = await workspace.edit(
      file.change.resolved,
      {
        compute: (base) => {
          assertSameVersion(file, base.exists ? base.fingerprint : null);
          return { text, ...(proposed ? { codec: proposed } : {}) };
        },
        // A file that grew huge since is no longer the version the person saw.
        tooLarge: () => staleError(file.path, 'changed'),
      },
      { requireRead: false, ...(signal ? { signal } : {}) },
    );
    if (change.kind !== 'noop') changes.push(change);
    files.push(reportOf(file, plan, placed));
  }
  return { proposal: proposalOf({ tool: proposal.tool, input: proposal.input }, changes), files };
}

/** Where each hunk's changed lines are when all are taken (new side) or none (old side). */
function placesIn(diff: Diff, taken: boolean): PlacedHunk[] {
  const side = taken ? 'add' : 'remove';
  const numberOf = (line: DiffLine) => (taken ? line.newLine! : line.oldLine!);
  return diff.hunks.map((hunk) => {
    const lines = hunk.lines.filter((line) => line.kind === side);
    if (lines.length > 0) {
      const start = numberOf(lines[0]!);
      return { taken, start, count: numberOf(lines.at(-1)!) - start + 1 };
    }
    // No lines on this side: the place of the first change, before the line that follows it there.
    const [first, count] = taken ? [hunk.newStart, hunk.newLines] : [hunk.oldStart, hunk.oldLines];
    let next = count === 0 ? first + 1 : first;
    for (const line of hunk.lines) {
      if (line.kind !== 'context') break;
      next++;
    }
    return { taken, start: next, count: 0 };
  });
}

/** What becomes of every file when nothing of the change is written (the plan rejects every hunk). */
export function reportRejected(proposal: Proposal, plans: readonly FileHunkPlan[]): FileHunks[] {
  return proposal.files.map((file, index) => reportOf(file, plans[index]!, placesIn(file.diff, false)));
}

const PROPOSED_LINES = 6;
const PROPOSED_CHARS = 160;

/**
 * What became of one file's hunks: written where `placed` says, rejected with the plan's reasons and the
 * hunk's lines in short. For the gate's partial decisions, and a session review's reverts (session-review.ts).
 */
export function reportOf(
  file: Pick<ProposedFile, 'path' | 'diff'>,
  plan: FileHunkPlan,
  placed: PlacedHunk[],
): FileHunks {
  const reasons = new Map(plan.rejected.map((each) => [each.hunk, each.reason]));
  const written: HunkPlace[] = [];
  const rejected: RejectedHunk[] = [];
  placed.forEach(({ start, count }, hunk) => {
    if (!reasons.has(hunk)) {
      written.push({ hunk, start, count });
      return;
    }
    const reason = reasons.get(hunk);
    const entry: RejectedHunk = { hunk, start, count, proposed: proposedLines(file.diff.hunks[hunk]!) };
    if (reason !== undefined) entry.reason = reason;
    rejected.push(entry);
  });
  return { path: file.path, total: plan.total, written, rejected };
}

/** A hunk's changed lines, short: the first few, each cut, and how many more there are. */
function proposedLines(hunk: Hunk): string[] {
  const changed = hunk.lines.filter((line) => line.kind !== 'context');
  const shown = changed.slice(0, PROPOSED_LINES).map((line) => {
    const text = line.text.length > PROPOSED_CHARS ? `${line.text.slice(0, PROPOSED_CHARS)} …` : line.text;
    return `${line.kind === 'add' ? '+' : '-'}${text}`;
  });
  if (changed.length > PROPOSED_LINES) shown.push(`… ${changed.length - PROPOSED_LINES} more changed lines`);
  return shown;
}

/** "lines 7-9", "line 7", or "before line 7" for a place with no lines. */
export function placeText(place: HunkPlace): string {
  if (place.count === 0) return `before line ${place.start}`;
  if (place.count === 1) return `line ${place.start}`;
  return `lines ${place.start}-${place.start + place.count - 1}`;
}

/** Rejected hunks told in full (place, reason, proposed lines); the rest in one line per file. */
const TOLD_IN_FULL = 30;

/**
 * The rejected hunks, for the model: file, hunk (1-based, of how many), where its old text stands in the
 * file as it is now, the person's reason, and the proposed lines in short. Past TOLD_IN_FULL hunks (a
 * change of hundreds), the others are listed by number and place only, with any reasons.
 */
export function rejectedHunkLines(files: readonly FileHunks[]): string[] {
  const out: string[] = [];
  let told = 0;
  for (const file of files) {
    const rest: string[] = [];
    for (const hunk of file.rejected) {
      const where =
        hunk.count === 0 ? `proposed before line ${hunk.start}` : `${placeText(hunk)} as it is now`;
      const reason = hunk.reason ? `the user's reason: ${hunk.reason}` : 'no reason given';
      if (told >= TOLD_IN_FULL) {
        rest.push(`${hunk.hunk + 1} (${where}${hunk.reason ? `; reason: ${hunk.reason}` : ''})`);
        continue;
      }
      told++;
      out.push(`- ${file.path} hunk ${hunk.hunk + 1} of ${file.total} (${where}): ${reason}`);
      for (const line of hunk.proposed) out.push(`    ${line}`);
    }
    if (rest.length > 0) out.push(`- ${file.path}, also not written, hunks ${rest.join(', ')}`);
  }
  return out;
}
