/**
 * The changes waiting on the review page, and the rules of answering one: a decision names the hash of the
 * diff the person saw, and is refused (ReviewConflict, HTTP 409) when that is no longer the pending diff,
 * when the change was already answered (here or elsewhere: a replay), or, for an approval, when the file
 * changed on disk since the diff was made. Answered changes stay listed (the latest few) with who answered.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { loadHighlighter } from '../core/highlight.js';
import { type AnsweredFrom, type ApprovalQuestion, type Decision, isReadQuestion } from '../gate/approval.js';
import { checkHunkChoices, planTakes } from '../gate/hunk-decision.js';
import { noApproverError } from '../gate/no-approver.js';
import { isSessionReview, staleReviewText } from '../gate/session-review.js';
import { FileView, renderPage } from './diff-html.js';
import { EditRefused, filesOf, type ReviewFile, reviewHash, reviseFiles } from './review-files.js';
import { type StaleWatch, type WatchedFile, watchForChanges } from './stale-watch.js';
import type { answerSchema } from './wire.js';

export type ReviewStatus = 'pending' | 'stale' | 'answered' | 'withdrawn';

export interface ReviewOutcome {
  /** Where it was answered, as it reads after "Answered ": "in the browser", "in the terminal". */
  by: string;
  decision: Decision;
  at: number;
  /** Where the answer came from, when over the network (the audit line records it). */
  from?: AnsweredFrom;
}

export interface ReviewItem {
  id: string;
  request: ApprovalQuestion;
  files: ReviewFile[];
  hash: string;
  /** Who asked: "editgate edit", "editgate mcp (pid 4242)". */
  source: string;
  createdAt: number;
  status: ReviewStatus;
  outcome?: ReviewOutcome;
  /** Why it is stale or withdrawn, in words for the page. */
  statusNote?: string;
}

/** What the person answers on the page (or a script through the API): its wire schema's type. */
export type ReviewAnswer = z.infer<typeof answerSchema>;

export type ReviewEvent = { type: 'added' | 'updated'; item: ReviewItem };

/** A decision that cannot be accepted for the change as it is now: HTTP 409. */
export class ReviewConflict extends Error {}
/** A decision or request that makes no sense (a bad edit, an unknown file): HTTP 400. */
export class ReviewInvalid extends Error {}

interface Entry {
  item: ReviewItem;
  settle(decision: Decision): void;
  fail(error: Error): void;
  watch?: StaleWatch;
  /** Settles once the watch is set up (undefined: nothing to watch, or it could not be). */
  watchReady?: Promise<StaleWatch | undefined>;
  views?: Promise<FileView[]>;
  deciding: boolean;
  /** Tells the asker where the answer came from (before it resolves). */
  answeredFrom?: (from: AnsweredFrom) => void;
}

export interface ReviewQueueOptions {
  /** The absolute path of a workspace-relative path, for watching it; undefined when it cannot be told. */
  locate(path: string): string | undefined;
  /** How many answered changes stay listed. Default 20. */
  keepAnswered?: number;
  /**
   * A change no one answers within this long is refused: DENIED_NO_APPROVER, saying so (no one said no, and
   * nothing is ever allowed for want of an answer). Default: it waits until answered or withdrawn.
   */
  answerTimeoutMs?: number;
}

/** How a decision came: from a change's link (scoped: that change, once, no wider grant) or the page. */
export interface DecideOptions {
  from?: AnsweredFrom;
  /** Answered through a change's link: a grant for the file or the session is not its to give. */
  scoped?: boolean;
}

export const STALE_DENIAL =
  'The file changed on disk while this change waited for review, so it was not written. Read the file again and make the change anew if it is still needed.';

