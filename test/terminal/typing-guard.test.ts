import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type KeyRole, TYPING_PAUSE_MS, TypingGuard } from '../../src/terminal/typing-guard.js';

/** Roles of keys at the given times, with the question shown at `shownAt`. */
function roles(times: number[], shownAt: number): KeyRole[] {
  const guard = new TypingGuard();
  const out: KeyRole[] = [];
  let shown = false;
  for (const at of times) {
    if (!shown && at >= shownAt) {
      guard.shown(shownAt);
      shown = true;
    }
    out.push(guard.key(at));
  }
  return out;
}

describe('TypingGuard', () => {
  it('a run that began before the question is typing, however long it goes on after', () => {
    // "please also update the tests" at 120 ms a key; the question appears at the 3rd key.
    const times = Array.from({ length: 40 }, (_, i) => i * 120);
    expect(roles(times, 250).every((role) => role === 'typing')).toBe(true);
  });

  it('the first key after a pause answers; the rest of its run does not', () => {
    const typed = [0, 100, 200];
    const later = [200 + TYPING_PAUSE_MS, 200 + TYPING_PAUSE_MS + 100, 200 + TYPING_PAUSE_MS + 150];
    expect(roles([...typed, ...later], 150)).toEqual([
      'typing',
      'typing',
      'typing',
      'answer',
      'more',
      'more',
    ]);
  });

  it('a pause just short of the threshold is still typing', () => {
    expect(roles([0, TYPING_PAUSE_MS - 1], 10)).toEqual(['typing', 'typing']);
    expect(roles([0, TYPING_PAUSE_MS], 10)).toEqual(['typing', 'answer']);
  });

  it('keys of one read (one time) are one run: only the first can answer', () => {
    expect(roles([1000, 1000, 1000], 0)).toEqual(['answer', 'more', 'more']);
  });

  it('no question on screen: every key is typing', () => {
    const guard = new TypingGuard();
    expect(guard.key(0)).toBe('typing');
    guard.shown(10);
    guard.hidden();
    expect(guard.key(5000)).toBe('typing');
  });

  it('a view opened by an answer takes the rest of its run; shown again, that run is typing', () => {
    const guard = new TypingGuard();
    guard.shown(0);
    expect(guard.key(1000)).toBe('answer'); // v
    guard.openedByThisRun();
    expect(guard.key(1100)).toBe('more'); // j in the pager
    expect(guard.key(1200)).toBe('more'); // q closes it
    guard.shown(1210);
    expect(guard.key(1300)).toBe('typing'); // y right after: not an answer
    expect(guard.key(1300 + TYPING_PAUSE_MS)).toBe('answer');
  });

  it('property: no key closer than the pause to a key before the question ever answers it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 2 * TYPING_PAUSE_MS }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 20_000 }),
        (gaps, shownAt) => {
          const times: number[] = [];
          let at = 0;
          for (const gap of gaps) times.push((at += gap));
          const judged = roles(times, shownAt);
          // Every answer is the first key after a pause, at or after the question.
          judged.forEach((role, i) => {
            if (role !== 'answer') return;
            expect(times[i]!).toBeGreaterThanOrEqual(shownAt);
            if (i > 0) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(TYPING_PAUSE_MS);
          });
          // A run that began before the question stays typing to its end.
          let i = 0;
          while (i < times.length && times[i]! < shownAt) i++;
          while (i < times.length && i > 0 && times[i]! - times[i - 1]! < TYPING_PAUSE_MS) {
            expect(judged[i]).toBe('typing');
            i++;
          }
        },
      ),
    );
  });
});
