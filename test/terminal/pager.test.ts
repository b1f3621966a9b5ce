import { describe, expect, it } from 'vitest';
import type { Key } from '../../src/terminal/keys.js';
import {
  createPagerState,
  findMatches,
  type PagerState,
  pagerKey,
  renderPagerFrame,
  runPager,
} from '../../src/terminal/pager.js';
import { ENTER_ALTERNATE_SCREEN, LEAVE_ALTERNATE_SCREEN } from '../../src/terminal/tty-modes.js';
import { TYPING_PAUSE_MS } from '../../src/terminal/typing-guard.js';
import { fakeInput, fakeOutput } from './streams.js';

const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
const view = { lines, height: 10 };

function press(state: PagerState, ...keys: (string | Key)[]): { state: PagerState; quit: boolean } {
  let result = { state, quit: false };
  for (const key of keys) {
    result = pagerKey(result.state, typeof key === 'string' ? { name: 'char', char: key } : key, view);
  }
  return result;
}

describe('pagerKey', () => {
  it('scrolls by line, page, half page, and to the ends, within bounds', () => {
    const start = createPagerState();
    expect(press(start, 'j').state.top).toBe(1);
    expect(press(start, { name: 'down' }, { name: 'down' }, { name: 'up' }).state.top).toBe(1);
    expect(press(start, 'k').state.top).toBe(0);
    expect(press(start, { name: 'pagedown' }).state.top).toBe(10);
    expect(press(start, ' ', ' ').state.top).toBe(20);
    expect(press(start, ' ', ' ', { name: 'pageup' }).state.top).toBe(10);
    expect(press(start, 'd').state.top).toBe(5);
    expect(press(start, 'G').state.top).toBe(90);
    expect(press(start, 'G', 'j').state.top).toBe(90);
    expect(press(start, 'G', 'g').state.top).toBe(0);
    expect(press(start, { name: 'end' }, { name: 'home' }).state.top).toBe(0);
  });

  it('quits on q, Esc, Ctrl-C and the end of input', () => {
    for (const key of ['q', { name: 'escape' }, { name: 'ctrl-c' }, { name: 'eof' }] as const) {
      expect(press(createPagerState(), key).quit).toBe(true);
    }
    expect(press(createPagerState(), 'j').quit).toBe(false);
  });

  it('searches with /, jumps to the match, and steps with n and N', () => {
    let { state } = press(createPagerState(), '/', ...'line 5', { name: 'enter' });
    expect(state.typing).toBe(false);
    expect(state.matchLine).toBe(4);
    expect(state.top).toBe(4);
    ({ state } = press(state, 'n'));
    expect([state.matchLine, state.top]).toEqual([49, 49]);
    ({ state } = press(state, 'n'));
    expect(state.matchLine).toBe(50);
    ({ state } = press(state, 'N', 'N'));
    expect(state.matchLine).toBe(4);
    ({ state } = press(state, 'N'));
    expect(state.matchLine).toBe(58);
    expect(state.message).toBe('Search wrapped to the bottom');
    // The end of the view limits how far the match can go to the top.
    expect(state.top).toBe(58);
    ({ state } = press(createPagerState(), '/', ...'line 99', { name: 'enter' }));
    expect([state.matchLine, state.top]).toEqual([98, 90]);
  });

  it('is case-insensitive for lowercase queries only, and says when nothing matches', () => {
    expect(findMatches(['Line A', 'line b'], 'line')).toEqual([0, 1]);
    expect(findMatches(['Line A', 'line b'], 'Line')).toEqual([0]);
    const { state } = press(createPagerState(), '/', ...'LINE', { name: 'enter' });
    expect(state.message).toBe('Not found: LINE');
    expect(press(createPagerState(), 'n').state.message).toBe('No search yet: press / to search');
  });

  it('edits the search text and cancels it with Esc', () => {
    let { state } = press(createPagerState(), '/', 'a', 'b', { name: 'backspace' });
    expect(state.draft).toBe('a');
    ({ state } = press(state, { name: 'escape' }));
    expect(state.typing).toBe(false);
    expect(press(state, 'q').quit).toBe(true);
  });

  it('searches through colour codes', () => {
    expect(findMatches(['\x1b[32mfoo\x1b[0mbar', 'foo bar'], 'foobar')).toEqual([0]);
  });
});

