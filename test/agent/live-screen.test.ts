import { describe, expect, it } from 'vitest';
import { InputEditor } from '../../src/agent/ui/input-editor.js';
import { InputDecoder } from '../../src/agent/ui/input-keys.js';
import { cut, LiveScreen } from '../../src/agent/ui/live-screen.js';

/** An output stream that records writes, with a size, and a clock and timers the test moves by hand. */
function fakeTerminal(columns = 40, rows = 10) {
  const writes: string[] = [];
  let now = 0;
  const timers: { at: number; run: () => void }[] = [];
  const output = {
    columns,
    rows,
    isTTY: true,
    write(text: string) {
      writes.push(text);
      return true;
    },
  } as unknown as NodeJS.WritableStream & { columns: number; rows: number };
  const screen = new LiveScreen({
    output,
    now: () => now,
    schedule: (run, ms) => {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return { cancel: () => timers.splice(timers.indexOf(timer), 1) };
    },
  });
  screen.open();
  const advance = (ms: number) => {
    now += ms;
    for (const timer of timers.filter((t) => t.at <= now)) {
      timers.splice(timers.indexOf(timer), 1);
      timer.run();
    }
  };
  return { screen, writes, output, advance };
}

describe('LiveScreen', () => {
  it('writes committed lines once, above the live region, and redraws only the live region', () => {
    const { screen, writes, advance } = fakeTerminal();
    screen.setLive(() => ({ lines: ['status', '› '], cursor: { line: 1, column: 2 } }));
    advance(16);
    screen.commit(['first line']);
    advance(16);
    screen.commit(['second line']);
    advance(16);
    const all = writes.join('');
    expect(all.split('first line').length - 1).toBe(1);
    expect(all.split('second line').length - 1).toBe(1);
    // A frame after the first moves up to the live region's first row (the cursor was on its second) and
    // erases down, all inside one synchronized update.
    expect(writes.at(-1)).toMatch(/^\x1b\[\?2026h\x1b\[\?25l\r\x1b\[1A\x1b\[J/);
    expect(writes.at(-1)).toMatch(/\x1b\[\?2026l$/);
    for (const write of writes) {
      expect(write).not.toContain('\x1b[3J');
      expect(write).not.toContain('\x1b[2J');
    }
  });

  it('draws at most one frame per 16 ms however often it is told something changed', () => {
    const { screen, writes, advance } = fakeTerminal();
    let n = 0;
    screen.setLive(() => ({ lines: [`frame ${n}`] }));
    for (let i = 0; i < 100; i++) {
      n = i;
      screen.commit([`line ${i}`]);
      advance(1);
    }
    advance(16);
    expect(writes.length).toBeLessThanOrEqual(100 / 16 + 2);
    expect(writes.join('')).toContain('line 99');
    // Nothing committed is lost or repeated between frames.
    for (let i = 0; i < 100; i++) expect(writes.join('').split(`line ${i}\n`).length - 1).toBe(1);
  });

  it('after a resize it counts the rows the terminal re-wrapped, so the erase starts at the live region', () => {
    const { screen, writes, output, advance } = fakeTerminal(40, 10);
    screen.setLive(() => ({ lines: ['x'.repeat(30), 'y'.repeat(30), '›'] }));
    advance(16);
    output.columns = 20; // each 30-column row now takes two rows
    screen.dirty();
    advance(16);
    expect(writes.at(-1)).toContain('\r\x1b[4A\x1b[J');
  });

  it('never draws a live region taller than the screen less a row, nor wider than a row', () => {
    const { screen, writes, advance } = fakeTerminal(20, 8);
    screen.setLive(() => ({ lines: Array.from({ length: 30 }, (_, i) => `${i} ${'w'.repeat(40)}`) }));
    advance(16);
    const frame = writes.at(-1)!.replace(/\x1b\[[0-9;?]*[a-zA-Z]|\r/g, '');
    const rows = frame.split('\n');
    expect(rows).toHaveLength(7);
    for (const row of rows) expect([...row].length).toBeLessThanOrEqual(19);
  });

  it('cut keeps escape sequences and cuts by columns', () => {
    expect(cut('\x1b[1mabcdef\x1b[0m', 3)).toBe('\x1b[1mabc\x1b[0m');
    expect(cut('漢字漢字', 5)).toBe('漢字\x1b[0m');
  });
});

describe('the input', () => {
  it('decodes Enter, Ctrl-J and Alt-Enter, and a bracketed paste as one event even across reads', () => {
    const decoder = new InputDecoder();
    expect(decoder.feed('a\r').map((e) => (e.type === 'key' ? e.key.name : e.type))).toEqual([
      'char',
      'enter',
    ]);
    expect(decoder.feed('\n\x1b\r').map((e) => (e.type === 'key' ? e.key.name : e.type))).toEqual([
      'newline',
      'newline',
    ]);
    expect(decoder.feed('\x1b[200~line 1\r\nli')).toEqual([]);
    expect(decoder.feed('ne 2\x1b[201~x')).toEqual([
      { type: 'paste', text: 'line 1\nline 2' },
      { type: 'key', key: { name: 'char', char: 'x' } },
    ]);
  });

  it('edits several lines, submits on Enter, and walks the history with up and down', () => {
    const editor = new InputEditor(['earlier']);
    const decoder = new InputDecoder();
    const type = (data: string) => decoder.feed(data).map((event) => editor.handle(event));
    type('first\nsecond');
    expect(editor.text).toBe('first\nsecond');
    expect(editor.render(40, '› ')).toEqual({
      lines: ['› first', '  second'],
      cursor: { line: 1, column: 8 },
    });
    type('\x1b[A'); // up: to the first line
    expect(editor.caret).toBe(5);
    expect(type('\r')).toEqual(['submit']);
    editor.remember(editor.text);
    editor.clear();
    type('\x1b[A');
    expect(editor.text).toBe('first\nsecond');
    type('\x1b[A\x1b[A');
    expect(editor.text).toBe('earlier');
    type('\x1b[B\x1b[B');
    expect(editor.text).toBe('');
  });

  it('a trailing backslash and Enter continue the message on a new line', () => {
    const editor = new InputEditor();
    const decoder = new InputDecoder();
    for (const event of decoder.feed('one\\\rtwo')) editor.handle(event);
    expect(editor.text).toBe('one\ntwo');
  });

  it('wraps long input to the width and keeps the caret on the right row', () => {
    const editor = new InputEditor();
    editor.insert('abcdefghijklmnopqrstuvwxyz');
    const view = editor.render(12, '› ');
    expect(view.lines).toEqual(['› abcdefghi', '  jklmnopqr', '  stuvwxyz']);
    expect(view.cursor).toEqual({ line: 2, column: 10 });
  });
});
