import type { Diff } from '../core/diff.js';
import { findingsNote } from '../core/finding-words.js';
import { markInvisible } from '../core/invisible.js';
import type { ChangeOutcome } from '../gate/gate.js';
import { placeText, rejectedHunkLines } from '../gate/hunk-decision.js';
import type { Proposal, ProposedFile } from '../gate/proposal.js';
import { maskSecretsIn, maskSecretsInValue, secretsOf } from '../gate/secret-check.js';
import { decidedWith } from '../gate/settle.js';
import type { ChangeDetails, HunkOutcome } from './details.js';

/** `cat -n` style: the number right-aligned in six columns, a tab, the line. read_file uses the same. */
export function numberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6, ' ')}\t${text}`;
}

const EXCERPT_LINES = 60;

/**
 * Characters of one line that read_file and the changed-region excerpt show: a minified bundle or a
 * one-line data file would otherwise come back whole (10 MB for a 10 MB line). A capped line counts as read.
 */
export const MAX_LINE_CHARS = 2000;

/** A unified diff with every line longer than MAX_LINE_CHARS cut (what a model is shown of a change). */
export function capDiffLines(unifiedDiff: string): string {
  if (unifiedDiff.length <= MAX_LINE_CHARS) return unifiedDiff;
  return unifiedDiff
    .split('\n')
    .map((line) => cappedLine(line))
    .join('\n');
}

/** The line cut at MAX_LINE_CHARS (never inside a surrogate pair), saying how much was left out. */
export function cappedLine(text: string): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  let end = MAX_LINE_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)} … [line cut: ${text.length - end} more characters not shown; it counts as read. Quote an old_string from the part shown, or replace the whole line with edit_lines]`;
}

/**
 * The changed region of the new file with its line numbers (context included), so the model can see the
 * result without reading the file again. Long regions are cut with a note saying how to see the rest.
 */
export function changedRegion(diff: Diff): string {
  const out: string[] = [];
  let shown = 0;
  let omitted = 0;
  for (const hunk of diff.hunks) {
    const lines = hunk.lines.filter((line) => line.newLine !== undefined);
    if (lines.length === 0) continue;
    if (out.length > 0) out.push('   ...');
    for (const line of lines) {
      if (shown >= EXCERPT_LINES) {
        omitted++;
        continue;
      }
      out.push(numberedLine(line.newLine!, cappedLine(line.text)));
      shown++;
    }
  }
  if (omitted > 0) out.push(`   ... (${omitted} more changed or context lines; use read_file to see them)`);
  return out.join('\n');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * A duration as a person says it: "45 seconds", "1 minute", "1 minute 30 seconds", "2 hours 5 minutes".
 * Whole seconds (rounded); seconds are left out from an hour up.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return plural(seconds, 'second');
  if (seconds < 3600) {
    const rest = seconds % 60;
    return plural(Math.floor(seconds / 60), 'minute') + (rest > 0 ? ` ${plural(rest, 'second')}` : '');
  }
  const minutes = Math.round(seconds / 60);
  const rest = minutes % 60;
  return plural(Math.floor(minutes / 60), 'hour') + (rest > 0 ? ` ${plural(rest, 'minute')}` : '');
}

function tierNote(proposal: Proposal): string {
  const tiers = (proposal.files[0]!.tiers ?? []).filter((tier) => tier !== 'exact');
  if (tiers.length === 0) return '';
  return `\nNote: old_string did not match exactly; it matched after tolerating ${[...new Set(tiers)].join(', ')}. Copy text exactly from read_file next time.`;
}

/**
 * A diff in a fenced block (```diff), so a client that renders results as Markdown (Gemini CLI) shows it as
 * it is: without the fence, `+`/`-` lines become list items, indentation and backticks are lost. The fence
 * is longer than any run of backticks in the diff, so a diff of a Markdown file cannot close it early.
 */
