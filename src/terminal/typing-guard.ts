/**
 * Whether a key is an answer to the question on screen, or a person still typing something else.
 *
 * A question (the chat's card, the CLI's approval prompt, the proxy's terminal question) often appears while
 * the person is typing: a message for the model, a command in another program. Its keys are ordinary
 * letters (y, a, n, r), so a sentence typed across its appearance would answer it: the `a` of "please" once
 * approved a file for the whole session. The rule, in one place for every face:
 *
 * - Keys come in runs: a key less than TYPING_PAUSE_MS after the one before belongs to the same run.
 * - A key of a run that began before the question was on screen is typing, however long the run goes on
 *   after it appeared: it goes to the input line it was typed for (or is dropped where there is none),
 *   never to the question.
 * - A question is answered by the first key of a run that began after it was on screen, that is, the first
 *   key after a pause. The rest of that run is not an answer either: someone answering presses one key and
 *   looks; someone who starts typing `please` was not saying `p`, `l`, `e`, then `a` for "this file".
 * - A view opened by an answer (the pager after `v`) takes the rest of the run that opened it; when it
 *   closes, the question is on screen anew, so keys of that run (a `q` and whatever follows it fast) do not
 *   answer the question.
 *
 * Esc and Ctrl-C are the callers' business: they only ever refuse or stop, so a caller may let them through.
 */

/**
 * Half a second: a person typing a sentence presses a key every 80-300 ms (measured typing runs rarely
 * pause longer inside a word or between words), while reading a question that just appeared and deciding
 * takes longer than this. A slower typist's key after a longer gap counts as a new run, and its first key
 * may answer: that is the person who stopped typing.
 */
export const TYPING_PAUSE_MS = 500;

/**
 * - `typing`: a key of a run that began before the question was on screen (or with no question on screen);
 * - `answer`: the first key after a pause, with the question on screen;
 * - `more`: a later key of a run that began with the question on screen (a view it opened takes these).
 */
export type KeyRole = 'typing' | 'answer' | 'more';

export class TypingGuard {
  private lastKeyAt = Number.NEGATIVE_INFINITY;
  private runStartedAt = Number.NEGATIVE_INFINITY;
  private keysInRun = 0;
  /** Since when the question is on screen; undefined while none is. */
  private shownAt: number | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * A key arrived at `at` (when the read that held it came in: keys of one read share it). Call it for
   * every key, question or not, so runs are known when a question appears.
   */
  key(at: number = this.now()): KeyRole {
    if (at - this.lastKeyAt >= TYPING_PAUSE_MS) {
      this.runStartedAt = at;
      this.keysInRun = 0;
    }
    this.lastKeyAt = Math.max(this.lastKeyAt, at);
    this.keysInRun++;
    if (this.shownAt === undefined || this.runStartedAt < this.shownAt) return 'typing';
    return this.keysInRun === 1 ? 'answer' : 'more';
  }

  /** The question is on screen from now (see `settled` for when that is). */
  shown(at: number = this.now()): void {
    this.shownAt = at;
  }

  /** A view opened by the key just judged `answer` takes the rest of its run (`more`). */
  openedByThisRun(): void {
    this.shownAt = this.runStartedAt;
  }

  /** No question on screen: every key is typing until the next `shown`. */
  hidden(): void {
    this.shownAt = undefined;
  }
}

/**
 * Waits until keys already waiting in the terminal have been read (three turns of the event loop, no timer).
 * Bytes typed while the process was busy arrive in the first poll after reading starts, which lies between
 * the first and second turn (measured in a real pty); a question drawn before that would be "on screen"
 * before keys typed long before it. So: draw, wait for these, then call `shown`.
 */
export async function settled(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}
