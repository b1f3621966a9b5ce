import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/core/diff.js';
import { loadHighlighter } from '../../src/core/highlight.js';
import { detectColorLevel, stripAnsi } from '../../src/terminal/colors.js';
import {
  NO_CHANGES_MESSAGE,
  type RenderableChange,
  renderDiff,
  renderPlainUnified,
} from '../../src/terminal/diff-view.js';
import { VIEW_LINE_CHARS, windowLongLines } from '../../src/terminal/long-lines.js';
import { diffOf, hunk, IDENTICAL } from './fixtures.js';

const modify: RenderableChange = {
  path: 'src/app.ts',
  kind: 'modify',
  diff: diffOf(hunk(1, 1, [' const a = 1;', '-const b = 2;', '+const b = 3;', ' const c = 4;'])),
};

/** The text of a rendered row after its gutter (the gutter is `gutter` columns wide). */
const textOf = (row: string, gutter: number) => stripAnsi(row).slice(gutter);

describe('renderDiff, plain', () => {
  it('shows a modification with context: header, hunk header, gutter with old and new numbers', () => {
    expect(renderDiff(modify)).toEqual([
      'src/app.ts  modified  +1 -1',
      '@@ -1,3 +1,3 @@',
      '1 1   const a = 1;',
      '2   - const b = 2;',
      '  2 + const b = 3;',
      '3 3   const c = 4;',
    ]);
  });

  it('shows a new file as all additions, /dev/null on the old side, with only new numbers', () => {
    const change: RenderableChange = {
      path: 'notes/new.txt',
      kind: 'create',
      diff: diffOf(hunk(0, 1, ['+hello', '+world'])),
    };
    expect(renderDiff(change)).toEqual([
      '/dev/null → notes/new.txt  created  +2 -0',
      '@@ -0,0 +1,2 @@',
      '1 + hello',
      '2 + world',
    ]);
  });

  it('shows a new file diffed by core the same way', () => {
    const change: RenderableChange = { path: 'a.txt', kind: 'create', diff: diffLines('', 'one\ntwo\n') };
    expect(renderDiff(change).slice(2)).toEqual(['1 + one', '2 + two']);
  });

  it('shows a deleted file with only old numbers and /dev/null on the new side', () => {
    const change: RenderableChange = { path: 'old.txt', kind: 'delete', diff: diffOf(hunk(1, 0, ['-bye'])) };
    expect(renderDiff(change)).toEqual(['old.txt → /dev/null  deleted  +0 -1', '@@ -1,1 +0,0 @@', '1 - bye']);
  });

  it('says plainly when the content is identical', () => {
    expect(renderDiff({ path: 'src/app.ts', kind: 'modify', diff: IDENTICAL })).toEqual([
      'src/app.ts  unchanged',
      NO_CHANGES_MESSAGE,
    ]);
    expect(NO_CHANGES_MESSAGE).toBe('No changes: the new content is identical.');
  });

  it('does not call creating or deleting an empty file "no changes"', () => {
    expect(renderDiff({ path: 'empty.txt', kind: 'create', diff: diffLines('', '') })).toEqual([
      '/dev/null → empty.txt  created  +0 -0',
      'An empty file.',
    ]);
    expect(renderDiff({ path: 'empty.txt', kind: 'delete', diff: IDENTICAL })).toEqual([
      'empty.txt → /dev/null  deleted  +0 -0',
      'The file was empty.',
    ]);
  });

  it('describes a binary file instead of dumping it', () => {
    const change: RenderableChange = {
      path: 'logo.png',
      kind: 'modify',
      diff: IDENTICAL,
      binary: { oldSize: 2048, newSize: 3_500_000 },
    };
    expect(renderDiff(change)).toEqual([
      'logo.png  modified  binary',
      'Binary file changes (2.0 KB → 3.3 MB); its bytes are not shown.',
    ]);
    expect(renderDiff({ path: 'x.bin', kind: 'create', diff: IDENTICAL, binary: true })).toEqual([
      '/dev/null → x.bin  created  binary',
      'Binary file; its bytes are not shown.',
    ]);
  });

  it('shows CRLF lines without a stray carriage return', () => {
    const change: RenderableChange = {
      path: 'win.txt',
      kind: 'modify',
      diff: diffOf(hunk(1, 1, [' first', '-second', '+2nd'], '\r\n')),
    };
    const rows = renderDiff(change);
    expect(rows.join('\n')).not.toContain('\r');
    expect(rows.slice(2)).toEqual(['1 1   first', '2   - second', '  2 + 2nd']);
  });

  it('labels the line endings when only the ending of a line changed', () => {
    const diff = diffLines('a\r\nb\r\n', 'a\r\nb\n');
    const rows = renderDiff({ path: 'mixed.txt', kind: 'modify', diff });
    expect(rows.join('\n')).not.toContain('\r');
    expect(rows).toContain('2   - b [CRLF]');
    expect(rows).toContain('  2 + b [LF]');
  });

  it('says so when a change takes the final newline away, or adds it (as the plain diff does)', () => {
    const removed = renderDiff({ path: 'a.txt', kind: 'modify', diff: diffLines('x\n', 'y') }, { color: 3 });
    // In colour too (the coloured view is the one that missed it), rows padded to the width for their tint.
    expect(removed.map((row) => stripAnsi(row).trimEnd())).toEqual([
      'a.txt  modified  +1 -1',
      '@@ -1,1 +1,1 @@',
      '1   - x',
      '  1 + y [no newline at end]',
    ]);
    const added = renderDiff({ path: 'a.txt', kind: 'modify', diff: diffLines('a\nx', 'a\ny\n') });
    expect(added).toContain('2   - x [no newline at end]');
    expect(added).toContain('  2 + y');
    // Neither side has one: nothing changed about it, nothing to say.
    const neither = renderDiff({ path: 'a.txt', kind: 'modify', diff: diffLines('x', 'y') });
    expect(neither.join('\n')).not.toContain('no newline');
  });

  it('expands tabs to tab stops', () => {
    const change: RenderableChange = {
      path: 'Makefile',
      kind: 'modify',
      diff: diffOf(hunk(1, 1, [' all:', '-\tcc -o x x.c', '+\tcc -O2 -o x x.c', ' ab\tc'])),
    };
    const rows = renderDiff(change, { tabWidth: 4 });
    expect(rows.join('')).not.toContain('\t');
    expect(rows.slice(2)).toEqual([
      '1 1   all:',
      '2   -     cc -o x x.c',
      '  2 +     cc -O2 -o x x.c',
      '3 3   ab  c',
    ]);
    expect(renderDiff(change, { tabWidth: 8 })[3]).toBe('2   -         cc -o x x.c');
  });

  it('wraps a long line at a narrow width, keeps the gutter and loses no text', () => {
    const long = 'export const message = "the quick brown fox jumps over the lazy dog, twice over";';
    const change: RenderableChange = {
      path: 'src/long.ts',
      kind: 'modify',
      diff: diffOf(hunk(9, 9, [' // before', `-${long.replace('twice', 'once')}`, `+${long}`])),
    };
    const gutter = '10 10 + '.length;
    for (const color of [0, 3] as const) {
      const rows = renderDiff(change, { width: 30, color });
      const added = rows.slice(rows.findIndex((row) => stripAnsi(row).startsWith('   10 + ')));
      expect(added.length).toBeGreaterThan(2);
      for (const row of rows) expect(stringWidth(stripAnsi(row))).toBeLessThanOrEqual(30);
      // Continuation rows have a blank gutter.
      for (const row of added.slice(1)) expect(stripAnsi(row).slice(0, gutter)).toBe(' '.repeat(gutter));
      const joined = added.map((row) => textOf(row, gutter)).join('');
      expect(color === 0 ? joined : joined.trimEnd()).toBe(long);
    }
    expect(renderDiff(change, { width: 30 }).slice(2, 4)).toEqual([
      ' 9  9   // before',
      '10    - export const message =',
    ]);
  });

  it('measures wide characters and never splits one across rows', () => {
    const text = '日本語のテキストと絵文字👍🏽を含む長い行です。折り返しても失われません。';
    const change: RenderableChange = {
      path: 'ja.md',
      kind: 'create',
      diff: diffOf(hunk(0, 1, [`+${text}`])),
    };
    const all = renderDiff(change, { width: 24 });
    // The header wraps too, between words: '/dev/null → ja.md  created  +1 -0' is wider than 24.
    expect(all.slice(0, 2)).toEqual(['/dev/null → ja.md  ', 'created  +1 -0']);
    const rows = all.slice(all.indexOf('@@ -0,0 +1,1 @@') + 1);
    const gutter = '1 + '.length;
    for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(24);
    expect(rows.length).toBeGreaterThan(2);
    expect(rows.map((row) => textOf(row, gutter)).join('')).toBe(text);
    expect(rows.some((row) => row.includes('👍🏽'))).toBe(true);
  });

  it('shows control characters in file content as symbols, never raw', () => {
    const change: RenderableChange = {
      path: 'evil.txt',
      kind: 'create',
      diff: diffOf(hunk(0, 1, ['+\x1b[2Jcleared', '+admin\u202e txt.exe'])),
    };
    const rows = renderDiff(change);
    expect(rows.join('')).not.toContain('\x1b');
    expect(rows.slice(2)).toEqual(['1 + ␛[2Jcleared', '2 + admin<U+202E> txt.exe']);
  });

  it('shows several hunks, each with its header', () => {
    const change: RenderableChange = {
      path: 'a.txt',
      kind: 'modify',
      diff: diffOf(hunk(1, 1, [' a', '-b', '+B', ' c']), hunk(98, 98, [' x', '+y', ' z'])),
    };
    expect(renderDiff(change)).toEqual([
      'a.txt  modified  +2 -1',
      '@@ -1,3 +1,3 @@',
      '  1   1   a',
      '  2     - b',
      '      2 + B',
      '  3   3   c',
      '@@ -98,2 +98,3 @@',
      ' 98  98   x',
      '     99 + y',
      ' 99 100   z',
    ]);
  });
});

