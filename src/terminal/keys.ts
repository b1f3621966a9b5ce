import { StringDecoder } from 'node:string_decoder';

/**
 * Key presses from a terminal in raw mode: the bytes of one read, decoded into named keys (arrows, page
 * keys, Enter, Backspace, Esc, Ctrl-C) and characters. A lone ESC in a read is the Esc key; ESC followed by
 * `[` or `O` starts an escape sequence.
 */
export type Key =
  | { name: 'char'; char: string }
  | {
      name:
        | 'up'
        | 'down'
        | 'left'
        | 'right'
        | 'pageup'
        | 'pagedown'
        | 'home'
        | 'end'
        | 'delete'
        | 'enter'
        | 'tab'
        | 'backspace'
        | 'escape'
        | 'ctrl-c'
        | 'ctrl-d'
        | 'ctrl-u'
        | 'ctrl-w'
        | 'unknown'
        /** The input ended or closed: nothing more will come. */
        | 'eof';
    };

type NamedKey = Exclude<Key, { name: 'char' }>['name'];

const CSI_FINAL: Record<string, NamedKey> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
};
const CSI_TILDE: Record<string, NamedKey> = {
  '1': 'home',
  '7': 'home',
  '4': 'end',
  '8': 'end',
  '3': 'delete',
  '5': 'pageup',
  '6': 'pagedown',
};
const CONTROL: Record<number, NamedKey> = {
  3: 'ctrl-c',
  4: 'ctrl-d',
  8: 'backspace',
  9: 'tab',
  10: 'enter',
  13: 'enter',
  21: 'ctrl-u',
  23: 'ctrl-w',
  127: 'backspace',
};

export function parseKeys(data: string): Key[] {
  return parseKeySequences(data).map(([key]) => key);
}

/** Each key with the text it was read from (so unread keys can be given back to the stream). */
function parseKeySequences(data: string): Array<[Key, string]> {
  const keys: Array<[Key, string]> = [];
  let i = 0;
  while (i < data.length) {
    const start = i;
    const c = data.charCodeAt(i);
    if (c === 0x1b) {
      const next = data[i + 1];
      if (next === '[' || next === 'O') {
        // CSI: parameters then one final byte; SS3: one final byte.
        let j = i + 2;
        if (next === '[') while (j < data.length && /[0-9;?]/.test(data[j]!)) j++;
        const final = data[j];
        if (final === undefined) {
          i += 1;
          keys.push([{ name: 'escape' }, data.slice(start, i)]);
          continue;
        }
        const params = data.slice(i + 2, j).split(';')[0] ?? '';
        const name = final === '~' ? CSI_TILDE[params] : CSI_FINAL[final];
        i = j + 1;
        keys.push([{ name: name ?? 'unknown' }, data.slice(start, i)]);
        continue;
      }
      i += 1;
      keys.push([{ name: 'escape' }, data.slice(start, i)]);
      continue;
    }
    if (c === 13 && data.charCodeAt(i + 1) === 10) {
      i += 2;
      keys.push([{ name: 'enter' }, data.slice(start, i)]);
      continue;
    }
    const control = CONTROL[c];
    if (control) {
      i += 1;
      keys.push([{ name: control }, data.slice(start, i)]);
      continue;
    }
    const char = String.fromCodePoint(data.codePointAt(i)!);
    i += char.length;
    keys.push([c < 0x20 ? { name: 'unknown' } : { name: 'char', char }, data.slice(start, i)]);
  }
  return keys;
}

/** A key and when the read that held it arrived (performance.now(); keys of one read share it). */
export interface TimedKey {
  key: Key;
  at: number;
}

export interface KeyReader {
  /** The next key; `{ name: 'eof' }` once the input has ended (and for every call after). */
  next(): Promise<Key>;
  /** The next key with its arrival time, which the typing guard (typing-guard.ts) judges. */
  nextTimed(): Promise<TimedKey>;
  /** Stops listening and pauses the input, so the process can exit and other readers can take over. */
  close(): void;
}

export function createKeyReader(input: NodeJS.ReadableStream): KeyReader {
  const decoder = new StringDecoder('utf8');
  // Keys read but not yet taken, with the text each came from.
  const queue: Array<[TimedKey, string]> = [];
  let waiting: ((key: TimedKey) => void) | undefined;
  // An input that already ended will not say so again.
  let ended = (input as { readableEnded?: boolean }).readableEnded === true;
  const onData = (chunk: Buffer | string) => {
    const at = performance.now();
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    for (const [key, raw] of parseKeySequences(text)) {
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ key, at });
      } else queue.push([{ key, at }, raw]);
    }
  };
  const onEnd = () => {
    if (ended) return;
    ended = true;
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve({ key: { name: 'eof' }, at: performance.now() });
    }
  };
  input.on('data', onData);
  input.on('end', onEnd);
  input.on('close', onEnd);
  input.on('error', onEnd);
  input.resume();
  const nextTimed = (): Promise<TimedKey> => {
    const entry = queue.shift();
    if (entry) return Promise.resolve(entry[0]);
    if (ended) return Promise.resolve({ key: { name: 'eof' }, at: performance.now() });
    return new Promise((resolve) => {
      waiting = resolve;
    });
  };
  return {
    next: () => nextTimed().then((timed) => timed.key),
    nextTimed,
    close() {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('close', onEnd);
      input.off('error', onEnd);
      input.pause();
      // Keys that arrived in the same read as the answer belong to whoever reads next (the next question).
      const unread = queue.map(([, raw]) => raw).join('');
      queue.length = 0;
      if (unread !== '' && !ended) input.unshift(Buffer.from(unread, 'utf8'));
    },
  };
}
