import type { Key, KeyReader } from '../../terminal/keys.js';
import { TypingGuard } from '../../terminal/typing-guard.js';
import type { InputEditor } from '../ui/input-editor.js';
import { InputDecoder, type InputEvent } from '../ui/input-keys.js';
import type { LiveScreen } from '../ui/live-screen.js';
import { isTerminalKey } from './chat-card.js';
import type { StatusLine } from './status-line.js';

/** What the chat's keys act on: the input line, the card, the status line, and the chat itself. */
export interface InputHost {
  readonly screen: LiveScreen;
  readonly editor: InputEditor;
  /** The card's turn at a key (ChatCard.key): true when it took it. */
  cardKey(event: InputEvent, answer: boolean): boolean;
  readonly status: StatusLine;
  /** Enter on the input line. */
  submit(): void;
  /** Ctrl-C or Esc while the model works. */
  interrupt(): void;
  exit(code: number): void;
}

/**
 * Where each key the person types goes: the pager while one is open, the card when the typing guard lets
 * it answer, else the input line (and the chat's own keys: Ctrl-C, Esc, Ctrl-D).
 */
export class ChatInput {
  /** Which keys answer the card and which are typing for the input line (terminal/typing-guard.ts). */
  readonly guard = new TypingGuard();
  private readonly decoder = new InputDecoder();
  private pagerKeys: ((key: Key) => void) | undefined;

  constructor(private readonly host: InputHost) {}

  /** Bytes read from the terminal at `at`. */
  feed(chunk: Buffer | string, at: number): void {
    for (const event of this.decoder.feed(typeof chunk === 'string' ? chunk : chunk.toString('utf8'))) {
      this.handle(event, at);
    }
  }

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
    if (this.host.cardKey(event, role === 'answer')) return;
    this.inputLine(event);
  }

  /** A key for the input line (and the chat's own keys: Ctrl-C, Esc, Ctrl-D). */
  private inputLine(event: InputEvent): void {
    const { editor, status, screen } = this.host;
    const key = event.type === 'key' ? event.key : undefined;
    if (key?.name === 'ctrl-c') {
      if (status.mode === 'busy') {
        this.host.interrupt();
        return;
      }
      if (editor.text !== '') {
        editor.clear();
        status.exitHint = false;
      } else if (status.exitHint) {
        this.host.exit(0);
        return;
      } else status.exitHint = true;
      screen.dirty();
      return;
    }
    status.exitHint = false;
    if (key?.name === 'escape') {
      if (status.mode === 'busy') this.host.interrupt();
      return;
    }
    if (key?.name === 'ctrl-d' && editor.text === '') {
      if (status.mode === 'idle') this.host.exit(0);
      return;
    }
    if (key?.name === 'ctrl-l') return;
    const action = editor.handle(event);
    if (action === 'submit') this.host.submit();
    else if (action === 'changed') screen.dirty();
  }

  /** An open pager ends as on end of input (its question was answered elsewhere). */
  closePager(): void {
    this.pagerKeys?.({ name: 'eof' });
  }

  /** A key reader fed by the chat's input while the pager runs. */
  pagerQueue(): { reader: KeyReader; close(): void } {
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
}
