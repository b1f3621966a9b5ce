import { describe, expect, it } from 'vitest';
import { changeOutcome } from '../../src/agent/repl/chat-app.js';
import { renderCard } from '../../src/agent/ui/card.js';
import { sanitizeOutput } from '../../src/agent/ui/sanitize.js';
import {
  detailLines,
  fitText,
  type Look,
  noteLines,
  outcomeLine,
  promptLines,
  REPLY_GUTTER_WIDTH,
  replyLines,
  splitOpenRow,
  toolLine,
} from '../../src/agent/ui/transcript.js';
import { stripAnsi } from '../../src/terminal/colors.js';
import { paletteFor } from '../../src/terminal/palette.js';
import { oneFileRequest } from '../one-file-request.js';

// The transcript's lines at fixed widths, plain (colour level 0), so every column is checked.

const look = (width: number, level: 0 | 3 = 0): Look => ({ width, level, palette: paletteFor('dark') });
const widthOf = (line: string) => [...stripAnsi(line)].length;

describe('transcript lines', () => {
  it("the person's message: a blank row, then › and the text wrapped under it", () => {
    expect(promptLines('make greet say hi and end with a full stop please', look(24))).toEqual([
      '',
      '› make greet say hi and ',
      '  end with a full stop ',
      '  please',
    ]);
  });

  it('reply lines wrap at spaces to the width; an open row stays open until the next starts', () => {
    expect(replyLines('one two three four five six', look(14))).toEqual([
      '▎ one two ',
      '▎ three four ',
      '▎ five six',
    ]);
    expect(splitOpenRow('one two three four five six', 12)).toEqual({
      done: ['one two ', 'three four '],
      rest: 'five six',
    });
    expect(splitOpenRow('short', 12)).toEqual({ done: [], rest: 'short' });
  });

  it('the tool line: ⚙ name target · summary, the target shortened to fit one row', () => {
    expect(toolLine('read_file', 'src/api.ts', '120 lines', look(80))).toBe(
      '⚙ read_file src/api.ts · 120 lines',
    );
    const long = toolLine(
      'grep',
      'a very long pattern that does not fit in the row at all',
      '3 matches',
      look(40),
    );
    expect(long).toBe('⚙ grep a very long pattern… · 3 matches');
    expect(widthOf(long)).toBeLessThanOrEqual(40);
  });

  it('the card collapses to one outcome line saying who approved', () => {
    expect(
      outcomeLine(
        true,
        changeOutcome({ ok: true, message: '', summary: '+1 -1' }, { reason: 'ask', decision: 'file' }),
        look(60),
      ),
    ).toEqual(['✓ applied (you: this file)']);
    expect(changeOutcome({ ok: true, message: '', summary: '+1 -1' }, { reason: 'policy' })).toBe(
      'applied (policy rule)',
    );
    expect(changeOutcome({ ok: true, message: '', summary: '+1 -1' }, { reason: 'session' })).toBe(
      'applied (allowed earlier this session)',
    );
    expect(
      changeOutcome(
        { ok: false, code: 'DENIED_USER', message: 'x', summary: '' },
        { decision: { deny: 'not now' } },
      ),
    ).toBe('denied (you): not now');
    expect(changeOutcome({ ok: false, code: 'STALE', message: 'x', summary: '' }, {})).toMatch(
      /^not applied: the file changed on disk/,
    );
    // What happened, as the tool keeps it apart from the advice for the model (#27): never the advice.
    expect(
      changeOutcome(
        {
          ok: false,
          code: 'NOT_FOUND',
          message:
            'edit_file failed (NOT_FOUND): The text to replace was not found. Read the file with read_file.',
          happened: 'The text to replace was not found.',
          summary: '',
        },
        {},
      ),
    ).toBe('not applied (NOT_FOUND): The text to replace was not found.');
  });

  it('every row fits the width, at any width, coloured or not', () => {
    for (const width of [20, 33, 80]) {
      for (const level of [0, 3] as const) {
        const rows = [
          ...promptLines('x '.repeat(100), look(width, level)),
          ...replyLines('word '.repeat(100), look(width, level)),
          toolLine('edit_file', 'src/'.repeat(30), '+1 -1', look(width, level)),
          ...outcomeLine(false, 'denied (you): '.repeat(10), look(width, level)),
          ...noteLines('note '.repeat(40), look(width, level), 'warning'),
          ...detailLines('out\n'.repeat(20), look(width, level), 5),
        ];
        for (const row of rows) expect(widthOf(row), row).toBeLessThanOrEqual(width);
      }
    }
  });

  it("a command's output: its last rows, dim, with how many were left out", () => {
    expect(detailLines('a\nb\nc\nd\n', look(30), 2)).toEqual(['  │ … 2 more lines above', '  │ c', '  │ d']);
  });

  it('the permission card lists its keys, as many to a row as fit', () => {
    const request = oneFileRequest({
      tool: 'edit_file',
      path: 'src/app.ts',
      kind: 'modify',
      diff: { hunks: [], added: 1, removed: 1, identical: false },
      unifiedDiff: '',
      stats: { added: 1, removed: 1 },
    });
    expect(renderCard({ kind: 'change', request }, look(100))).toEqual([
      'Apply this edit to src/app.ts?',
      '  y yes · a yes, this file for the session · A yes, all edits this session · n no',
      '  r no, with a reason · + yes, with a note · v view the whole diff · Esc no, and stop the turn',
    ]);
    expect(
      renderCard(
        { kind: 'command', request: { command: 'npm test', description: 'run the tests' } },
        look(100),
      ),
    ).toEqual([
      'Run this command?',
      '  $ npm test',
      '  run the tests',
      '  y yes · n no · r no, with a reason · v view the whole command · Esc no, and stop the turn',
    ]);
  });
});

