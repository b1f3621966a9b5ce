import type { ModelMessage } from 'ai';
import { pathInRoot } from '../../core/root-named.js';
import {
  type ApprovalRequest,
  type Approver,
  approvalRequestFor,
  type Decision,
  denialReason,
  grantOf,
} from '../../gate/approval.js';
import { answeredElsewhere } from '../../gate/first-answer.js';
import type { Proposal } from '../../gate/proposal.js';
import { type ColorLevel, detectColorLevel, paint } from '../../terminal/colors.js';
import type { Key, KeyReader } from '../../terminal/keys.js';
import { runPager } from '../../terminal/pager.js';
import { paletteFor, resolveTheme, type ThemeOption } from '../../terminal/palette.js';
import { highlighterFor, renderRequestDiff } from '../../terminal/preview.js';
import { enterRawMode, type TerminalInput, type TerminalOutput } from '../../terminal/tty-modes.js';
import { settled, TypingGuard } from '../../terminal/typing-guard.js';
import { markWhitespaceRuns } from '../../terminal/whitespace-runs.js';
import type { ToolCallInfo, TurnEvents, TurnOutcome } from '../loop/turn.js';
import type { PreviewReason, SessionFrontEnd } from '../session/chat-session.js';
import type { AgentToolResult } from '../tools/agent-tool.js';
import type { CommandRequest } from '../tools/bash.js';
import type { FileChange } from '../tools/file-changes.js';
import { type CardSubject, commandRows, renderCard } from '../ui/card.js';
import { InputEditor } from '../ui/input-editor.js';
import { InputDecoder, type InputEvent, type InputKey } from '../ui/input-keys.js';
import { LiveScreen, type LiveView } from '../ui/live-screen.js';
import {
  detailLines,
  fitText,
  type Look,
  noteLines,
  outcomeLine,
  promptLines,
  REPLY_GUTTER_WIDTH,
  replyLines,
  replyRow,
  splitOpenRow,
  toolLine,
} from '../ui/transcript.js';
import { changeDiffLines } from './change-diff.js';
import type { ChatCommands } from './commands.js';

/**
 * The chat REPL: the live screen, the input, the permission card, and the turn's events turned into
 * transcript lines. What a session does (model, tools, undo) is the session's; slash commands are
 * `ChatCommands`; this file only shows and asks.
 */
export interface ChatAppOptions {
  input: TerminalInput;
  output: TerminalOutput;
  noColor?: boolean;
  theme?: ThemeOption;
  /** Shown in the status line until the session says otherwise. */
  modelLabel: string;
  history: readonly string[];
  /** Called with each message the person sends (input history). */
  remember?: (text: string) => void;
  /** Synchronized output (DEC 2026). Default true. */
  synchronized?: boolean;
}

type Mode = 'idle' | 'busy';

interface CallState {
  call: ToolCallInfo;
  /** The diff segment is in the transcript (change tools). */
  previewed: boolean;
  reason?: PreviewReason;
  decision?: Decision;
}

interface Card {
  subject: CardSubject;
  resolve: (decision: Decision) => void;
  /** Typing a reason after r. */
  reason?: InputEditor;
  /**
   * Whether its keys are on screen, for the typing guard: `yes` from the frame that shows them; `no` while
   * the reason line hides them (and when they come back, until they are drawn); `pager` while v's pager is.
   */
  onScreen: 'no' | 'yes' | 'pager';
}

/** Under the card when keys went to the message: why they did not answer it, and how to. */
export const KEPT_MESSAGE =
  'Your message (keys typed fast are kept here): pause, then press a key to answer.';
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';