export function fencedDiff(unifiedDiff: string): string {
  const longestRun = Math.max(0, ...(unifiedDiff.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `${fence}diff\n${unifiedDiff.replace(/\n$/, '')}\n${fence}`;
}

/** The person approved their own version: say exactly what they changed, so the model keeps it. */
function personEditNote(outcome: ChangeOutcome): string {
  const edited = outcome.approval?.edited;
  if (!edited) return '';
  return `\nThe user edited your change before approving it: the file now holds their version, not yours. What they changed in your proposal (--- yours, +++ theirs):\n${fencedDiff(edited.unifiedDiff)}\nKeep their changes: build on the file as it is now and do not undo them.`;
}

/** Written hunks of a file whose places are listed for the model (the rest are counted). */
const WRITTEN_PLACES = 30;

/**
 * The person accepted part of the change, hunk by hunk: what landed where, and what did not, with their
 * reasons and the proposed lines in short, so the model builds on the file as it is.
 */
export function hunkNote(outcome: Pick<ChangeOutcome, 'approval'>): string {
  const taken = outcome.approval?.hunks;
  if (!taken) return '';
  const written = taken.files
    .filter((file) => file.written.length > 0)
    .map((file) => {
      if (file.rejected.length === 0) return `${file.path}: all of it`;
      const places = file.written
        .slice(0, WRITTEN_PLACES)
        .map(
          (hunk) =>
            `hunk ${hunk.hunk + 1} (${hunk.count === 0 ? 'its lines removed ' : 'now '}${placeText(hunk)})`,
        );
      if (file.written.length > WRITTEN_PLACES) places.push(`${file.written.length - WRITTEN_PLACES} more`);
      return `${file.path}: ${file.written.length} of ${plural(file.total, 'hunk')}: ${places.join(', ')}`;
    });
  const untouched = taken.files.filter((file) => file.written.length === 0).map((file) => file.path);
  return [
    '',
    'The user accepted only part of your change; the rest was NOT written.',
    `Written: ${written.join('; ')}.`,
    ...(untouched.length > 0 ? [`Not changed at all: ${untouched.join(', ')}.`] : []),
    'Not written (the file keeps its old text there; line numbers are of the file as it is now):',
    ...rejectedHunkLines(taken.files),
    "Build on the files as they are now. Do not write the rejected hunks again as they were: where a change is still needed there, follow the user's reason, or ask them.",
  ].join('\n');
}

/** The note the person gave with their approval: the model reads it. */
function approvalNote(outcome: ChangeOutcome): string {
  const reason = outcome.approval?.reason;
  return reason ? `\nThe user approved this change with a note: ${reason}` : '';
}

/**
 * What the person was told about a file's change, told to the model too. A change whose diff shows only
 * part of it (a streamed change of more places than a diff keeps) is written only when nobody was asked
 * (policy, a session grant): the model must know its counts and the region below are not the whole change.
 */
function fileNotes(proposal: Proposal): string {
  const several = proposal.files.length > 1;
  return proposal.files
    .map((file) => {
      if (!file.note) return '';
      const partial = file.change.partialDiff;
      const more = partial
        ? ` Only the first ${partial.shown} of its ${partial.places} places are in the diff${several ? '' : ' and the region below'}; read_file shows the others.`
        : '';
      return `\nNote${several ? ` on ${file.path}` : ''}: ${file.note}${more}`;
    })
    .join('');
}

function grantNote(outcome: ChangeOutcome): string {
  const decision = outcome.approval?.decision;
  if (decision === 'file') return '\nThe user allowed further edits to this file for this session.';
  if (decision === 'all') return '\nThe user allowed all edits for this session.';
  return '';
}

/**
 * What happened, in one sentence ("Edited src/app.ts: 1 replacement, +1 -1 lines."): the head of the model's
 * message, and the whole of what a person at the CLI reads after seeing the diff.
 */
export function changeHeadline(proposal: Proposal): string {
  const file = proposal.files[0]!;
  const { path, stats } = file;
  const counts = `+${stats.added} -${stats.removed} lines`;
  switch (file.kind) {
    case 'noop':
      return `No change: ${path} already has exactly this content, so nothing was written.`;
    case 'create':
      return `Created ${path} (${plural(file.diff.added, 'line')}).`;
    case 'delete':
      return `Deleted ${path} (${counts}).`;
    default: {
      if (file.change.history === 'step-back') return `Undid the last change to ${path} (${counts}).`;
      const replaced = file.replacements !== undefined ? `${plural(file.replacements, 'replacement')}, ` : '';
      return `Edited ${path}: ${replaced}${counts}.`;
    }
  }
}

/** One file of a change set in a few words: "Edited src/app.ts (+1 -1 lines)". */
function fileLine(file: ProposedFile): string {
  const counts = `+${file.stats.added} -${file.stats.removed} lines`;
  if (file.kind === 'create') return `Created ${file.path} (${plural(file.diff.added, 'line')})`;
  if (file.kind === 'delete') return `Deleted ${file.path}`;
  if (file.change.history === 'step-back') return `Undid the last change to ${file.path} (${counts})`;
  return `Edited ${file.path} (${counts})`;
}

/** A change set's headline: every file, one line each. */
function changeSetHeadline(proposal: Proposal): string {
  return [
    `Changed ${proposal.files.length} files as one change (all written together):`,
    ...proposal.files.map((file) => `- ${fileLine(file)}`),
  ].join('\n');
}

/** The message a model reads after a change was written (or found to be a no-op). */
export function changeMessage(outcome: ChangeOutcome): string {
  // A secret a check found is never told back, not even in the changed region (gate/secret-check.ts).
  return maskSecretsIn(
    `${unmaskedChangeMessage(outcome)}${findingsNote(outcome.proposal.findings)}`,
    secretsOf(outcome.proposal),
  );
}

function unmaskedChangeMessage(outcome: ChangeOutcome): string {
  const { proposal } = outcome;
  const first = proposal.files[0]!;
  if (first.kind === 'noop') return `${changeHeadline(proposal)}${personEditNote(outcome)}`;
  if (outcome.staged) return stagedMessage(outcome);
  if (proposal.files.length > 1) {
    const hook = outcome.hookMessage ? `\n\nAfter-change check:\n${outcome.hookMessage}` : '';
    return `${changeSetHeadline(proposal)}${tierNote(proposal)}${fileNotes(proposal)}${personEditNote(outcome)}${hunkNote(outcome)}${grantNote(outcome)}${hook}`;
  }
  let body = '';
  if (first.kind === 'modify') {
    const region = changedRegion(first.diff);
    if (region) body = `\nThe changed region now reads:\n${region}`;
  }
  const hook = outcome.hookMessage ? `\n\nAfter-change check:\n${outcome.hookMessage}` : '';
  return `${changeHeadline(proposal)}${tierNote(proposal)}${fileNotes(proposal)}${personEditNote(outcome)}${hunkNote(outcome)}${approvalNote(outcome)}${grantNote(outcome)}${body}${hook}`;
}

const STAGED_DIFF_CHARS = 20_000;

/** Preview mode: nothing written; the diff and the id the person approves with apply_change. */
function stagedMessage(outcome: ChangeOutcome): string {
  const { proposal, staged } = outcome;
  const first = proposal.files[0]!;
  const verb = { create: 'create', delete: 'delete', modify: 'change', noop: 'change' }[first.kind];
  let diff = capDiffLines(proposal.files.map((file) => file.unifiedDiff).join(''));
  if (diff.length > STAGED_DIFF_CHARS) {
    diff = `${diff.slice(0, STAGED_DIFF_CHARS)}\n... (diff cut at ${STAGED_DIFF_CHARS} characters; the change is complete)`;
  }
  // A person reads this in the client to approve apply_change: no escape sequence or invisible character
  // from the file reaches their screen raw (core/invisible.ts).
  return markInvisible(
    [
      proposal.files.length > 1
        ? `Proposed (NOT yet written): one change to ${proposal.files.length} files (${proposal.files.map((file) => `${file.kind} ${file.path}`).join(', ')}).`
        : `Proposed (NOT yet written): ${verb} ${first.path}, +${first.stats.added} -${first.stats.removed} lines.`,
      `To write it, call apply_change with change_id "${staged!.changeId}", file_path "${first.path}" and change_hash "${staged!.hash}" (valid for ${humanDuration(staged!.expiresAt - Date.now())}, once; refused if the file changes first).`,
      '',
      fencedDiff(diff),
    ].join('\n'),
    { keepCrlf: true },
  );
}

/** Details for programs, beside the message (details.ts: every change tool answers with these). */
export function changeDetails(outcome: ChangeOutcome): ChangeDetails {
  return maskSecretsInValue(unmaskedChangeDetails(outcome), secretsOf(outcome.proposal));
}

function unmaskedChangeDetails(outcome: ChangeOutcome): ChangeDetails {
  const { proposal } = outcome;
  const first = proposal.files[0]!;
  return {
    tool: proposal.tool,
    path: first.path,
    kind: first.kind,
    summary: proposal.files.length > 1 ? changeSetHeadline(proposal) : changeHeadline(proposal),
    ...(proposal.files.length > 1
      ? {
          files: proposal.files.map((file) => ({
            path: file.path,
            kind: file.kind,
            added: file.stats.added,
            removed: file.stats.removed,
          })),
        }
      : {}),
    added: first.stats.added,
    removed: first.stats.removed,
    replacements: first.replacements,
    tiers: first.tiers,
    unifiedDiff: capDiffLines(proposal.files.map((file) => file.unifiedDiff).join('')),
    decision: outcome.approval?.decision,
    decidedBy: outcome.approval?.decidedBy,
    ...decidedWith(outcome.approval),
    approvalReason: outcome.approval?.reason,
    editedByUser: outcome.approval?.edited?.unifiedDiff,
    hunks: hunkDetails(outcome),
    hash: outcome.fingerprint?.hash,
    hookMessage: outcome.hookMessage,
    changeId: outcome.staged?.changeId,
    changeHash: outcome.staged?.hash,
    expiresAt: outcome.staged ? new Date(outcome.staged.expiresAt).toISOString() : undefined,
    written: !outcome.staged && first.kind !== 'noop',
    ...(proposal.findings && proposal.findings.length > 0 ? { findings: proposal.findings } : {}),
  };
}

/**
 * A change decided hunk by hunk, for programs: per file, the hunks written and those not (0-based, as in the
 * decision), with the person's reasons.
 */
function hunkDetails(outcome: ChangeOutcome): Record<string, HunkOutcome> | undefined {
  const taken = outcome.approval?.hunks;
  if (!taken) return undefined;
  return Object.fromEntries(
    taken.files.map((file) => [
      file.path,
      {
        written: file.written.map((hunk) => hunk.hunk),
        rejected: file.rejected.map(({ hunk, reason }) => (reason ? { hunk, reason } : { hunk })),
      },
    ]),
  );
}
