import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/core/progress.js';
import { displayWidth } from '../../src/terminal/cells.js';
import { stripAnsi } from '../../src/terminal/colors.js';
import {
  CLEAR_LINE,
  createProgressBar,
  formatSeconds,
  renderProgressLine,
} from '../../src/terminal/progress-bar.js';
import { fakeOutput } from './streams.js';

const MB = 1024 * 1024;
const GB = 1024 * MB;

const event = (done: number, elapsedMs: number, more: Partial<ProgressEvent> = {}): ProgressEvent => ({
  path: 'src/big.sql',
  phase: 'write',
  done,
  total: GB,
  elapsedMs,
  ...more,
});

function tty(columns = 80) {
  const out = fakeOutput({ columns });
  out.output.isTTY = true;
  return out;
}

/** What the terminal shows: the text after the last line erase. */
function screen(text: string): string {
  const at = text.lastIndexOf(CLEAR_LINE);
  return at === -1 ? text : text.slice(at + CLEAR_LINE.length);
}

describe('createProgressBar', () => {
  it('draws one line in place once the work has taken a second', () => {
    const out = tty();
    const bar = createProgressBar(out.output, { color: 0 });
    bar.onProgress(event(100 * MB, 200));
    bar.onProgress(event(300 * MB, 900));
    expect(out.text()).toBe('');
    bar.onProgress(event(512 * MB, 2100));
    expect(out.text()).toBe(
      `${CLEAR_LINE}writing src/big.sql  ███████████████░░░░░░░░░░░░░░░  512 MB / 1.0 GB  2.1s`,
    );
    bar.onProgress(event(GB, 2500));
    expect(screen(out.text())).toBe(
      'writing src/big.sql  ██████████████████████████████  1.0 GB / 1.0 GB  2.5s',
    );
    expect(out.text()).not.toContain('\n');
  });

  it('done() erases the line, and the next operation starts a new bar', () => {
    const out = tty();
    const bar = createProgressBar(out.output, { color: 0 });
    bar.onProgress(event(GB / 2, 1500));
    bar.done();
    expect(out.text().endsWith(CLEAR_LINE)).toBe(true);
    const before = out.text().length;
    bar.done();
    expect(out.text()).toHaveLength(before);
    // A new operation: its phases count from 0 again.
    bar.onProgress(event(GB / 4, 1200, { phase: 'index', path: 'other.log' }));
    expect(screen(out.text())).toMatch(/^indexing other\.log {2}█+░+ {2}256 MB \/ 1\.0 GB {2}1\.2s$/);
  });

  it('done() writes nothing when nothing was drawn (work under a second)', () => {
    const out = tty();
    const bar = createProgressBar(out.output, { color: 0 });
    bar.onProgress(event(GB, 400));
    bar.done();
    expect(out.text()).toBe('');
  });

  it('shows nothing on an output that is not a terminal', () => {
    const out = fakeOutput({ columns: 80 });
    const bar = createProgressBar(out.output, { color: 3 });
    bar.onProgress(event(GB / 2, 5000));
    bar.done();
    expect(out.text()).toBe('');
  });

  it('a search with the write right behind it reads as writing, not flickering between the two', () => {
    const out = tty();
    const bar = createProgressBar(out.output, { color: 0 });
    bar.onProgress(event(100 * MB, 1100, { phase: 'search' }));
    bar.onProgress(event(99 * MB, 1100, { phase: 'write' }));
    bar.onProgress(event(200 * MB, 1200, { phase: 'search' }));
    bar.onProgress(event(199 * MB, 1200, { phase: 'write' }));
    const drawn = out.text().split(CLEAR_LINE).filter(Boolean);
    expect(drawn.map((line) => line.split('  ')[0])).toEqual([
      'searching src/big.sql',
      'writing src/big.sql',
      'writing src/big.sql',
    ]);
  });

  it('colours only the bar and the figures, and only when colour is on', () => {
    const out = tty();
    const bar = createProgressBar(out.output, { color: 1 });
    bar.onProgress(event(GB / 2, 3000));
    const line = screen(out.text());
    expect(line).toContain('\x1b[');
    expect(line.startsWith('writing src/big.sql  ')).toBe(true);
    expect(stripAnsi(line)).toBe(
      'writing src/big.sql  ███████████████░░░░░░░░░░░░░░░  512 MB / 1.0 GB  3.0s',
    );

    const plain = tty();
    const noColor = createProgressBar(plain.output, { color: 3, noColor: true });
    noColor.onProgress(event(GB / 2, 3000));
    expect(plain.text()).not.toMatch(/\x1b\[[0-9;]*m/);
  });

  it('fits the terminal, however narrow, leaving the last column free', () => {
    for (let columns = 1; columns <= 120; columns++) {
      const out = tty(columns);
      const bar = createProgressBar(out.output, { color: 2 });
      bar.onProgress(
        event(GB / 3, 61_000, { path: 'src/deeply/nested/folder/with/a/very/long/path/big.sql' }),
      );
      const line = stripAnsi(screen(out.text()));
      expect(displayWidth(line)).toBeLessThanOrEqual(Math.max(1, columns - 1));
    }
  });

  it('keeps control characters in a path from reaching the terminal', () => {
    const out = tty();
    const bar = createProgressBar(out.output, { color: 0 });
    bar.onProgress(event(GB / 2, 1500, { path: 'evil\x1b]0;title\x07.sql' }));
    expect(screen(out.text())).toContain('evil␛]0;title␇.sql');
  });
});

describe('renderProgressLine', () => {
  const line = {
    action: 'writing',
    path: 'src/deeply/nested/big.sql',
    done: 512 * MB,
    total: GB,
    elapsedMs: 2100,
  };

  it('gives way in order: the bar narrows, then the path loses its start, then the bar and the action go', () => {
    const at = (columns: number) => renderProgressLine(line, columns);
    expect(at(100)).toBe(
      'writing src/deeply/nested/big.sql  ███████████████░░░░░░░░░░░░░░░  512 MB / 1.0 GB  2.1s',
    );
    expect(at(70)).toBe('writing src/deeply/nested/big.sql  ██████░░░░░░  512 MB / 1.0 GB  2.1s');
    expect(at(52)).toBe('writing …/big.sql  █████░░░░░  512 MB / 1.0 GB  2.1s');
    expect(at(40)).toBe('writing …/big.sql  512 MB / 1.0 GB  2.1s');
    expect(at(34)).toBe('…ed/big.sql  512 MB / 1.0 GB  2.1s');
    expect(at(30)).toBe('512 MB / 1.0 GB  2.1s');
    expect(at(20)).toBe('50%');
    for (const columns of [100, 70, 52, 40, 34, 30, 20, 3, 2])
      expect(displayWidth(at(columns))).toBeLessThanOrEqual(columns);
  });
});

describe('formatSeconds', () => {
  it('tenths under a minute, then minutes and seconds', () => {
    expect([0, 999, 2150, 59_999, 65_000, 720_000].map(formatSeconds)).toEqual([
      '0.0s',
      '0.9s',
      '2.1s',
      '59.9s',
      '1m05s',
      '12m00s',
    ]);
  });
});