export class ChatApp implements SessionFrontEnd {
  readonly screen: LiveScreen;
  readonly editor: InputEditor;
  private readonly decoder = new InputDecoder();
  /** Which keys answer the card and which are typing for the input line (terminal/typing-guard.ts). */
  private readonly guard = new TypingGuard();
  private readonly level: ColorLevel;
  private readonly palette;
  private mode: Mode = 'idle';
  private modelLabel: string;
  private usage = { input: 0, output: 0 };
  private activity = '';
  private startedAt = 0;
  private spinnerTimer: NodeJS.Timeout | undefined;
  private reply = '';
  private card: Card | undefined;
  private current: CallState | undefined;
  private turnAbort: AbortController | undefined;
  private stopTurn = false;
  private exitHint = false;
  /** Messages sent while the model was working, in order. */
  private queued: string[] = [];
  private pagerKeys: ((key: Key) => void) | undefined;
  /** The command running was sent by the Enter just pressed: a pager it opens takes the rest of that run. */
  private commandTypedNow = false;
  private commands: ChatCommands | undefined;
  private exitResolve: ((code: number) => void) | undefined;
  private restoreRaw: () => void = () => {};
  private readonly onData = (chunk: Buffer | string) => {
    const at = performance.now();
    for (const event of this.decoder.feed(typeof chunk === 'string' ? chunk : chunk.toString('utf8'))) {
      this.handle(event, at);
    }
  };
  private readonly onResize = () => this.screen.dirty();
  private readonly onEnd = () => this.exit(0);

  constructor(private readonly options: ChatAppOptions) {
    this.level = options.noColor
      ? 0
      : detectColorLevel({ isTTY: options.output.isTTY === true, noColor: options.noColor });
    this.palette = paletteFor(resolveTheme(options.theme));
    this.modelLabel = options.modelLabel;
    this.editor = new InputEditor(options.history);
    this.screen = new LiveScreen({ output: options.output, synchronized: options.synchronized ?? true });
    this.screen.setLive((width, height) => this.live(width, height));
  }

  /** The current look: width, colours, palette. */
  look(): Look {
    return { width: this.screen.width, level: this.level, palette: this.palette };
  }

  /** Starts reading keys and drawing; resolves with the exit code when the person leaves. */
  start(): Promise<number> {
    this.restoreRaw = enterRawMode(this.options.input);
    this.options.output.write(BRACKETED_PASTE_ON);
    this.options.input.on('data', this.onData);
    // The input closing (a hang-up, or Ctrl-D typed before raw mode was on) ends the chat.
    this.options.input.on('end', this.onEnd);
    this.options.input.resume();
    (this.options.output as NodeJS.EventEmitter).on?.('resize', this.onResize);
    this.screen.open();
    return new Promise((resolve) => {
      this.exitResolve = resolve;
    });
  }

  attach(commands: ChatCommands): void {
    this.commands = commands;
  }

  setModelLabel(label: string): void {
    this.modelLabel = label;
    this.screen.dirty();
  }

  setUsage(usage: { input: number; output: number }): void {
    this.usage = { ...usage };
    this.screen.dirty();
  }

  /** Lines for the transcript (rendered at the current width). */
  print(lines: string[]): void {
    this.screen.commit(lines);
  }

  note(text: string, kind: 'info' | 'warning' | 'error' = 'info'): void {
    this.screen.commit(noteLines(text, this.look(), kind));
  }

  /** Leaves: erases the live region, restores the terminal. */
  exit(code = 0): void {
    this.stopSpinner();
    this.turnAbort?.abort();
    this.card?.resolve('deny');
    this.screen.close();
    this.options.output.write(BRACKETED_PASTE_OFF);
    this.options.input.off('data', this.onData);
    this.options.input.off('end', this.onEnd);
    this.options.input.pause();
    (this.options.output as NodeJS.EventEmitter).off?.('resize', this.onResize);
    this.restoreRaw();
    this.exitResolve?.(code);
    this.exitResolve = undefined;
  }

  // ——— Input ———

  /**
   * Every key is judged by the typing guard, so a run of typing is known when a card appears. Keys of a
   * run that began before the card (or the pager) was on screen go to the input line they were typed for,
   * and so does the rest of a run whose first key the card did not take: the card answers only the first
   * key after a pause.
   */
  private handle(event: InputEvent, at: number): void {
    const role = this.guard.key(at);
    if (this.pagerKeys) {
      if (role === 'typing') this.inputLine(event);
      else if (event.type === 'key' && isTerminalKey(event.key)) this.pagerKeys(event.key);
      return;
    }
    const card = this.card;
    if (card?.reason) {
      this.reasonKey(card, card.reason, event);
      return;
    }
    if (card && event.type === 'key' && isTerminalKey(event.key)) {
      // Esc and Ctrl-C only ever refuse and stop: they reach the card typed fast or not.
      const refusal = event.key.name === 'escape' || event.key.name === 'ctrl-c';
      if ((refusal || role === 'answer') && this.cardKey(card, event.key)) return;
    }
    this.inputLine(event);
  }

