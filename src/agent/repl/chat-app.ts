import type { ModelMessage } from 'ai';
import { findingsLines } from '../../core/finding-words.js';
import { pathInRoot } from '../../core/root-named.js';
import {
  type ApprovalQuestion,
  type Approver,
  approvalRequestFor,
  type Decision,
  isReadQuestion,
} from '../../gate/approval.js';
import type { Proposal } from '../../gate/proposal.js';
import { type ColorLevel, detectColorLevel, paint } from '../../terminal/colors.js';
import type { KeyReader } from '../../terminal/keys.js';
import { runPager } from '../../terminal/pager.js';
import { paletteFor, resolveTheme, type ThemeOption } from '../../terminal/palette.js';
import { highlighterFor, renderRequestDiff, requestNotes } from '../../terminal/preview.js';
import {
  enterAlternateScreen,
  enterRawMode,
  type TerminalInput,
  type TerminalOutput,
} from '../../terminal/tty-modes.js';
import { markWhitespaceRuns } from '../../terminal/whitespace-runs.js';
import type { ToolCallInfo, TurnEvents, TurnOutcome } from '../loop/turn.js';
import type { PreviewReason, SessionFrontEnd } from '../session/chat-session.js';
import type { AgentToolResult } from '../tools/agent-tool.js';
import type { CommandRequest } from '../tools/bash.js';
import type { FileChange } from '../tools/file-changes.js';
import type { CardSubject } from '../ui/card.js';
import { InputEditor } from '../ui/input-editor.js';
import { LiveScreen, type LiveView } from '../ui/live-screen.js';
import {
  detailLines,
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
import { type CallState, changeOutcome, commandOutcome, firstSentence } from './call-state.js';
import { changeDiffLines } from './change-diff.js';
import { ChatCard } from './chat-card.js';
import { ChatInput } from './chat-input.js';
import type { ChatCommands } from './commands.js';
import { StatusLine } from './status-line.js';

export { changeOutcome } from './call-state.js';
export { KEPT_MESSAGE } from './chat-card.js';

/**
 * The chat REPL: the live screen and the turn's events turned into transcript lines. Its parts: where keys
 * go (chat-input.ts), the permission card (chat-card.ts), the status line (status-line.ts), and the
 * running call's state and outcome words (call-state.ts). What a session does (model, tools, undo) is the
 * session's; slash commands are `ChatCommands`; this file only shows and asks.
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

const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';

export class ChatApp implements SessionFrontEnd {
  readonly screen: LiveScreen;
  readonly editor: InputEditor;
  private readonly level: ColorLevel;
  private readonly palette;
  private readonly status: StatusLine;
  private readonly input: ChatInput;
  private readonly card: ChatCard;
  private reply = '';
  private current: CallState | undefined;
  private turnAbort: AbortController | undefined;
  private stopTurn = false;
  /** Messages sent while the model was working, in order. */
  private queued: string[] = [];
  /** The command running was sent by the Enter just pressed: a pager it opens takes the rest of that run. */
  private commandTypedNow = false;
  private commands: ChatCommands | undefined;
  private exitResolve: ((code: number) => void) | undefined;
  private restoreRaw: () => void = () => {};
  private readonly onData = (chunk: Buffer | string) => this.input.feed(chunk, performance.now());
  private readonly onResize = () => this.screen.dirty();
  private readonly onEnd = () => this.exit(0);

  constructor(private readonly options: ChatAppOptions) {
    this.level = options.noColor
      ? 0
      : detectColorLevel({ isTTY: options.output.isTTY === true, noColor: options.noColor });
    this.palette = paletteFor(resolveTheme(options.theme));
    this.editor = new InputEditor(options.history);
    this.screen = new LiveScreen({ output: options.output, synchronized: options.synchronized ?? true });
    this.status = new StatusLine(options.modelLabel, () => this.screen.dirty());
    this.input = new ChatInput({
      screen: this.screen,
      editor: this.editor,
      cardKey: (event, answer) => this.card.key(event, answer),
      status: this.status,
      submit: () => this.submit(),
      interrupt: () => this.interrupt(),
      exit: (code) => this.exit(code),
    });
    this.card = new ChatCard({
      screen: this.screen,
      guard: this.input.guard,
      editor: this.editor,
      look: () => this.look(),
      note: (text) => this.note(text),
      decided: (decision) => {
        if (this.current) this.current.decision = decision;
      },
      stopTurn: () => {
        this.stopTurn = true;
      },
      page: (render) => this.page(render),
      closePager: () => this.input.closePager(),
      print: (lines) => this.print(lines),
      handOver: (run) => this.handOver(run),
    });
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
    this.status.modelLabel = label;
    this.screen.dirty();
  }

  setUsage(usage: { input: number; output: number }): void {
    this.status.usage = { ...usage };
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
    this.status.stopSpinner();
    this.turnAbort?.abort();
    this.card.refuse();
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

  private submit(): void {
    const text = this.editor.text.trim();
    if (text === '') return;
    this.editor.remember(this.editor.text);
    this.options.remember?.(this.editor.text);
    this.editor.clear();
    this.screen.dirty();
    if (this.status.mode === 'busy') {
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
    this.status.busy('Working');
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
    this.status.activity = 'Interrupting';
    this.screen.dirty();
  }

  // ——— Turns ———

  private async runTurn(text: string): Promise<void> {
    if (!this.commands) return;
    this.status.busy('Thinking');
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
        if (this.status.activity !== 'Thinking') {
          this.status.activity = 'Thinking';
          this.screen.dirty();
        }
      },
      toolInput: (name) => {
        this.endReply(false);
        this.status.activity = `Writing a ${name} call`;
        this.screen.dirty();
      },
      toolStarted: (call) => {
        this.endReply(false);
        this.current = { call, previewed: false };
        this.status.activity = `${call.name} ${call.tool ? call.tool.target(call.input) : ''}`.trim();
        if (call.name === 'bash') {
          const command = markWhitespaceRuns(call.tool?.target(call.input) ?? '');
          this.print([toolLine('bash', `$ ${command}`, undefined, this.look())]);
          this.current.previewed = true;
        }
        this.screen.dirty();
      },
      toolFinished: (call, result) => this.toolFinished(call, result),
      usage: (usage) => {
        this.status.usage.input += usage.inputTokens ?? 0;
        this.status.usage.output += usage.outputTokens ?? 0;
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
    if (this.status.activity !== 'Responding') this.status.activity = 'Responding';
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
    const request: ApprovalQuestion = approvalRequestFor(proposal);
    const display = {
      level: this.level,
      theme: this.palette.theme,
      width: look.width,
      height: this.screen.height,
      tabWidth: 4,
    };
    const diff = renderRequestDiff(request, display, look.width, await highlighterFor(request, display));
    const first = request.files[0]!;
    this.print([toolLine(proposal.tool, pathInRoot(first.path, first.root), undefined, look), ...diff]);
    for (const note of requestNotes(request)) this.print(noteLines(note, look));
    const found = findingsLines(request.findings);
    if (found.length > 0) this.print(noteLines(found.join('\n'), look, 'warning'));
    if (reason === 'edited')
      this.print(noteLines('Approved with your own version: this is what is written.', look));
    if (reason === 'hunks')
      this.print(noteLines('Approved hunk by hunk: only the hunks you chose are written.', look));
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
    if (this.current && subject.kind === 'change' && !isReadQuestion(subject.request))
      this.current.reason = 'ask';
    return this.card.ask(subject, signal);
  }

  /**
   * Runs `run` (the person's editor, which takes the terminal and returns when it exits) with the live
   * region erased; bracketed paste is set again after (an editor may have turned it off), then the live
   * region is drawn anew.
   */
  private handOver<T>(run: (terminal: { input: TerminalInput; output: TerminalOutput }) => T): T {
    this.screen.suspend();
    try {
      return run({ input: this.options.input, output: this.options.output });
    } finally {
      this.options.output.write(BRACKETED_PASTE_ON);
      this.screen.resume();
    }
  }

  /**
   * Shows lines in the pager (the alternate screen: the transcript and scrollback are untouched). Keys of a
   * run that began before it was on screen go to the input line, except the run of the key that opened it.
   */
  async page(render: (width: number) => string[]): Promise<void> {
    this.screen.suspend();
    const keys = this.input.pagerQueue();
    // From the card (v), the guard already gave the pager the run that pressed v. A command sent by the
    // Enter just pressed gives it that run; a queued one, run when a turn ended, finds the person perhaps
    // typing something else: the pager is on screen from its first frame, drawn right away by runPager.
    if (!this.card.open) {
      if (this.commandTypedNow) this.input.guard.openedByThisRun();
      else this.input.guard.shown();
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
      this.card.pagerClosed();
      this.screen.resume();
    }
  }

  /**
   * Hands the screen (the alternate one: the transcript stays as it is) and the keys to a full-screen
   * exchange such as /review's walk; the chat's own screen comes back when it ends.
   */
  async takeOver<T>(run: (terminal: { output: TerminalOutput; keys: KeyReader }) => Promise<T>): Promise<T> {
    this.screen.suspend();
    const keys = this.input.pagerQueue();
    if (this.commandTypedNow) this.input.guard.openedByThisRun();
    else this.input.guard.shown();
    const leave = enterAlternateScreen(this.options.output);
    try {
      return await run({ output: this.options.output, keys: keys.reader });
    } finally {
      leave();
      keys.close();
      this.screen.resume();
    }
  }

  // ——— The live region ———

  private setIdle(): void {
    this.status.idle();
    const next = this.queued.shift();
    if (next !== undefined && this.exitResolve) this.send(next, false);
  }

  private live(width: number, _height: number): LiveView {
    const look: Look = { width, level: this.level, palette: this.palette };
    const lines: string[] = [];
    if (this.reply !== '')
      lines.push(replyRow(splitOpenRow(this.reply, width - REPLY_GUTTER_WIDTH).rest, look));
    const keyMark = `${paint('›', this.palette.key, this.level)} `;
    const card = this.card.view(lines, look, keyMark);
    if (card) return card;
    lines.push(this.status.render(width, this.level));
    const input = this.editor.render(width, keyMark);
    const first = lines.length;
    lines.push(...input.lines);
    return { lines, cursor: { line: first + input.cursor.line, column: input.cursor.column } };
  }
}