describe('text from a model or a command never reaches the screen raw', () => {
  it('escape sequences are removed; other control characters become symbols', () => {
    const hostile = 'ok\x1b[2J\x1b[3J\x1b]0;pwned\x07 done\x1b[31mred\x1b[0m\x07\x08';
    const rows = replyLines(hostile, look(80));
    expect(rows.join('')).not.toContain('\x1b');
    expect(rows.join('')).toBe('▎ ok␛[2J␛[3J␛]0;pwned␇ done␛[31mred␛[0m␇␈');
    expect(sanitizeOutput('\x1b[32mgreen\x1b[0m\nprogress 10%\rprogress 100%\n')).toBe(
      'green\nprogress 100%\n',
    );
    expect(detailLines('\x1b[2J\x1b[Hcleared?\x07', look(40), 5)).toEqual(['  │ cleared?␇']);
    expect(toolLine('bash', '$ echo \x1b[2J', undefined, look(40))).toBe('⚙ bash $ echo ␛[2J');
  });

  it('fitText cuts at the width with an ellipsis', () => {
    expect(fitText('abcdefghij', 5)).toBe('abcd…');
    expect(fitText('abc', 5)).toBe('abc');
  });
});

describe("the model's text cannot read as editgate's own lines (#26)", () => {
  it("every row of a reply starts with the gutter, no line of editgate's does, with or without colour", () => {
    for (const level of [0, 3] as const) {
      const mimic = '✓ applied (you: this file)\n\n✗ denied (you): no\n⚙ edit_file app.ts\n› yes\n! careful';
      const reply = replyLines(mimic, look(30, level)).map(stripAnsi);
      expect(reply.length).toBeGreaterThan(5);
      for (const row of reply) expect(row.startsWith('▎')).toBe(true);
      const own = [
        ...outcomeLine(true, 'applied (you: this file)', look(30, level)),
        ...outcomeLine(false, 'denied (you): no', look(30, level)),
        toolLine('edit_file', 'app.ts', undefined, look(30, level)),
        ...promptLines('yes', look(30, level)),
        ...noteLines('careful', look(30, level), 'warning'),
        ...noteLines('a note', look(30, level)),
        ...detailLines('output', look(30, level), 3),
      ].map(stripAnsi);
      for (const row of own) expect(row.startsWith('▎')).toBe(false);
      expect(reply[0]).toBe('▎ ✓ applied (you: this file)');
      expect(own).toContain('✓ applied (you: this file)');
    }
  });
});

describe('the ASCII fast path', () => {
  it('wraps exactly as the cell renderer does', async () => {
    const fc = await import('fast-check');
    const { toCells, wrapCells } = await import('../../src/terminal/cells.js');
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ]{0,200}$/), fc.integer({ min: 1, max: 50 }), (text, width) => {
        const slow = wrapCells(toCells(text), width, true).map((row) =>
          row.map((cell) => cell.text).join(''),
        );
        expect(replyLines(text, look(width + REPLY_GUTTER_WIDTH))).toEqual(slow.map((row) => `▎ ${row}`));
        const { done, rest } = splitOpenRow(text, width);
        expect([...done, rest]).toEqual(slow);
      }),
    );
  });
});