  /** A key for the input line (and the chat's own keys: Ctrl-C, Esc, Ctrl-D). */
  private inputLine(event: InputEvent): void {
    const key = event.type === 'key' ? event.key : undefined;
    if (key?.name === 'ctrl-c') {
      if (this.mode === 'busy') {
        this.interrupt();
        return;
      }
      if (this.editor.text !== '') {
        this.editor.clear();
        this.exitHint = false;
      } else if (this.exitHint) {
        this.exit(0);
        return;
      } else this.exitHint = true;
      this.screen.dirty();
      return;
    }
    this.exitHint = false;
    if (key?.name === 'escape') {
      if (this.mode === 'busy') this.interrupt();
      return;
    }
    if (key?.name === 'ctrl-d' && this.editor.text === '') {
      if (this.mode === 'idle') this.exit(0);
      return;
    }
    if (key?.name === 'ctrl-l') return;
    const action = this.editor.handle(event);
    if (action === 'submit') this.submit();
    else if (action === 'changed') this.screen.dirty();
  }

  private submit(): void {
    const text = this.editor.text.trim();
    if (text === '') return;
    this.editor.remember(this.editor.text);
    this.options.remember?.(this.editor.text);
    this.editor.clear();
    this.screen.dirty();
    if (this.mode === 'busy') {
      // Sent when the turn ends (Esc ends it sooner).
      this.queued.push(text);
      this.note(`Queued until the model finishes: ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`);
      return;
    }
    this.send(text, true);
  }

  /** `typedNow`: sent by the Enter just pressed (not a queued message sent when a turn ended). */
  private send(text: string, typedNow: boolean): void {
    if (text.startsWith('/')) {
      this.print(promptLines(text, this.look()));
      this.commandTypedNow = typedNow;
      void this.runCommand(text);
      return;
    }
    this.print(promptLines(text, this.look()));
    void this.runTurn(text);
  }

  private async runCommand(text: string): Promise<void> {
    if (!this.commands) return;
    this.setBusy('Working');
    const abort = new AbortController();
    this.turnAbort = abort;
    try {
      await this.commands.run(text, abort.signal);
    } catch (error) {
      this.note(error instanceof Error ? error.message : String(error), 'error');
    } finally {
      this.turnAbort = undefined;
      this.setIdle();
    }
  }

  private interrupt(): void {
    if (!this.turnAbort || this.turnAbort.signal.aborted) return;
    this.turnAbort.abort();
    this.activity = 'Interrupting';
    this.screen.dirty();
  }

  // ——— Turns ———

