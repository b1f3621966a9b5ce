/**
 * The review page, rendered on the server: its frame, and the fragments the page's script asks for (the
 * queue of changes, the current change: each file's diff, the question, the decision buttons; the next
 * page of a diff, an expanded unchanged region). The frame holds nothing of the changes: it is what the
 * session cookie alone shows (every port of 127.0.0.1 receives that cookie), and the fragments need the
 * session's nonce (request-guard.ts). Everything from a model or a file goes through htmlText; the script
 * (assets/review.js) only inserts what the server rendered, or sets textContent.
 */

import { approvalQuestion, sessionReviewSummary } from '../core/approval-question.js';
import { findingsLines } from '../core/finding-words.js';
import type { Finding } from '../core/findings.js';
import { pathInRoot } from '../core/root-named.js';
import { type ApprovalQuestion, type Decision, type HunkChoices, isReadQuestion } from '../gate/approval.js';
import { isSessionReview, staleReviewText } from '../gate/session-review.js';
import {
  type DiffLayout,
  diffTable,
  type FileView,
  fileHeading,
  nextPageRow,
  plainMessage,
  renderPage,
} from './diff-html.js';
import { escapeHtml, htmlText } from './html-text.js';
import { isEditable } from './review-files.js';
import type { ReviewItem, ReviewOutcome } from './review-queue.js';

export interface PageOptions {
  root: string;
  /** The change the page opens on (its script loads it: /fragments/change). */
  current?: ReviewItem;
  layout: DiffLayout;
}

