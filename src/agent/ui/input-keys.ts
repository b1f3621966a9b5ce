import { type Key, parseKeys } from '../../terminal/keys.js';

/**
 * The chat input's keys, from raw terminal input: the keys terminal/keys.ts knows, plus what a line editor
 * needs on top. A new line inside the message is Ctrl-J (a bare LF; Enter sends CR) or Alt-Enter (ESC CR),
 * which work in every terminal, unlike Shift-Enter. Bracketed paste (the terminal wraps pasted text in
 * ESC[200~ … ESC[201~) arrives as one `paste` event, so a pasted newline never sends the message.
 */
export type InputEvent =
  | { type: 'key'; key: Key }
  | { type: 'key'; key: { name: 'newline' | 'ctrl-a' | 'ctrl-e' | 'ctrl-k' | 'ctrl-l' } }
  | { type: 'paste'; text: string };

/** A key as the chat input knows it: terminal/keys.ts's, or one of the line editor's own. */
export type InputKey = Extract<InputEvent, { type: 'key' }>['key'];

const PASTE_BEGIN = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const EXTRA: Record<string, 'ctrl-a' | 'ctrl-e' | 'ctrl-k' | 'ctrl-l'> = {
  '\x01': 'ctrl-a',
  '\x05': 'ctrl-e',
  '\x0b': 'ctrl-k',
  '\x0c': 'ctrl-l',
};

export class InputDecoder {
  private pasting: string | undefined;

  feed(data: string): InputEvent[] {
    const events: InputEvent[] = [];
    let rest = data;
    while (rest !== '') {
      if (this.pasting !== undefined) {
        const end = rest.indexOf(PASTE_END);
        if (end < 0) {
          this.pasting += rest;
          break;
        }
        events.push({ type: 'paste', text: (this.pasting + rest.slice(0, end)).replace(/\r\n?/g, '\n') });
        this.pasting = undefined;
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      const begin = rest.indexOf(PASTE_BEGIN);
      const keys = begin < 0 ? rest : rest.slice(0, begin);
      events.push(...decodeKeys(keys));
      if (begin < 0) break;
      this.pasting = '';
      rest = rest.slice(begin + PASTE_BEGIN.length);
    }
    return events;
  }
}

function decodeKeys(text: string): InputEvent[] {
  const events: InputEvent[] = [];
  let plain = '';
  const flush = () => {
    for (const key of parseKeys(plain)) events.push({ type: 'key', key });
    plain = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\x1b' && text[i + 1] === '\r') {
      flush();
      events.push({ type: 'key', key: { name: 'newline' } });
      i++;
    } else if (c === '\n' && text[i - 1] !== '\r') {
      flush();
      events.push({ type: 'key', key: { name: 'newline' } });
    } else if (EXTRA[c] && text[i - 1] !== '\x1b') {
      flush();
      events.push({ type: 'key', key: { name: EXTRA[c] } });
    } else plain += c;
  }
  flush();
  return events;
}