  private async runTurn(text: string): Promise<void> {
    if (!this.commands) return;
    this.setBusy('Thinking');
    const abort = new AbortController();
    this.turnAbort = abort;
    this.stopTurn = false;
    let outcome: TurnOutcome;
    try {
      outcome = await this.commands.turn(text, this.turnEvents(), abort.signal, () => this.stopTurn);
    } catch (error) {
      outcome = { status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
    this.endReply(outcome.status === 'interrupted');
    if (outcome.status === 'interrupted')
      this.note('Interrupted: the model stopped; anything that did not run was told so.', 'warning');
    else if (outcome.status === 'stopped')
      this.note('Turn stopped: the model was told the remaining calls did not run.', 'warning');
    else if (outcome.status === 'step-limit')
      this.note(
        'The model made many requests in this turn and was paused; send a message to let it go on.',
        'warning',
      );
    else if (outcome.error) this.note(outcome.error, outcome.status === 'failed' ? 'error' : 'warning');
    this.turnAbort = undefined;
    this.setIdle();
  }

  turnEvents(): TurnEvents {
    return {
      textDelta: (text) => this.replyDelta(text),
      reasoning: () => {
        if (this.activity !== 'Thinking') {
          this.activity = 'Thinking';
          this.screen.dirty();
        }
      },
      toolInput: (name) => {
        this.endReply(false);
        this.activity = `Writing a ${name} call`;
        this.screen.dirty();
      },
      toolStarted: (call) => {
        this.endReply(false);
        this.current = { call, previewed: false };
        this.activity = `${call.name} ${call.tool ? call.tool.target(call.input) : ''}`.trim();
        if (call.name === 'bash') {
          const command = markWhitespaceRuns(call.tool?.target(call.input) ?? '');
          this.print([toolLine('bash', `$ ${command}`, undefined, this.look())]);
          this.current.previewed = true;
        }
        this.screen.dirty();
      },
      toolFinished: (call, result) => this.toolFinished(call, result),
      usage: (usage) => {
        this.usage.input += usage.inputTokens ?? 0;
        this.usage.output += usage.outputTokens ?? 0;
        this.screen.dirty();
      },
      warning: (text) => {
        this.endReply(false);
        this.note(text, 'warning');
      },
      message: (_message: ModelMessage) => {},
    };
  }

  private replyDelta(text: string): void {
    if (this.activity !== 'Responding') this.activity = 'Responding';
    this.reply += text;
    const look = this.look();
    const finished: string[] = [];
    const newline = this.reply.lastIndexOf('\n');
    if (newline >= 0) {
      finished.push(...replyLines(this.reply.slice(0, newline), look));
      this.reply = this.reply.slice(newline + 1);
    }
    const { done, rest } = splitOpenRow(this.reply, look.width - REPLY_GUTTER_WIDTH);
    finished.push(...done.map((row) => replyRow(row, look)));
    this.reply = rest;
    // State first, then the screen: a frame drawn by this commit already shows the new open row.
    if (finished.length > 0) this.print(finished);
    else this.screen.dirty();
  }

  /** The reply so far goes to the transcript (before a tool call, at the end, or when interrupted). */
  private endReply(interrupted: boolean): void {
    if (this.reply !== '') {
      const text = this.reply;
      this.reply = '';
      this.print(replyLines(text, this.look()));
    }
    if (interrupted) this.print([paint('  ⎋ interrupted', { dim: true }, this.level)]);
  }

  private toolFinished(call: ToolCallInfo, result: AgentToolResult): void {
    const state = this.current?.call === call ? this.current : { call, previewed: false };
    this.current = undefined;
    const look = this.look();
    const target = call.tool ? call.tool.target(call.input) : '';
    if (result.summary === 'did not run') {
      this.print([toolLine(call.name, target, 'did not run', look, true)]);
      return;
    }
    if (call.name === 'bash') {
      if (result.output) this.print(detailLines(result.output, look, 8));
      this.print(outcomeLine(result.ok, commandOutcome(result, state), look));
      return;
    }
    if (!state.previewed) {
      this.print([toolLine(call.name, target, result.summary, look, !result.ok)]);
      if (!result.ok) this.print(detailLines(firstSentence(result.message), look, 3));
      return;
    }
    this.print(outcomeLine(result.ok, changeOutcome(result, state), look));
  }

  // ——— SessionFrontEnd ———

  async preview(proposal: Proposal, reason: PreviewReason): Promise<void> {
    this.endReply(false);
    const look = this.look();
    const request = approvalRequestFor(proposal);
    const display = {
      level: this.level,
      theme: this.palette.theme,
      width: look.width,
      height: this.screen.height,
      tabWidth: 4,
    };
    const diff = renderRequestDiff(request, display, look.width, await highlighterFor(request, display));
    this.print([toolLine(proposal.tool, pathInRoot(request.path, request.root), undefined, look), ...diff]);
    if (proposal.note) this.print(noteLines(proposal.note, look));
    if (reason === 'edited')
      this.print(noteLines('Approved with your own version: this is what is written.', look));
    if (this.current) {
      this.current.previewed = true;
      this.current.reason = reason;
    }
  }

  /**
   * The card for a change. With --approve web the same question is on the review page too (firstAnswer):
   * when it is answered there, `signal` aborts with an AnsweredElsewhere, the card (and its pager) goes
   * away and the transcript says who answered and how.
   */
  approve: Approver = (request, context = {}) => this.ask({ kind: 'change', request }, context.signal);

  askCommand(request: CommandRequest): Promise<Decision> {
    return this.ask({ kind: 'command', request });
  }

  /**
   * Whether the person trusts the project's config, shown as `summary` (what it would do): y trusts it,
   * n or Esc leaves it untrusted for now. Asked once, before the first turn (agent/repl/start.ts).
   */
  async askTrust(summary: string): Promise<boolean> {
    this.print(noteLines(summary, this.look(), 'warning'));
    return (await this.ask({ kind: 'trust' })) === 'once';
  }

  async commandChanged(changes: FileChange[]): Promise<void> {
    const look = this.look();
    for (const change of changes) this.print(changeDiffLines(change, look, this.palette));
  }

  private ask(subject: CardSubject, signal?: AbortSignal): Promise<Decision> {
    this.endReply(false);
    if (this.current && subject.kind === 'change' && subject.request.kind !== 'read')
      this.current.reason = 'ask';
    return new Promise<Decision>((resolve, reject) => {
      const takenBack = () => {
        if (this.card !== card) return;
        this.card = undefined;
        this.guard.hidden();
        // The card's diff may be open in the pager: it closes as on end of input.
        this.pagerKeys?.({ name: 'eof' });
        this.screen.dirty();
        const elsewhere = answeredElsewhere(signal!.reason);
        if (!elsewhere) {
          reject(signal!.reason);
          return;
        }
        if (this.current) this.current.decision = elsewhere.decision;
        this.note(`${decisionWords(elsewhere.decision)} (answered ${elsewhere.by})`);
        resolve(elsewhere.decision);
      };
      const card: Card = {
        subject,
        onScreen: 'no',
        resolve: (decision) => {
          signal?.removeEventListener('abort', takenBack);
          this.card = undefined;
          this.guard.hidden();
          if (this.current) this.current.decision = decision;
          this.screen.dirty();
          resolve(decision);
        },
      };
      // Keys already waiting (typed before the card could be seen) are read first: typing, for the input.
      void settled().then(() => {
        this.card = card;
        this.guard.hidden();
        if (signal?.aborted) takenBack();
        else {
          signal?.addEventListener('abort', takenBack, { once: true });
          this.screen.dirty();
        }
      });
    });
  }

  /** Typing the reason after r: every key is the reason's (the person chose to type it). */
  private reasonKey(card: Card, reason: InputEditor, event: InputEvent): void {
    const key = event.type === 'key' ? event.key : undefined;
    if (key?.name === 'escape' || key?.name === 'ctrl-c') {
      card.reason = undefined;
      // Back to the question: on screen anew, answered by the first key after a pause.
      card.onScreen = 'no';
    } else if (key?.name === 'enter') {
      const text = reason.text.trim();
      card.resolve(text ? { deny: text } : 'deny');
      return;
    } else reason.handle(event);
    this.screen.dirty();
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
      this.stopTurn = true;
      card.resolve('deny');
      return true;
    }
    if (key.name !== 'char') return false;
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
        card.reason = new InputEditor();
        card.onScreen = 'no';
        this.screen.dirty();
        return true;
      case 'v': {
        const subject = card.subject;
        if (subject.kind === 'change' && subject.request.kind === 'read') return false;
        card.onScreen = 'pager';
        // The rest of the run that pressed v is the pager's.
        this.guard.openedByThisRun();
        if (subject.kind === 'change') void this.viewDiff(subject.request);
        else
          void this.page((width) => commandRows(subject.request.command, { ...this.look(), width }, width));
        return true;
      }
      default:
        return false;
    }
  }