describe('renderDiff, coloured', () => {
  const ESC = '\x1b';

  it('has the same text as the plain output once the codes are removed (short lines)', () => {
    const plain = renderDiff(modify);
    const colored = renderDiff(modify, { color: 3 });
    expect(colored.join('\n')).toContain(ESC);
    // Changed lines are padded with their tint to the full width; the text is the same.
    expect(colored.map((row) => stripAnsi(row).trimEnd())).toEqual(plain);
  });

  it('emphasises exactly the changed character of a one-character change', () => {
    const rows = renderDiff(modify, { color: 3, theme: 'dark' });
    // The stronger tints of the dark palette: removed #901011, added #006000.
    expect(emphasisSpans(rows[3]!, '48;2;144;16;17')).toEqual(['2']);
    expect(emphasisSpans(rows[4]!, '48;2;0;96;0')).toEqual(['3']);
  });

  it('marks the changed word with reverse video at 16 colours, where there are no tints', () => {
    const rows = renderDiff(modify, { color: 1 });
    expect(rows[4]).toContain('\x1b[1;7;92m3\x1b[0m');
    expect(rows[4]).not.toContain('48;');
  });

  it('colours the hunk header, the numbers and the markers', () => {
    const rows = renderDiff(modify, { color: 3, theme: 'dark' });
    expect(rows[1]).toBe('\x1b[1;38;2;96;165;250m@@ -1,3 +1,3 @@\x1b[0m');
    expect(rows[2]!.startsWith('\x1b[38;2;107;114;128m1 1 \x1b[0m')).toBe(true);
    expect(rows[4]).toContain('\x1b[1;38;2;74;222;128;48;2;0;40;0m+\x1b[0m');
  });

  it('uses 256-colour codes at level 2', () => {
    const rows = renderDiff(modify, { color: 2 });
    expect(rows.join('')).toContain('48;5;22m');
    expect(rows.join('')).not.toContain('48;2;');
  });

  it('has different light and dark palettes', () => {
    const dark = renderDiff(modify, { color: 3, theme: 'dark' });
    const light = renderDiff(modify, { color: 3, theme: 'light' });
    expect(light).not.toEqual(dark);
    expect(light.map(stripAnsi)).toEqual(dark.map(stripAnsi));
    expect(light[4]).toContain('48;2;208;255;208'); // light green tint
  });

  it('writes no escape code at all under NO_COLOR or without a terminal', () => {
    const noColor = detectColorLevel({ env: { NO_COLOR: '1', TERM: 'xterm-256color' }, isTTY: true });
    const piped = detectColorLevel({ env: { TERM: 'xterm-256color' }, isTTY: false });
    for (const level of [noColor, piped]) {
      const rows = renderDiff(modify, { color: level });
      expect(rows.join('\n')).not.toContain(ESC);
      expect(rows).toEqual(renderDiff(modify));
    }
  });

  it('writes colour under FORCE_COLOR even without a terminal', () => {
    const level = detectColorLevel({ env: { FORCE_COLOR: '3' }, isTTY: false });
    expect(level).toBe(3);
    expect(renderDiff(modify, { color: level }).join('')).toContain('38;2;');
    const basic = detectColorLevel({ env: { FORCE_COLOR: '1' }, isTTY: false });
    expect(renderDiff(modify, { color: basic }).join('')).toContain('\x1b[1;92m+');
  });

  it('lays syntax colours under the diff tints at 256 colours and up, not without colour', async () => {
    const highlighter = await loadHighlighter('src/app.ts');
    expect(highlighter).toBeDefined();
    const rows = renderDiff(modify, { color: 3, theme: 'dark', highlighter: highlighter! });
    // `const` in the keyword colour, on the added line's tint.
    expect(rows[4]).toContain('\x1b[38;2;198;120;221;48;2;0;40;0mconst');
    expect(renderDiff(modify, { color: 0, highlighter: highlighter! })).toEqual(renderDiff(modify));
  });
});