export class ReviewQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(event: ReviewEvent) => void>();
  private closed = false;

  constructor(private readonly options: ReviewQueueOptions) {}

  /** Puts a change on the page; resolves with the person's decision (or one given elsewhere, see `signal`). */
  add(
    request: ApprovalQuestion,
    options: {
      source: string;
      signal?: AbortSignal;
      onQueued?: (item: ReviewItem) => void;
      answeredFrom?: (from: AnsweredFrom) => void;
    },
  ): Promise<Decision> {
    if (this.closed) return Promise.reject(new Error('the review page has closed'));
    const { signal } = options;
    signal?.throwIfAborted();
    const files = filesOf(request);
    const item: ReviewItem = {
      id: randomBytes(9).toString('base64url'),
      request,
      files,
      hash: reviewHash(request, files),
      source: options.source,
      createdAt: Date.now(),
      status: 'pending',
    };
    return new Promise<Decision>((resolve, reject) => {
      const entry: Entry = { item, settle: resolve, fail: reject, deciding: false };
      if (options.answeredFrom) entry.answeredFrom = options.answeredFrom;
      this.entries.set(item.id, entry);
      const timeoutMs = this.options.answerTimeoutMs;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              if (item.status !== 'pending' && item.status !== 'stale') return;
              const why = `no one answered it on the review page within ${describeDuration(timeoutMs)}`;
              this.finish(entry, 'withdrawn', undefined, `Refused: ${why} (nothing was written).`);
              entry.fail(noApproverError(request, why, NO_ANSWER_ADVICE));
            }, timeoutMs);
      timer?.unref();
      const onAbort = () => {
        // Answered on another front end (the terminal): shown as such; anything else withdraws it.
        const reason = signal!.reason as { by?: unknown; decision?: unknown } | undefined;
        if (reason && typeof reason.by === 'string' && reason.decision !== undefined) {
          this.finish(entry, 'answered', {
            by: reason.by,
            decision: reason.decision as Decision,
            at: Date.now(),
          });
        } else
          this.finish(entry, 'withdrawn', undefined, 'The process that asked stopped waiting for an answer.');
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      entry.settle = (decision) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(decision);
      };
      entry.fail = (error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      };
      this.startWatching(entry);
      this.emit({ type: 'added', item });
      options.onQueued?.(item);
      // Render the first page ahead (word emphasis and syntax per hunk are kept), so the page opens fast.
      setImmediate(() => this.warm(item.id));
    });
  }

  get(id: string): ReviewItem | undefined {
    return this.entries.get(id)?.item;
  }

  /** Pending changes first (oldest first), then answered ones (latest first). */
  list(): ReviewItem[] {
    const items = [...this.entries.values()].map((entry) => entry.item);
    const open = items.filter((item) => item.status === 'pending' || item.status === 'stale');
    const done = items.filter((item) => item.status === 'answered' || item.status === 'withdrawn').reverse();
    return [...open, ...done];
  }

  /** The rendering state of a change's files (highlighter loaded, per-hunk work cached). */
  views(id: string): Promise<FileView[]> | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    entry.views ??= Promise.all(
      entry.item.files.map(
        async (file) => new FileView(file, file.binary ? undefined : await loadHighlighter(file.path)),
      ),
    );
    return entry.views;
  }

  private async warm(id: string): Promise<void> {
    const views = await this.views(id)?.catch(() => undefined);
    if (!views || this.entries.get(id)?.item.status !== 'pending') return;
    for (const [index, view] of views.entries()) renderPage(view, index, 0, 'unified');
  }

  /** The person's version of a change: its files and the hash a decision for it must quote. */
  revise(id: string, edited: Record<string, string>): { files: ReviewFile[]; hash: string } {
    const item = this.mustGet(id);
    try {
      const files = reviseFiles(item.files, edited);
      return { files, hash: reviewHash(item.request, files) };
    } catch (error) {
      if (error instanceof EditRefused)
        throw new ReviewInvalid(`Your version cannot be used: ${error.message}.`);
      throw error;
    }
  }

  /** Accepts the person's answer, or throws ReviewConflict / ReviewInvalid saying why not. */
  async decide(
    id: string,
    answer: ReviewAnswer,
    by = 'in the browser',
    options: DecideOptions = {},
  ): Promise<ReviewOutcome> {
    const entry = this.entries.get(id);
    if (!entry) throw new ReviewInvalid(`There is no change ${id}.`);
    if (options.scoped && (answer.decision === 'file' || answer.decision === 'all'))
      throw new ReviewInvalid(
        `A change's link answers that change alone: allow it once, or deny it. Allowing ${answer.decision === 'file' ? 'every change to this file' : 'every change'} for the session is done on the review page of this machine.`,
      );
    const { item } = entry;
    if (item.status === 'answered' || item.status === 'withdrawn' || entry.deciding) {
      throw new ReviewConflict(
        `This change was already answered${item.outcome ? ` ${item.outcome.by}` : ''}; a decision counts once.`,
      );
    }
    const reason = answer.reason?.trim() ?? '';
    // A choice of hunks that writes nothing is a denial (with the reasons): a stale change may still get it.
    const allow = answer.hunks ? hunksWrite(item, answer) : answer.decision !== 'deny';
    let expected = item.hash;
    if (answer.edited) {
      if (!allow) throw new ReviewInvalid('Your own version goes with an approval, not a denial.');
      if (reason)
        throw new ReviewInvalid(
          'Your own version carries no note: send it without "reason" (the model is told what you changed), or approve the proposed diff with the note.',
        );
      expected = this.revise(id, answer.edited).hash;
    }
    if (answer.hash !== expected) {
      throw new ReviewConflict(
        'This decision is about a diff that is no longer the one pending (it was recomputed or replaced). Reload the page and judge the diff as it is now.',
      );
    }
    // A session review's every answer writes (a denial reverts everything): none is taken once stale.
    const writes = allow || isSessionReview(item.request);
    if (writes && item.status === 'stale') throw new ReviewConflict(staleMessage(item));
    entry.deciding = true;
    try {
      // An answer may come before the watch is set up: it waits for it, so a change made meanwhile is seen.
      const watch = entry.watch ?? (await entry.watchReady);
      if (writes && watch && (await watch.check()) !== undefined) {
        throw new ReviewConflict(staleMessage(item));
      }
      if (item.status !== 'pending' && item.status !== 'stale') {
        throw new ReviewConflict(
          `This change was already answered${item.outcome ? ` ${item.outcome.by}` : ''}.`,
        );
      }
    } finally {
      entry.deciding = false;
    }
    let decision: Decision;
    if (answer.decision === 'deny')
      decision = reason ? { deny: reason } : item.status === 'stale' ? { deny: STALE_DENIAL } : 'deny';
    else if (answer.edited) decision = { allow: answer.decision, edited: answer.edited };
    else if (answer.hunks)
      decision = { allow: answer.decision, hunks: answer.hunks, ...(reason ? { reason } : {}) };
    else decision = reason ? { allow: answer.decision, reason } : answer.decision;
    const outcome: ReviewOutcome = {
      by,
      decision,
      at: Date.now(),
      ...(options.from ? { from: options.from } : {}),
    };
    this.finish(entry, 'answered', outcome);
    if (options.from) entry.answeredFrom?.(options.from);
    entry.settle(decision);
    return outcome;
  }

  subscribe(listener: (event: ReviewEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops watching; changes still waiting are withdrawn and their askers told that the page closed. */
  close(): void {
    this.closed = true;
    for (const entry of this.entries.values()) {
      entry.watch?.stop();
      if (entry.item.status === 'pending' || entry.item.status === 'stale') {
        entry.item.status = 'withdrawn';
        entry.item.statusNote = 'The review page closed.';
        entry.fail(new Error('the review page closed before the change was answered'));
      }
    }
  }

  private mustGet(id: string): ReviewItem {
    const item = this.entries.get(id)?.item;
    if (!item) throw new ReviewInvalid(`There is no change ${id}.`);
    return item;
  }

  private startWatching(entry: Entry): void {
    const { item } = entry;
    // Where each file is and the version its diff was made from, as the gate said (with several roots, a
    // file may be under any of them); a request without a base is located under the page's root.
    const files = item.files.flatMap((file): WatchedFile[] => {
      if (file.base) return [{ path: file.base.absolutePath, base: file.base.fingerprint }];
      const path = this.options.locate(file.path);
      return path ? [{ path }] : [];
    });
    if (files.length === 0) return;
    entry.watchReady = watchForChanges(files, () => {
      if (item.status !== 'pending') return;
      item.status = 'stale';
      item.statusNote = 'The file changed on disk after this diff was made, so it can no longer be approved.';
      this.emit({ type: 'updated', item });
    }).then(
      (watch) => {
        if (item.status === 'answered' || item.status === 'withdrawn') watch.stop();
        else entry.watch = watch;
        return watch;
      },
      () => undefined,
    );
  }

  private finish(
    entry: Entry,
    status: 'answered' | 'withdrawn',
    outcome?: ReviewOutcome,
    note?: string,
  ): void {
    const { item } = entry;
    entry.watch?.stop();
    item.status = status;
    if (outcome) item.outcome = outcome;
    if (note) item.statusNote = note;
    this.emit({ type: 'updated', item });
    this.forgetOld();
  }

  private forgetOld(): void {
    const keep = this.options.keepAnswered ?? 20;
    const done = [...this.entries.values()].filter(
      (entry) => entry.item.status === 'answered' || entry.item.status === 'withdrawn',
    );
    for (const entry of done.slice(0, Math.max(0, done.length - keep))) this.entries.delete(entry.item.id);
  }

  private emit(event: ReviewEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/**
 * Whether an answer that chooses hunks writes anything, or why it cannot be taken (ReviewInvalid): hunks go
 * with an approval of the proposed diff (a note may come with them), not with the person's version, and must fit the change (gate/hunk-decision.ts, the gate's
 * own rule, so the page refuses what the gate would).
 */
function hunksWrite(item: ReviewItem, answer: ReviewAnswer): boolean {
  if (answer.decision === 'deny') {
    throw new ReviewInvalid(
      '"hunks" goes with an approval ("once", "file" or "all"): to refuse the whole change, send "deny" without "hunks".',
    );
  }
  if (answer.edited) {
    throw new ReviewInvalid(
      'Choose hunks of the proposed diff or send your own version ("edited"), not both: your version is written whole.',
    );
  }
  if (isReadQuestion(item.request))
    throw new ReviewInvalid('A question to read a file has no hunks to choose.');
  const checked = checkHunkChoices(item.request, answer.hunks);
  if ('problem' in checked) {
    throw new ReviewInvalid(`${checked.problem[0]!.toUpperCase()}${checked.problem.slice(1)}.`);
  }
  return planTakes(checked.files) !== 'none';
}

/** What would let a change that timed out through: said with its refusal. */
export const NO_ANSWER_ADVICE =
  'The user can answer sooner (a notification with a link can be set up: "notify" in ~/.config/editgate/config.json), allow more time ("answerTimeoutMinutes"), or answer in the terminal.';

function describeDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  return `${Math.round(ms / 1000)} second${Math.round(ms / 1000) === 1 ? '' : 's'}`;
}

function staleMessage(item: ReviewItem): string {
  if (isSessionReview(item.request)) return staleReviewText(item.request);
  return `The file changed on disk after this diff was made, so it can no longer be approved. Deny it, and the agent is told to read the file again${item.status === 'stale' ? '' : ' (reload the page to see it as stale)'}.`;
}
