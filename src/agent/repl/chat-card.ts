import type { LineHighlighter } from '../../core/highlight.js';
import { type ApprovalQuestion, type Decision, isReadQuestion } from '../../gate/approval.js';
import { answeredElsewhere } from '../../gate/first-answer.js';
import { paint } from '../../terminal/colors.js';
import { editableText, editInEditor, withYourVersion } from '../../terminal/edit-in-editor.js';
import { HunkWalk, offersWalk, WALK_HELP, WALK_KEY, walkUnavailable } from '../../terminal/hunk-walk.js';
import { WALK_REASON_LABEL, walkConfirmQuestion, walkHunkDiff } from '../../terminal/hunk-walk-view.js';
import type { Key } from '../../terminal/keys.js';
import { highlighterFor, renderRequestDiff } from '../../terminal/preview.js';
import type { TerminalInput, TerminalOutput } from '../../terminal/tty-modes.js';
import { settled, type TypingGuard } from '../../terminal/typing-guard.js';
import { type CardSubject, commandRows, renderCard, renderWalkCard, renderYoursCard } from '../ui/card.js';
import { InputEditor } from '../ui/input-editor.js';
import type { InputEvent, InputKey } from '../ui/input-keys.js';
import type { LiveScreen, LiveView } from '../ui/live-screen.js';
import { fitText, type Look } from '../ui/transcript.js';
import { decisionWords } from './call-state.js';

/** Under the card when keys went to the message: why they did not answer it, and how to. */
export const KEPT_MESSAGE =
  'Your message (keys typed fast are kept here): pause, then press a key to answer.';

/** What the chat lends its card: the screen, the typing guard, the pager, and where an answer goes. */
export interface CardHost {
  readonly screen: LiveScreen;
  /** Which keys answer the card and which are typing for the input line (terminal/typing-guard.ts). */
  readonly guard: TypingGuard;
  /** The message being typed, kept (and shown) under the card. */
  readonly editor: InputEditor;
  look(): Look;
  note(text: string): void;
  /** The person answered (here or elsewhere): the running call's decision. */
  decided(decision: Decision): void;
  /** Esc or Ctrl-C on the card: no, and the turn stops. */
  stopTurn(): void;
  /** Shows lines in the full-screen pager; resolves when it closes. */
  page(render: (width: number) => string[]): Promise<void>;
  /** Closes an open pager as on end of input. */
  closePager(): void;
  /** Lines for the transcript. */
  print(lines: string[]): void;
  /** Runs `run` (the person's editor) with the terminal handed over: the live region off, then drawn again. */
  handOver<T>(run: (terminal: { input: TerminalInput; output: TerminalOutput }) => T): T;
}

interface Card {
  subject: CardSubject;
  resolve: (decision: Decision) => void;
  /** Typing a line: the reason for a no after r, the note with a yes after +, or why not a hunk (walk). */
  line?: { kind: 'reason' | 'note' | 'hunk'; editor: InputEditor };
  /**
   * Whether its keys are on screen, for the typing guard: `yes` from the frame that shows them; `no` while
   * the reason or note line hides them (and when they come back, until they are drawn); `pager` while v's pager is.
   */
  onScreen: 'no' | 'yes' | 'pager';
  /** After e: the person's version of the new text, asked once more before it is written. */
  yours?: string;
  /** After h: the hunks asked one by one (each printed to the transcript as it is asked). */
  walk?: { steps: HunkWalk; highlighter: LineHighlighter | undefined };
}

/** The line typed after r or +, as the card labels it. */
const LINE_LABEL = {
  reason: 'Reason (Enter to send, Esc to go back): ',
  note: 'Note for the model (Enter to approve, Esc to go back): ',
  hunk: WALK_REASON_LABEL,
} as const;

/**
 * The permission card in the chat's live region: one question at a time (a change, a command, the
 * project's config), answered by one key, a reason typed after r, a note typed after + (yes, and the model
 * reads the note with its result), the proposed text edited in the person's editor after e (its diff then
 * asked once more), or the whole diff in the pager after v.
 */
export class ChatCard {
  private card: Card | undefined;

  constructor(private readonly host: CardHost) {}

  /** A card is asked (on screen, or about to be once keys already waiting are read). */
  get open(): boolean {
    return this.card !== undefined;
  }

  /** The card's keys are hidden by the pager it opened (v). */
  get paging(): boolean {
    return this.card?.onScreen === 'pager';
  }

