import { toCells, wrapCells } from '../../terminal/cells.js';
import type { InputEvent } from './input-keys.js';

/**
 * The message being typed: several lines, a caret, and the history of earlier messages (up and down on
 * the first and last row). Pure state and key handling; `render` lays it out for the live region.
 */
export type EditorAction = 'submit' | 'changed' | 'none';

export class InputEditor {
  text = '';
  /** Caret, as an index into `text` (UTF-16 units, always at a code point boundary). */
  caret = 0;
  private history: string[];
  /** Position in history while browsing it; history.length means the draft. */
  private browsing: number;
  private draft = '';

  constructor(history: readonly string[] = []) {
    this.history = [...history];
    this.browsing = this.history.length;
  }

  setHistory(history: readonly string[]): void {
    this.history = [...history];
    this.browsing = this.history.length;
  }

  remember(entry: string): void {
    if (entry.trim() !== '' && this.history.at(-1) !== entry) this.history.push(entry);
    this.browsing = this.history.length;
  }

  clear(): void {
    this.text = '';
    this.caret = 0;
    this.browsing = this.history.length;
  }

  insert(text: string): void {
    this.text = this.text.slice(0, this.caret) + text + this.text.slice(this.caret);
    this.caret += text.length;
  }

  handle(event: InputEvent): EditorAction {
    if (event.type === 'paste') {
      this.insert(event.text.replace(/\t/g, '    '));
      return 'changed';
    }
    const key = event.key;
    switch (key.name) {
      case 'char':
        this.insert(key.char);
        return 'changed';
      case 'tab':
        this.insert('  ');
        return 'changed';
      case 'newline':
        this.insert('\n');
        return 'changed';
      case 'enter':
        // A line ending in a backslash continues, as in a shell.
        if (this.text.slice(0, this.caret).endsWith('\\')) {
          this.text = this.text.slice(0, this.caret - 1) + this.text.slice(this.caret);
          this.caret--;
          this.insert('\n');
          return 'changed';
        }
        return 'submit';
      case 'backspace':
        if (this.caret === 0) return 'none';
        this.cutBefore(this.caret - codePointBefore(this.text, this.caret).length);
        return 'changed';
      case 'delete':
        if (this.caret >= this.text.length) return 'none';
        this.text =
          this.text.slice(0, this.caret) +
          this.text.slice(this.caret + codePointAt(this.text, this.caret).length);
        return 'changed';
      case 'left':
        if (this.caret > 0) this.caret -= codePointBefore(this.text, this.caret).length;
        return 'changed';
      case 'right':
        if (this.caret < this.text.length) this.caret += codePointAt(this.text, this.caret).length;
        return 'changed';
      case 'home':
      case 'ctrl-a':
        this.caret = this.text.lastIndexOf('\n', this.caret - 1) + 1;
        return 'changed';
      case 'end':
      case 'ctrl-e': {
        const end = this.text.indexOf('\n', this.caret);
        this.caret = end < 0 ? this.text.length : end;
        return 'changed';
      }
      case 'ctrl-u':
        this.cutBefore(this.text.lastIndexOf('\n', this.caret - 1) + 1);
        return 'changed';
      case 'ctrl-k': {
        const end = this.text.indexOf('\n', this.caret);
        this.text = this.text.slice(0, this.caret) + (end < 0 ? '' : this.text.slice(end));
        return 'changed';
      }
      case 'ctrl-w': {
        const before = this.text.slice(0, this.caret);
        this.cutBefore(before.replace(/\S*\s*$/, '').length);
        return 'changed';
      }
      case 'up':
        if (this.text.lastIndexOf('\n', this.caret - 1) >= 0) return this.moveLine(-1);
        return this.browse(-1);
      case 'down':
        if (this.text.indexOf('\n', this.caret) >= 0) return this.moveLine(1);
        return this.browse(1);
      default:
        return 'none';
    }
  }

  private cutBefore(start: number): void {
    this.text = this.text.slice(0, start) + this.text.slice(this.caret);
    this.caret = start;
  }

  private moveLine(direction: -1 | 1): EditorAction {
    const lineStart = this.text.lastIndexOf('\n', this.caret - 1) + 1;
    const column = this.caret - lineStart;
    if (direction < 0) {
      const previousStart = this.text.lastIndexOf('\n', lineStart - 2) + 1;
      this.caret = Math.min(previousStart + column, lineStart - 1);
    } else {
      const nextStart = this.text.indexOf('\n', this.caret) + 1;
      const nextEnd = this.text.indexOf('\n', nextStart);
      this.caret = Math.min(nextStart + column, nextEnd < 0 ? this.text.length : nextEnd);
    }
    return 'changed';
  }

  private browse(direction: -1 | 1): EditorAction {
    const next = this.browsing + direction;
    if (next < 0 || next > this.history.length) return 'none';
    if (this.browsing === this.history.length) this.draft = this.text;
    this.browsing = next;
    this.text = next === this.history.length ? this.draft : this.history[next]!;
    this.caret = this.text.length;
    return 'changed';
  }

  /**
   * Rows for `width` columns after a `› ` prompt (2 columns; continuation rows indented alike), and where
   * the caret is. Control characters show as symbols.
   */
  render(width: number, prompt: string): { lines: string[]; cursor: { line: number; column: number } } {
    const room = Math.max(4, width - 3);
    const lines: string[] = [];
    let cursor = { line: 0, column: 2 };
    let offset = 0;
    for (const line of this.text.split('\n')) {
      const cells = toCells(line);
      const wrapped = wrapCells(cells, room);
      let consumed = 0;
      wrapped.forEach((row, index) => {
        const start = row[0]?.offset ?? line.length;
        const end =
          index + 1 < wrapped.length ? (wrapped[index + 1]![0]?.offset ?? line.length) : line.length;
        const caretHere =
          this.caret >= offset + start &&
          (this.caret < offset + end || (index === wrapped.length - 1 && this.caret <= offset + line.length));
        if (caretHere) {
          let column = 2;
          for (const cell of row) if (offset + cell.offset < this.caret) column += cell.width;
          cursor = { line: lines.length, column };
        }
        lines.push(`${lines.length === 0 ? prompt : '  '}${row.map((cell) => cell.text).join('')}`);
        consumed = end;
      });
      offset += Math.max(consumed, line.length) + 1;
    }
    return { lines, cursor };
  }
}

function codePointAt(text: string, index: number): string {
  return String.fromCodePoint(text.codePointAt(index)!);
}

function codePointBefore(text: string, index: number): string {
  const code = text.charCodeAt(index - 1);
  return code >= 0xdc00 && code <= 0xdfff && index >= 2
    ? text.slice(index - 2, index)
    : text.slice(index - 1, index);
}