  /** The card's keys are in the frame being written (live() is called right before the write). */
  private cardDrawn(card: Card): void {
    if (card.onScreen !== 'no') return;
    card.onScreen = 'yes';
    this.guard.shown();
  }

  /** The whole diff in the full-screen pager; the card is back when it closes. */
  private async viewDiff(request: ApprovalRequest): Promise<void> {
    const display = {
      level: this.level,
      theme: this.palette.theme,
      width: this.screen.width,
      height: this.screen.height,
      tabWidth: 4,
    };
    const highlighter = await highlighterFor(request, display);
    await this.page((width) => renderRequestDiff(request, display, width, highlighter));
  }

  /**
   * Shows lines in the pager (the alternate screen: the transcript and scrollback are untouched). Keys of a
   * run that began before it was on screen go to the input line, except the run of the key that opened it.
   */
  async page(render: (width: number) => string[]): Promise<void> {
    this.screen.suspend();
    const keys = this.keyQueue();
    // From the card (v), the guard already gave the pager the run that pressed v. A command sent by the
    // Enter just pressed gives it that run; a queued one, run when a turn ended, finds the person perhaps
    // typing something else: the pager is on screen from its first frame, drawn right away by runPager.
    if (!this.card) {
      if (this.commandTypedNow) this.guard.openedByThisRun();
      else this.guard.shown();
    }
    try {
      await runPager(render, {
        output: this.options.output,
        keys: keys.reader,
        color: this.level,
        theme: this.palette.theme,
      });
    } finally {
      keys.close();
      // The card (if any) is drawn anew: on screen again from that frame.
      if (this.card?.onScreen === 'pager') this.card.onScreen = 'no';
      this.screen.resume();
    }
  }