  /**
   * Asks `subject`. With --approve web the same question is on the review page too (firstAnswer): when it
   * is answered there, `signal` aborts with an AnsweredElsewhere, the card (and its pager) goes away and
   * the transcript says who answered and how.
   */
  ask(subject: CardSubject, signal?: AbortSignal): Promise<Decision> {
    const { host } = this;
    return new Promise<Decision>((resolve, reject) => {
      const takenBack = () => {
        if (this.card !== card) return;
        this.card = undefined;
        host.guard.hidden();
        // The card's diff may be open in the pager: it closes as on end of input.
        host.closePager();
        host.screen.dirty();
        const elsewhere = answeredElsewhere(signal!.reason);
        if (!elsewhere) {
          reject(signal!.reason);
          return;
        }
        host.decided(elsewhere.decision);
        host.note(`${decisionWords(elsewhere.decision)} (answered ${elsewhere.by})`);
        resolve(elsewhere.decision);
      };
      const card: Card = {
        subject,
        onScreen: 'no',
        resolve: (decision) => {
          signal?.removeEventListener('abort', takenBack);
          this.card = undefined;
          host.guard.hidden();
          host.decided(decision);
          host.screen.dirty();
          resolve(decision);
        },
      };
      // Keys already waiting (typed before the card could be seen) are read first: typing, for the input.
      void settled().then(() => {
        this.card = card;
        host.guard.hidden();
        if (signal?.aborted) takenBack();
        else {
          signal?.addEventListener('abort', takenBack, { once: true });
          host.screen.dirty();
        }
      });
    });
  }

  /** The chat is leaving: an open card is refused. */
  refuse(): void {
    this.card?.resolve('deny');
  }

  /** The pager the card opened has closed: the card is drawn anew, on screen again from that frame. */
  pagerClosed(): void {
    if (this.card?.onScreen === 'pager') this.card.onScreen = 'no';
  }

  /**
   * A key while the card is open; true when the card took it, false when it is the input line's. While a
   * reason or a note is typed every key is the line's; otherwise only a key the guard judged an answer (or Esc and
   * Ctrl-C, which only ever refuse and stop: they reach the card typed fast or not).
   */
  key(event: InputEvent, answer: boolean): boolean {
    const card = this.card;
    if (!card) return false;
    if (card.line) {
      this.lineKey(card, card.line, event);
      return true;
    }
    if (event.type !== 'key' || !isTerminalKey(event.key)) return false;
    const refusal = event.key.name === 'escape' || event.key.name === 'ctrl-c';
    return (refusal || answer) && this.cardKey(card, event.key);
  }

  /**
   * Typing the reason after r or the note after +: every key is the line's (the person chose to type it).
   * Enter answers: no with the reason, or yes (this change) with the note; an empty line is a plain no or
   * yes.
   */
  private lineKey(card: Card, line: NonNullable<Card['line']>, event: InputEvent): void {
    const key = event.type === 'key' ? event.key : undefined;
    if (line.kind === 'hunk') {
      // Why not this hunk: Enter gives it (an empty line, or Esc, none), and the walk goes on.
      if (key?.name === 'enter' || key?.name === 'escape' || key?.name === 'ctrl-c') {
        card.line = undefined;
        const walk = card.walk!;
        walk.steps.reason(key.name === 'enter' ? line.editor.text : '');
        this.walkAsked(card, walk);
      } else line.editor.handle(event);
      this.host.screen.dirty();
      return;
    }
    if (key?.name === 'escape' || key?.name === 'ctrl-c') {
      card.line = undefined;
      // Back to the question: on screen anew, answered by the first key after a pause.
      card.onScreen = 'no';
    } else if (key?.name === 'enter') {
      const text = line.editor.text.trim();
      if (line.kind === 'reason') card.resolve(text ? { deny: text } : 'deny');
      else card.resolve(text ? { allow: 'once', reason: text } : 'once');
      return;
    } else line.editor.handle(event);
    this.host.screen.dirty();
  }

  /** r, + or a walk's n: the card's keys give way to a line to type. */
  private openLine(card: Card, kind: 'reason' | 'note' | 'hunk'): void {
    card.line = { kind, editor: new InputEditor() };
    card.onScreen = 'no';
    this.host.screen.dirty();
  }