describe('renderPagerFrame', () => {
  it('shows the visible window and a status line with the position', () => {
    const state = press(createPagerState(), 'j', 'j').state;
    const frame = renderPagerFrame(lines, state, { width: 80, height: 5 });
    expect(frame.slice(0, 4)).toEqual(['line 3', 'line 4', 'line 5', 'line 6']);
    expect(frame[4]!.startsWith('lines 3-6 of 100 (6%)')).toBe(true);
    expect(frame[4]!.endsWith('q back')).toBe(true);
    expect(frame).toHaveLength(5);
  });

  it('pads past the end and shows the search being typed', () => {
    const state = { ...createPagerState(), typing: true, draft: 'fo' };
    const frame = renderPagerFrame(['a'], state, { width: 40, height: 3 });
    expect(frame.slice(0, 2)).toEqual(['a', '']);
    expect(frame[2]!.startsWith('/fo')).toBe(true);
  });

  it('marks matches in reverse video, keeping the line colours', () => {
    const state = { ...createPagerState(), query: 'bar', matchLine: 0 };
    const frame = renderPagerFrame(['\x1b[32mfoo bar\x1b[0m'], state, { width: 40, height: 2 });
    expect(frame[0]).toBe('\x1b[32mfoo \x1b[7mbar\x1b[27m\x1b[0m');
    expect(frame[1]!.startsWith('lines 1-1 of 1 (100%)  match 1/1')).toBe(true);
  });
});

describe('runPager', () => {
  it('draws frames in the alternate screen, reads keys in raw mode, and restores both', async () => {
    const input = fakeInput(true);
    const { output, text, waitFor } = fakeOutput({ columns: 40, rows: 6 });
    const exitListeners = process.listenerCount('exit');
    const done = runPager(lines, { input, output });
    await waitFor('lines 1-5');
    input.write('jjq');
    await done;
    const written = text();
    expect(written.startsWith(ENTER_ALTERNATE_SCREEN)).toBe(true);
    expect(written.endsWith(LEAVE_ALTERNATE_SCREEN)).toBe(true);
    expect(input.rawCalls).toEqual([true, false]);
    expect(input.isPaused()).toBe(true);
    expect(process.listenerCount('exit')).toBe(exitListeners);
    // The last frame: lines 3-7, then the status line.
    const frames = written.split('\x1b[1;1H');
    expect(frames).toHaveLength(4);
    const last = frames.at(-1)!;
    expect(last.startsWith('line 3\x1b[K\x1b[2;1Hline 4')).toBe(true);
    expect(last).toContain('\x1b[6;1Hlines 3-7 of 100');
  });

  it('at a terminal, keys typed before it was on screen, and the rest of their run, do not move or close it', async () => {
    const input = fakeInput(true);
    const { output, text, waitFor } = fakeOutput({ columns: 40, rows: 6 });
    input.write('jq'); // typed ahead
    const done = runPager(lines, { input, output });
    await waitFor('lines 1-5');
    input.write('jq'); // the same run, fast after: typing
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(text()).not.toContain(LEAVE_ALTERNATE_SCREEN);
    expect(text()).not.toContain('lines 2-6');
    await new Promise((resolve) => setTimeout(resolve, TYPING_PAUSE_MS + 50));
    input.write('q');
    await done;
    expect(text()).not.toContain('lines 2-6');
  });

  it('re-renders at the new width when the terminal is resized', async () => {
    const input = fakeInput();
    const { output } = fakeOutput({ columns: 80, rows: 10 });
    const widths: number[] = [];
    const done = runPager(
      (width) => {
        widths.push(width);
        return [`width ${width}`];
      },
      { input, output },
    );
    output.columns = 40;
    output.emit('resize');
    input.write('q');
    await done;
    expect(widths).toEqual([80, 40]);
  });

  it('restores the terminal when rendering fails', async () => {
    const input = fakeInput(true);
    const { output, text } = fakeOutput();
    const failing = () => {
      throw new Error('render failed');
    };
    await expect(runPager(failing, { input, output })).rejects.toThrow('render failed');
    expect(text().endsWith(LEAVE_ALTERNATE_SCREEN)).toBe(true);
    expect(input.rawCalls).toEqual([true, false]);
  });
});
