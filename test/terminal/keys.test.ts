import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createKeyReader, parseKeys } from '../../src/terminal/keys.js';

const names = (data: string) => parseKeys(data).map((key) => (key.name === 'char' ? key.char : key.name));

describe('parseKeys', () => {
  it('reads characters, control keys and escape sequences', () => {
    expect(names('yA')).toEqual(['y', 'A']);
    expect(names('\r\n\x7f\x08\x03\x04\t')).toEqual([
      'enter',
      'backspace',
      'backspace',
      'ctrl-c',
      'ctrl-d',
      'tab',
    ]);
    expect(names('\x1b[A\x1b[B\x1bOC\x1b[D')).toEqual(['up', 'down', 'right', 'left']);
    expect(names('\x1b[5~\x1b[6~\x1b[H\x1b[F\x1b[1~\x1b[4~')).toEqual([
      'pageup',
      'pagedown',
      'home',
      'end',
      'home',
      'end',
    ]);
    expect(names('\x1b')).toEqual(['escape']);
    expect(names('\x1b\x1b')).toEqual(['escape', 'escape']);
    expect(names('日👍')).toEqual(['日', '👍']);
  });
});

describe('createKeyReader', () => {
  it('queues keys, decodes split UTF-8, and reports the end', async () => {
    const input = new PassThrough();
    const keys = createKeyReader(input);
    const bytes = Buffer.from('é');
    input.write(bytes.subarray(0, 1));
    input.write(bytes.subarray(1));
    input.write('q');
    expect(await keys.next()).toEqual({ name: 'char', char: 'é' });
    expect(await keys.next()).toEqual({ name: 'char', char: 'q' });
    input.end();
    expect(await keys.next()).toEqual({ name: 'eof' });
    expect(await keys.next()).toEqual({ name: 'eof' });
    keys.close();
  });

  it('gives each key the time its read arrived: keys of one read share it, a later read is later', async () => {
    const input = new PassThrough();
    const keys = createKeyReader(input);
    input.write('yn');
    await new Promise((resolve) => setTimeout(resolve, 5));
    input.write('a');
    const [y, n, a] = [await keys.nextTimed(), await keys.nextTimed(), await keys.nextTimed()];
    expect([y.key, n.key, a.key]).toEqual([
      { name: 'char', char: 'y' },
      { name: 'char', char: 'n' },
      { name: 'char', char: 'a' },
    ]);
    expect(n.at).toBe(y.at);
    expect(a.at).toBeGreaterThan(y.at);
    keys.close();
  });

  it('gives unread keys back to the stream on close, for the next reader', async () => {
    const input = new PassThrough();
    const first = createKeyReader(input);
    input.write('y\x1b[Bn');
    expect(await first.next()).toEqual({ name: 'char', char: 'y' });
    first.close();
    const second = createKeyReader(input);
    expect(await second.next()).toEqual({ name: 'down' });
    expect(await second.next()).toEqual({ name: 'char', char: 'n' });
    second.close();
  });
});