  /** A key the guard lets answer the card; false when it is none of the card's (it goes to the input). */
  private cardKey(card: Card, key: Key): boolean {
    if (card.subject.kind === 'trust') {
      // Two answers only: no reason to type, no grants, and no turn to stop.
      if (key.name === 'char' && key.char === 'y') card.resolve('once');
      else if (key.name === 'escape' || key.name === 'ctrl-c' || (key.name === 'char' && key.char === 'n'))
        card.resolve('deny');
      else return false;
      return true;
    }
    if (key.name === 'escape' || key.name === 'ctrl-c') {
      this.host.stopTurn();
      card.resolve('deny');
      return true;
    }
    if (key.name !== 'char') return false;
    if (card.yours !== undefined && card.subject.kind === 'change')
      return this.yoursKey(card, card.subject.request, card.yours, key.char);
    if (card.walk) return this.walkKey(card, card.walk, key.char);
    const change = card.subject.kind === 'change';
    switch (key.char) {
      case 'y':
        card.resolve('once');
        return true;
      case 'a':
        if (!change) return false;
        card.resolve('file');
        return true;
      case 'A':
        if (!change) return false;
        card.resolve('all');
        return true;
      case 'n':
        card.resolve('deny');
        return true;
      case 'r':
        this.openLine(card, 'reason');
        return true;
      case '+':
        // Only a change's result carries a note to the model (a command's or a read's does not).
        if (card.subject.kind !== 'change' || isReadQuestion(card.subject.request)) return false;
        this.openLine(card, 'note');
        return true;
      case 'e': {
        const subject = card.subject;
        if (subject.kind !== 'change') return false;
        const proposed = editableText(subject.request);
        if (proposed === undefined) return false;
        void this.edit(card, subject.request, proposed);
        return true;
      }
      case WALK_KEY: {
        const subject = card.subject;
        if (subject.kind !== 'change' || !offersWalk(subject.request)) return false;
        const unavailable = walkUnavailable(subject.request);
        if (unavailable) this.host.note(`Not hunk by hunk: ${unavailable}.`);
        else void this.startWalk(card, subject.request);
        return true;
      }
      case 'v': {
        const subject = card.subject;
        if (subject.kind === 'change' && isReadQuestion(subject.request)) return false;
        card.onScreen = 'pager';
        // The rest of the run that pressed v is the pager's.
        this.host.guard.openedByThisRun();
        if (subject.kind === 'change') void this.viewDiff(subject.request);
        else
          void this.host.page((width) =>
            commandRows(subject.request.command, { ...this.host.look(), width }, width),
          );
        return true;
      }
      default:
        return false;
    }
  }

  /** h: the walk begins with its first hunk in the transcript. */
  private async startWalk(card: Card, request: ApprovalQuestion): Promise<void> {
    const highlighter = await highlighterFor(request, this.display(this.host.look()));
    if (this.card !== card) return;
    const walk = { steps: new HunkWalk(request), highlighter };
    card.walk = walk;
    this.walkAsked(card, walk);
  }

  /**
   * The walk moved on: the next hunk goes to the transcript, or, after the last, the line of what will be
   * written; either way the card's keys are drawn anew, and answer only after a pause (the typing guard).
   */
  private walkAsked(card: Card, walk: NonNullable<Card['walk']>): void {
    if (card.subject.kind !== 'change') return;
    const { request } = card.subject;
    const look = this.host.look();
    const place = walk.steps.current();
    if (place)
      this.host.print(
        walkHunkDiff(request, place, this.display(look), look.width, walk.highlighter ?? undefined),
      );
    else this.host.print([paint(walkConfirmQuestion(walk.steps), look.palette.question, look.level)]);
    card.onScreen = 'no';
    this.host.screen.dirty();
  }

  /**
   * A key of the walk (hunk-walk.ts): y, n (then why), a, d for the hunk asked; q back to the question; ?
   * the help in the transcript. After the last hunk: y answers with the choice, n goes back to the question.
   */
  private walkKey(card: Card, walk: NonNullable<Card['walk']>, char: string): boolean {
    const backToQuestion = () => {
      card.walk = undefined;
      card.onScreen = 'no';
      this.host.screen.dirty();
    };
    if (!walk.steps.current()) {
      if (char === 'y') card.resolve(walk.steps.decision());
      else if (char === 'n' || char === 'q') backToQuestion();
      else return false;
      return true;
    }
    switch (walk.steps.press(char)) {
      case 'ignored':
        return false;
      case 'back':
        backToQuestion();
        return true;
      case 'help': {
        const look = this.host.look();
        this.host.print(WALK_HELP.map((line) => paint(`  ${line}`, look.palette.note, look.level)));
        card.onScreen = 'no';
        this.host.screen.dirty();
        return true;
      }
      case 'reason':
        this.openLine(card, 'hunk');
        return true;
      default:
        this.walkAsked(card, walk);
        return true;
    }
  }