  /** A key reader fed by this app's input while the pager runs. */
  private keyQueue(): { reader: KeyReader; close(): void } {
    const queue: Key[] = [];
    let waiting: ((key: Key) => void) | undefined;
    const next = (): Promise<Key> => {
      const key = queue.shift();
      return key ? Promise.resolve(key) : new Promise((resolve) => (waiting = resolve));
    };
    this.pagerKeys = (key) => {
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve(key);
      } else queue.push(key);
    };
    return {
      reader: {
        next,
        // The keys come judged by the typing guard already (handle); their time is not needed again.
        nextTimed: () => next().then((key) => ({ key, at: performance.now() })),
        close: () => {},
      },
      close: () => {
        this.pagerKeys = undefined;
      },
    };
  }

  // ——— The live region ———

  private setBusy(activity: string): void {
    this.mode = 'busy';
    this.activity = activity;
    this.startedAt = performance.now();
    this.spinnerTimer ??= setInterval(() => this.screen.dirty(), 100);
    this.screen.dirty();
  }

  private setIdle(): void {
    this.mode = 'idle';
    this.activity = '';
    this.stopSpinner();
    this.screen.dirty();
    const next = this.queued.shift();
    if (next !== undefined && this.exitResolve) this.send(next, false);
  }

  private stopSpinner(): void {
    if (this.spinnerTimer) clearInterval(this.spinnerTimer);
    this.spinnerTimer = undefined;
  }

  private live(width: number, _height: number): LiveView {
    const look: Look = { width, level: this.level, palette: this.palette };
    const lines: string[] = [];
    if (this.reply !== '')
      lines.push(replyRow(splitOpenRow(this.reply, width - REPLY_GUTTER_WIDTH).rest, look));
    if (this.card) {
      lines.push(...renderCard(this.card.subject, look));
      if (!this.card.reason) this.cardDrawn(this.card);
      if (this.card.reason) {
        const label = 'Reason (Enter to send, Esc to go back): ';
        const rendered = this.card.reason.render(width - label.length + 2, '');
        const first = lines.length;
        lines.push(
          ...rendered.lines.map((line, i) =>
            i === 0 ? paint(label, this.palette.question, this.level) + line.slice(2) : line,
          ),
        );
        return {
          lines,
          cursor: { line: first + rendered.cursor.line, column: label.length + rendered.cursor.column - 2 },
        };
      }
      if (this.editor.text === '') return { lines };
      // Keys typed for the message while the card is up are kept in it, and shown.
      lines.push(paint(fitText(KEPT_MESSAGE, width - 1), { dim: true }, this.level));
      const kept = this.editor.render(width, `${paint('›', this.palette.key, this.level)} `);
      const first = lines.length;
      lines.push(...kept.lines);
      return { lines, cursor: { line: first + kept.cursor.line, column: kept.cursor.column } };
    }
    lines.push(this.statusLine(width));
    const input = this.editor.render(width, `${paint('›', this.palette.key, this.level)} `);
    const first = lines.length;
    lines.push(...input.lines);
    return { lines, cursor: { line: first + input.cursor.line, column: input.cursor.column } };
  }

  private statusLine(width: number): string {
    const tokens =
      this.usage.input + this.usage.output > 0
        ? ` · ↑${compact(this.usage.input)} ↓${compact(this.usage.output)}`
        : '';
    let text: string;
    if (this.mode === 'busy') {
      const seconds = Math.floor((performance.now() - this.startedAt) / 1000);
      const frame = SPINNER[Math.floor(performance.now() / 100) % SPINNER.length];
      text = `${frame} ${this.activity} ${seconds}s · ${this.modelLabel}${tokens} · esc to interrupt`;
    } else if (this.exitHint) text = 'Press Ctrl-C again to exit';
    else text = `${this.modelLabel}${tokens} · /help · Ctrl-J new line · Ctrl-D exit`;
    return paint(text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text, { dim: true }, this.level);
  }
}