describe('renderPlainUnified', () => {
  it('is the unified diff text, with a/ and b/ paths', () => {
    const text = renderPlainUnified(modify);
    expect(text.split('\n').slice(0, 3)).toEqual(['--- a/src/app.ts', '+++ b/src/app.ts', '@@ -1,3 +1,3 @@']);
    expect(text).toContain('\n-const b = 2;\n+const b = 3;\n');
  });

  it('uses the request text when there is one, says nothing for identical, one line for binary', () => {
    expect(renderPlainUnified({ ...modify, unifiedDiff: 'given\n' })).toBe('given\n');
    expect(renderPlainUnified({ path: 'a', kind: 'modify', diff: IDENTICAL })).toBe('');
    expect(renderPlainUnified({ path: 'a.png', kind: 'create', diff: IDENTICAL, binary: true })).toBe(
      'Binary files /dev/null and b/a.png differ\n',
    );
  });
});

/** The texts drawn with a background that includes `bg` (an SGR fragment). */
function emphasisSpans(row: string, bg: string): string[] {
  const spans: string[] = [];
  for (const match of row.matchAll(/\x1b\[([0-9;]*)m([^\x1b]*)/g)) {
    if (match[1]!.includes(bg) && match[2]) spans.push(match[2]);
  }
  return spans;
}

describe('renderDiff, empty lines', () => {
  it('leaves no trailing spaces on empty lines in plain output', () => {
    const change: RenderableChange = {
      path: 'a.txt',
      kind: 'modify',
      diff: diffOf(hunk(1, 1, [' x', ' ', '-', '+y'])),
    };
    expect(renderDiff(change).slice(2)).toEqual(['1 1   x', '2 2', '3   -', '  3 + y']);
  });
});

describe('long lines', () => {
  it('shows a long changed line as a window around its change, saying what it left out', () => {
    const before = `const data = "${'x'.repeat(200_000)}MIDDLE${'y'.repeat(200_000)}";\n`;
    const after = before.replace('MIDDLE', 'CHANGED');
    const diff = diffLines(before, after);
    const [removed, added] = windowLongLines(diff).hunks[0]!.lines;
    for (const [line, word] of [
      [removed!, 'MIDDLE'],
      [added!, 'CHANGED'],
    ] as const) {
      expect(line.text.length).toBeLessThan(VIEW_LINE_CHARS + 100);
      expect(line.text).toContain(word);
      expect(line.text).toMatch(/^\[… \d+ characters not shown\] x+/);
      expect(line.text).toMatch(/y+ \[… \d+ more characters not shown\]$/);
    }
    expect(renderDiff({ ...modify, diff }, { width: 100 }).length).toBeLessThan(200);
  });
});