  /** "Write your version?": y writes it, e edits it again, n goes back to the question. */
  private yoursKey(card: Card, request: ApprovalQuestion, yours: string, char: string): boolean {
    if (char === 'y') card.resolve({ allow: 'once', edited: { [request.files[0]!.path]: yours } });
    else if (char === 'e') void this.edit(card, request, yours);
    else if (char === 'n') {
      card.yours = undefined;
      card.onScreen = 'no';
      this.host.screen.dirty();
    } else return false;
    return true;
  }

  /**
   * `text` in the person's editor (terminal/edit-in-editor.ts). What they saved goes to the transcript as
   * the diff of their version against the file, and the card asks whether to write it; an editor that
   * failed, or the proposal saved unchanged, leaves the card as it was, with a note.
   */
  private async edit(card: Card, request: ApprovalQuestion, text: string): Promise<void> {
    const outcome = this.host.handOver((terminal) => editInEditor(text, request.files[0]!.path, terminal));
    // Drawn anew after the editor: on screen again from that frame.
    card.onScreen = 'no';
    if (this.card !== card) return;
    if (outcome.kind === 'failed' || (outcome.kind === 'unchanged' && card.yours === undefined)) {
      this.host.note(
        outcome.kind === 'failed'
          ? `Back to the question: ${outcome.reason}.`
          : 'Back to the question: the text was saved unchanged.',
      );
      this.host.screen.dirty();
      return;
    }
    if (outcome.kind === 'edited') card.yours = outcome.text;
    const mine = withYourVersion(request, card.yours ?? text);
    const look = this.host.look();
    const display = this.display(look);
    const diff = renderRequestDiff(mine, display, look.width, await highlighterFor(mine, display));
    this.host.print([paint('Your version:', look.palette.note, look.level), ...diff]);
    this.host.screen.dirty();
  }

  /** How a diff is drawn at the chat's look, the height being the screen's. */
  private display(look: Look) {
    return {
      level: look.level,
      theme: look.palette.theme,
      width: look.width,
      height: this.host.screen.height,
      tabWidth: 4,
    };
  }

  /** The whole diff in the full-screen pager; the card is back when it closes. */
  private async viewDiff(request: ApprovalQuestion): Promise<void> {
    const display = this.display(this.host.look());
    const highlighter = await highlighterFor(request, display);
    await this.host.page((width) => renderRequestDiff(request, display, width, highlighter));
  }

  /**
   * The card's rows of the live region (after `above`), with the reason line or the message kept under
   * it; undefined when no card is open. Called right before the frame is written: the card's keys are on
   * screen from this frame.
   */
  view(above: string[], look: Look, keyMark: string): LiveView | undefined {
    const card = this.card;
    if (!card) return undefined;
    const { width, level, palette } = look;
    const lines = [
      ...above,
      ...(card.subject.kind !== 'change'
        ? renderCard(card.subject, look)
        : card.yours !== undefined
          ? renderYoursCard(card.subject.request, look)
          : card.walk
            ? renderWalkCard(card.subject.request, card.walk.steps, look)
            : renderCard(card.subject, look)),
    ];
    if (card.line) {
      const label = LINE_LABEL[card.line.kind];
      const rendered = card.line.editor.render(width - label.length + 2, '');
      const first = lines.length;
      lines.push(
        ...rendered.lines.map((line, i) =>
          i === 0 ? paint(label, palette.question, level) + line.slice(2) : line,
        ),
      );
      return {
        lines,
        cursor: { line: first + rendered.cursor.line, column: label.length + rendered.cursor.column - 2 },
      };
    }
    if (card.onScreen === 'no') {
      card.onScreen = 'yes';
      this.host.guard.shown();
    }
    const editor = this.host.editor;
    if (editor.text === '') return { lines };
    // Keys typed for the message while the card is up are kept in it, and shown.
    lines.push(paint(fitText(KEPT_MESSAGE, width - 1), { dim: true }, level));
    const kept = editor.render(width, keyMark);
    const first = lines.length;
    lines.push(...kept.lines);
    return { lines, cursor: { line: first + kept.cursor.line, column: kept.cursor.column } };
  }
}

/** Keys the terminal's key reader knows (the input line's own editing keys are not among them). */
export function isTerminalKey(key: InputKey): key is Key {
  return !['newline', 'ctrl-a', 'ctrl-e', 'ctrl-k', 'ctrl-l'].includes(key.name);
}