function isTerminalKey(key: InputKey): key is Key {
  return !['newline', 'ctrl-a', 'ctrl-e', 'ctrl-k', 'ctrl-l'].includes(key.name);
}

function compact(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function firstSentence(message: string): string {
  const line = message.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** A decision given on another front end, as the transcript says it. */
function decisionWords(decision: Decision): string {
  const grant = grantOf(decision);
  if (grant === null) {
    const reason = denialReason(decision);
    return reason ? `✗ No: ${reason}` : '✗ No';
  }
  if (typeof decision === 'object') return '✓ Yes, with your own version of the new text';
  return grant === 'once'
    ? '✓ Yes'
    : grant === 'file'
      ? '✓ Yes, and this file for the session'
      : '✓ Yes to every edit this session';
}

const DECIDED_BY: Record<string, string> = {
  once: 'you: once',
  file: 'you: this file',
  all: 'you: all edits this session',
};

export function changeOutcome(
  result: AgentToolResult,
  state: { reason?: PreviewReason; decision?: Decision },
): string {
  if (result.ok) {
    if (result.summary === 'no change') return 'no change';
    const by =
      state.reason === 'policy'
        ? 'policy rule'
        : state.reason === 'session'
          ? 'allowed earlier this session'
          : state.reason === 'yes'
            ? '--yes'
            : state.reason === 'edited'
              ? 'you: your own version'
              : typeof state.decision === 'string'
                ? (DECIDED_BY[state.decision] ?? 'you')
                : 'you';
    return `applied (${by})`;
  }
  if (result.code === 'DENIED_USER') {
    const reason = state.decision === undefined ? undefined : denialReason(state.decision);
    return reason ? `denied (you): ${reason}` : 'denied (you)';
  }
  if (result.code === 'STALE')
    return 'not applied: the file changed on disk after its diff was made; the model was told to read it again';
  if (result.code === 'DENIED_NO_APPROVER')
    return 'not applied (no one to ask: --yes or a policy rule allows it)';
  return `not applied (${result.code}): ${firstSentence(result.happened ?? result.message)}`;
}

function commandOutcome(result: AgentToolResult, state: { decision?: Decision }): string {
  if (result.code === 'DENIED_USER') {
    const reason = state.decision === undefined ? undefined : denialReason(state.decision);
    return reason ? `not run (you): ${reason}` : 'not run (you)';
  }
  if (result.code === 'DENIED_POLICY') return 'not run (policy rule)';
  if (result.code === 'DENIED_NO_APPROVER')
    return 'not run (no one to ask: --yes or a policy rule allows it)';
  return result.summary;
}