export function pageHtml(options: PageOptions): string {
  const { current: item, layout } = options;
  const session = item !== undefined && isSessionReview(item.request);
  const attributes = item
    ? ` data-change="${escapeHtml(item.id)}" data-hash="${item.hash}" data-status="${item.status}" data-kind="${item.request.files[0]!.kind}"${session ? ' data-review="session"' : ''}`
    : '';
  const rootName = options.root.split(/[\\/]/).filter(Boolean).at(-1) ?? options.root;
  const viewLink = (view: DiffLayout, label: string) => {
    const query = `?${item ? `change=${encodeURIComponent(item.id)}&` : ''}view=${view}`;
    return `<a href="${escapeHtml(query)}"${view === layout ? ' aria-current="page"' : ''}>${label}</a>`;
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>editgate review · ${htmlText(rootName)}</title>
<link rel="stylesheet" href="/assets/review.css">
<script type="module" src="/assets/review.js"></script>
</head>
<body data-layout="${layout}"${attributes}>
<header class="top">
<strong class="brand">editgate review</strong>
<span class="root" title="the workspace root">${htmlText(options.root)}</span>
<span id="live" class="live" role="status">connecting…</span>
<nav class="layouts" aria-label="Diff layout">${viewLink('unified', 'Unified')} ${viewLink('split', 'Side by side')}</nav>
</header>
<div class="body">
<details class="changes" id="changes" open><summary>Changes</summary><aside id="queue" aria-label="Changes"></aside></details>
<main id="change">${item ? '<p class="empty">Loading the change…</p>' : emptyHtml()}</main>
</div>
<footer class="keys">${session ? SESSION_KEYS : CHANGE_KEYS}</footer>
</body>
</html>
`;
}

/**
 * The answer to a good sign-in link: its script (sign-in.js) keeps the session's nonce in this origin's
 * storage, where the page's script reads it and no page of another port can, then replaces the address
 * (and the history entry holding the token) with the page. Given once per link.
 */
export function signInPageHtml(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="editgate-nonce" content="${escapeHtml(nonce)}">
<title>editgate review · signing in</title>
<link rel="stylesheet" href="/assets/review.css">
<script type="module" src="/assets/sign-in.js"></script>
</head>
<body><p class="empty">Signing in… (this page needs JavaScript; <a href="/">open the review page</a>)</p></body>
</html>
`;
}

/** A page that says one thing: why a link did not sign in, and what to do. */
export function messagePageHtml(title: string, message: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>editgate review · ${htmlText(title)}</title>
</head>
<body><h1>${htmlText(title)}</h1><p id="message">${htmlText(message)}</p></body>
</html>
`;
}

const CHANGE_KEYS =
  '<kbd>j</kbd>/<kbd>k</kbd> next/previous file · <kbd>y</kbd> allow once · <kbd>a</kbd> allow this file for the session · <kbd>A</kbd> allow all edits this session · <kbd>n</kbd> deny · <kbd>r</kbd> deny with a reason (or allow with a note) · <kbd>]</kbd>/<kbd>[</kbd> next/previous hunk · <kbd>x</kbd> write the hunk or leave it out · <kbd>e</kbd> edit the new text · <kbd>s</kbd> unified / side by side';

/** A session review grants nothing: its keys choose what to keep, and one button sends it. */
const SESSION_KEYS =
  '<kbd>j</kbd>/<kbd>k</kbd> next/previous file · <kbd>]</kbd>/<kbd>[</kbd> next/previous hunk · <kbd>x</kbd> keep the hunk or revert it · <kbd>s</kbd> unified / side by side';

function emptyHtml(): string {
  return '<p class="empty">No changes are waiting. This page shows each change as soon as one is proposed.</p>';
}

const STATUS_LABEL = {
  pending: 'waiting',
  stale: 'stale',
  answered: 'answered',
  withdrawn: 'withdrawn',
} as const;

/** The list of changes: waiting ones, then the latest answered, each linking to its page. */
export function queueHtml(items: readonly ReviewItem[], currentId?: string): string {
  if (items.length === 0) return '<p class="none">Nothing yet.</p>';
  const rows = items.map((item) => {
    const first = item.request.files[0]!;
    const read = first.kind === 'read';
    const label = read
      ? `read ${htmlText(pathInRoot(first.path, first.root))}`
      : item.files.length > 1
        ? `${item.files.length} files: ${htmlText(pathInRoot(first.path, first.root))}, …`
        : htmlText(pathInRoot(first.path, first.root));
    const stats = item.files.reduce(
      (sum, file) => ({ added: sum.added + file.stats.added, removed: sum.removed + file.stats.removed }),
      { added: 0, removed: 0 },
    );
    const counts = read
      ? ''
      : ` <span class="stat add">+${stats.added}</span> <span class="stat del">-${stats.removed}</span>`;
    const outcome = item.outcome
      ? ` · ${htmlText(describeDecision(item.outcome.decision, item.request))}`
      : '';
    const current = item.id === currentId ? ' aria-current="page"' : '';
    return `<li class="q-${item.status}"><a href="?change=${encodeURIComponent(item.id)}"${current}><span class="q-path">${label}</span>${counts}<span class="q-state">${htmlText(item.request.tool)} · ${STATUS_LABEL[item.status]}${outcome}</span></a></li>`;
  });
  return `<ol class="queue">${rows.join('')}</ol>`;
}

/**
 * What the checks found (which rule asked, each finding: core/finding-words.ts), as a list under the
 * question; '' when nothing. Escaped like every text from a model or a file.
 */
function findingsHtml(findings: readonly Finding[] | undefined): string {
  const lines = findingsLines(findings);
  if (lines.length === 0) return '';
  const items = lines.map((line) => `<li>${htmlText(line)}</li>`).join('');
  return `<ul class="note findings" aria-label="What the checks found">${items}</ul>`;
}

/** One change: the question, its files, where things stand, and the decision buttons. */
export function changeHtml(item: ReviewItem, views: readonly FileView[], layout: DiffLayout): string {
  const { request } = item;
  const read = isReadQuestion(request);
  const session = isSessionReview(request);
  const parts: string[] = [`<article class="change"${session ? ' data-review="session"' : ''}>`];
  parts.push(`<h1>${questionHtml(item)}</h1>`);
  parts.push(`<p class="meta">${htmlText(request.tool)} · asked by ${htmlText(item.source)}</p>`);
  // Each file's note is in its own section (filesHtml); what the checks found is about the whole change.
  parts.push(findingsHtml(request.findings));
  const status = statusText(item);
  parts.push(
    `<div id="status" class="status s-${item.status}" role="status"${status ? '' : ' hidden'}>${status ? htmlText(status) : ''}</div>`,
  );
  if (views.length > 1) {
    const links = views.map((view, index) => `<li><a href="#f${index}">${fileHeading(view.file)}</a></li>`);
    parts.push(`<nav class="files" aria-label="Files of this change"><ol>${links.join('')}</ol></nav>`);
  }
  parts.push(`<div id="files">${filesHtml(views, layout, session)}</div>`);
  if (item.status === 'pending' || item.status === 'stale')
    parts.push(
      session ? sessionDecisionHtml(item.status === 'stale') : decisionHtml(read, item.status === 'stale'),
    );
  parts.push('</article>');
  return parts.join('');
}

/**
 * Each file's section: heading, note, editor (when its new text can be edited) and diff (first page). A
 * file whose hunks can be chosen has a checkbox per hunk (diff-html.ts) and, with several hunks or files,
 * one for the whole file; one that cannot says why (ApprovalFile.wholeOnly). In a session review
 * (`session`) a checked box keeps what the session did and an unchecked one reverts it; a file taken whole
 * (created or deleted in the session) has its file's box, and no file is edited here.
 */
export function filesHtml(views: readonly FileView[], layout: DiffLayout, session = false): string {
  return views
    .map((view, index) => {
      const { file } = view;
      const editable = !session && isEditable(file);
      const edit = editable
        ? ` <button type="button" class="edit" data-file="${index}" title="Edit the new text (e)">Edit</button>`
        : '';
      const hunks = file.diff.hunks.length;
      // A session review keeps or reverts a file taken whole with its own box.
      const wholeBox = session && !view.choosable && !file.binary && hunks > 0;
      const pick =
        (view.choosable && (hunks > 1 || views.length > 1)) || wholeBox
          ? `<label class="pick"><input type="checkbox" class="file" data-file="${index}" checked aria-label="${session ? 'Keep' : 'Write'} ${escapeHtml(file.path)} (every hunk)"></label>`
          : '';
      const whole =
        file.wholeOnly && hunks > 0
          ? `<p class="whole">${session ? 'Kept or reverted whole' : 'No hunks to choose here'}: ${htmlText(file.wholeOnly)}.</p>`
          : '';
      const note = `${file.note ? `<p class="note">${htmlText(file.note)}</p>` : ''}${whole}`;
      const editor = editable
        ? `<div class="editor" hidden><textarea spellcheck="false" aria-label="New text of ${escapeHtml(file.path)}"></textarea><p><button type="button" class="preview">Show the diff of my version</button> <button type="button" class="discard">Discard my edits</button></p></div>`
        : '';
      const message = plainMessage(file);
      const body = message
        ? `<p class="plain">${htmlText(message)}</p>`
        : diffTable(layout, renderPage(view, index, 0, layout) + nextPageRow(view, index, 0));
      const choosable = view.choosable || wholeBox ? ` data-hunks="${hunks}"` : '';
      return `<section class="file" id="f${index}" data-file="${index}" data-path="${escapeHtml(file.path)}"${choosable}><h2>${pick}${fileHeading(file)}${edit}</h2>${note}${editor}${body}</section>`;
    })
    .join('');
}

function questionHtml(item: ReviewItem): string {
  // The files of a change set are listed below the question, each with its path.
  const { request, files } = item;
  if (files.length > 1 && !isSessionReview(request)) return `Apply this change to ${files.length} files?`;
  return approvalQuestion(request, { path: (path) => `<code>${htmlText(path)}</code>`, text: htmlText });
}

/** A button's words: in full, and shorter for a phone's width (review.css shows one of them). */
function label(full: string, short = full): string {
  return short === full
    ? `<span class="label">${full}</span>`
    : `<span class="label long">${full}</span><span class="label short">${short}</span>`;
}

/**
 * The decision buttons (sticky at the bottom of the window, touch-sized on a phone) and the line that says
 * what Allow writes when the person left hunks out (filled by the page's script).
 */
function decisionHtml(read: boolean, stale: boolean): string {
  const labels = read
    ? [
        label('Allow reading once'),
        label('Allow reading this file for the session', 'Allow this file (session)'),
        label('Allow reading any file this session', 'Allow any file (session)'),
      ]
    : [
        label('Allow once'),
        label('Allow this file for the session', 'Allow this file (session)'),
        label('Allow all edits this session', 'Allow all edits (session)'),
      ];
  const disabled = stale ? ' disabled' : '';
  return `<div class="decide" id="decide">
<p id="selection" class="selection" role="status" hidden></p>
<div class="buttons">
<button type="button" class="allow" data-decision="once"${disabled}><kbd>y</kbd> ${labels[0]}</button>
<button type="button" class="allow" data-decision="file"${disabled}><kbd>a</kbd> ${labels[1]}</button>
<button type="button" class="allow" data-decision="all"${disabled}><kbd>A</kbd> ${labels[2]}</button>
<button type="button" class="deny" data-decision="deny"><kbd>n</kbd> ${label('Deny')}</button>
<button type="button" class="deny" data-decision="reason"><kbd>r</kbd> ${label('Deny with a reason…', 'Reason or note…')}</button>
</div>
<div class="reason" hidden><textarea id="reason" maxlength="4000" placeholder="Why, or what to do instead: the agent reads this (Enter sends the denial, Esc cancels)"></textarea><button type="button" class="deny" data-decision="send-reason">Send the denial</button><button type="button" class="allow" data-decision="send-note"${disabled}>Allow once with this note</button></div>
</div>`;
}

/**
 * A session review's one answer (review.js fills the line and the button's words as boxes change): what
 * is reverted and what kept, a note for the agent, and one button. It grants nothing, so it has no grant
 * buttons and no keys that answer.
 */
function sessionDecisionHtml(stale: boolean): string {
  const disabled = stale ? ' disabled' : '';
  return `<div class="decide session-review" id="decide">
<p id="selection" class="selection" role="status">Keep everything: nothing is reverted.</p>
<div class="buttons">
<textarea id="note" maxlength="4000" rows="2" aria-label="A note for the agent (optional)" placeholder="A note for the agent (optional): it reads this with the reasons of each hunk you revert"></textarea>
<button type="button" class="allow submit" data-decision="submit"${disabled}><span class="label">Keep everything</span></button>
</div>
</div>`;
}

/** Where a change stands, in a sentence; '' while it simply waits. */
export function statusText(item: ReviewItem): string {
  if (item.status === 'answered' && item.outcome) return outcomeText(item.outcome, item.request);
  if (item.status === 'stale' && isSessionReview(item.request)) return staleReviewText(item.request);
  if (item.status === 'stale')
    return `${item.statusNote ?? 'The file changed on disk.'} You can still deny it.`;
  if (item.status === 'withdrawn')
    return item.statusNote ?? 'This change is no longer waiting for an answer.';
  return '';
}

export function outcomeText(outcome: ReviewOutcome, request: ApprovalQuestion): string {
  const said = describeDecision(outcome.decision, request);
  return `Answered ${outcome.by}: ${said}${said.endsWith('.') ? '' : '.'}`;
}

/** A decision in words: a session review's in its own (what is reverted, what kept). */
export function describeDecision(decision: Decision, request: ApprovalQuestion): string {
  if (isSessionReview(request)) return reviewDecisionText(request, decision);
  if (decision === 'once') return 'allowed once';
  if (decision === 'file') return 'allowed, and this file for the rest of the session';
  if (decision === 'all') return 'allowed, and every edit for the rest of the session';
  if (decision === 'deny') return 'denied';
  if ('edited' in decision) return 'allowed with your own version of the new text';
  if ('hunks' in decision)
    return `allowed in part: ${hunkChoicesText(decision.hunks)}${decision.reason?.trim() ? `; note: ${decision.reason.trim()}` : ''}`;
  if ('reason' in decision) return `allowed: ${decision.reason}`;
  return `denied: ${decision.deny}`;
}

/** Reasons quoted in a decision's sentence; the model reads them all. */
const REASONS_TOLD = 3;
const REASON_CHARS = 80;

/** Per file, the hunks written and those not (1-based, as the page numbers them), with a few reasons. */
function hunkChoicesText(choices: HunkChoices): string {
  let told = 0;
  const files = Object.entries(choices).map(([path, { accept, reject = [] }]) => {
    const written = accept.length > 0 ? `${hunkNumbers(accept)} written` : 'nothing written';
    if (reject.length === 0) return `${path}: ${written}`;
    const reasons = reject.flatMap(({ reason }) => (reason?.trim() ? [reason.trim()] : []));
    const quoted = reasons.slice(0, Math.max(0, REASONS_TOLD - told)).map((reason) => {
      return reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS)}…` : reason;
    });
    told += quoted.length;
    const more = reasons.length - quoted.length;
    const why =
      quoted.length > 0 || more > 0
        ? ` (${[...quoted, ...(more > 0 ? [`${more} more reason${more === 1 ? '' : 's'}`] : [])].join('; ')})`
        : '';
    return `${path}: ${written}, ${hunkNumbers(reject.map(({ hunk }) => hunk))} not${why}`;
  });
  return files.join('; ');
}

/** 0-based hunk indexes as the page shows them: "hunk 2", "hunks 1, 3 and 5-9". */
function hunkNumbers(indexes: readonly number[]): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b).map((index) => index + 1);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j + 1;
  }
  const list = runs.length > 1 ? `${runs.slice(0, -1).join(', ')} and ${runs.at(-1)}` : runs[0];
  return `${sorted.length === 1 ? 'hunk' : 'hunks'} ${list}`;
}

/**
 * What a decision on a session review does, in a sentence for the person (the review page's answer, its
 * list): the choice's summary (core/approval-question.ts, the terminal walk's own line), and the note for the agent when there is one.
 */
export function reviewDecisionText(question: ApprovalQuestion, decision: Decision): string {
  const note = typeof decision === 'object' && 'reason' in decision ? decision.reason?.trim() : undefined;
  const said =
    decision === 'deny' || (typeof decision === 'object' && 'deny' in decision)
      ? 'Revert everything'
      : typeof decision === 'object' && 'edited' in decision
        ? 'Write your own version'
        : typeof decision === 'object' && 'hunks' in decision
          ? sessionReviewSummary(question, decision.hunks)
          : sessionReviewSummary(question, {});
  return note ? `${said}${said.endsWith('.') ? '' : '.'} Note for the agent: ${note}` : said;
}
