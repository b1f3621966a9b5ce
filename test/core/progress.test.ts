import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ProgressEvent,
  ProgressPasses,
  type ProgressPhase,
  ProgressReporter,
} from '../../src/core/progress.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ProgressReporter', () => {
  function reporter(total = 1000) {
    const events: [ProgressPhase, number][] = [];
    const progress = new ProgressReporter((event) => events.push([event.phase, event.done]), 'a.sql', total);
    return { events, progress };
  }

  it('forwards a phase start, its end, and in between one event per 100 ms', () => {
    vi.useFakeTimers();
    const { events, progress } = reporter();
    progress.report('index', 10);
    progress.report('index', 20);
    vi.advanceTimersByTime(100);
    progress.report('index', 30);
    progress.report('index', 40);
    progress.done('index');
    expect(events).toEqual([
      ['index', 10],
      ['index', 30],
      ['index', 1000],
    ]);
  });

  it('throttles phases that alternate (a search with the writer behind it) as one', () => {
    vi.useFakeTimers();
    const { events, progress } = reporter();
    for (let at = 10; at < 900; at += 10) {
      progress.report('search', at);
      progress.report('write', at - 5);
      vi.advanceTimersByTime(2);
    }
    // Each phase's first event, then about one per 100 ms of the 178 ms.
    expect(events.length).toBeLessThanOrEqual(4);
    expect(events.slice(0, 2)).toEqual([
      ['search', 10],
      ['write', 5],
    ]);
  });

  it('always forwards a phase that starts over and a phase reaching the end', () => {
    vi.useFakeTimers();
    const { events, progress } = reporter();
    progress.report('search', 10);
    progress.report('search', 1000);
    progress.report('search', 10);
    progress.report('search', 20);
    expect(events).toEqual([
      ['search', 10],
      ['search', 1000],
      ['search', 10],
    ]);
  });

  it('keeps a callback that throws away from the work', () => {
    const progress = new ProgressReporter(
      () => {
        throw new Error('observer');
      },
      'a.sql',
      10,
    );
    expect(() => progress.done('write')).not.toThrow();
  });
});

describe('ProgressPasses', () => {
  const event = (phase: ProgressPhase, done: number, path = 'a.sql'): ProgressEvent => ({
    path,
    phase,
    done,
    total: 1000,
    elapsedMs: 0,
  });
  const fold = (events: ProgressEvent[]) => {
    const passes = new ProgressPasses();
    return events.map((e) => {
      const { phase, passDone, done, total } = passes.update(e);
      return [phase, passDone, done, total];
    });
  };

  it('a single pass: the event figures as they are', () => {
    expect(fold([event('write', 100), event('write', 600), event('write', 1000)])).toEqual([
      ['write', 100, 100, 1000],
      ['write', 600, 600, 1000],
      ['write', 1000, 1000, 1000],
    ]);
  });

  it('indexing then writing: two passes, counted one after the other', () => {
    expect(
      fold([event('index', 500), event('index', 1000), event('write', 100), event('write', 1000)]),
    ).toEqual([
      ['index', 500, 500, 1000],
      ['index', 1000, 1000, 1000],
      ['write', 100, 1100, 2000],
      ['write', 1000, 2000, 2000],
    ]);
  });

  it('a search with the writer right behind it is one pass, shown as writing', () => {
    expect(fold([event('write', 5), event('search', 10), event('write', 400), event('search', 410)])).toEqual(
      [
        ['write', 5, 5, 1000],
        ['write', 10, 10, 1000],
        ['write', 400, 400, 1000],
        ['write', 410, 410, 1000],
      ],
    );
  });

  it('a phase that starts over (exact found nothing, tolerant searches again) is a new pass', () => {
    expect(
      fold([
        event('write', 5),
        event('search', 10),
        event('search', 1000),
        event('search', 10),
        event('search', 1000),
        event('write', 10),
      ]),
    ).toEqual([
      ['write', 5, 5, 1000],
      ['write', 10, 10, 1000],
      ['write', 1000, 1000, 1000],
      ['search', 10, 1010, 2000],
      ['search', 1000, 2000, 2000],
      ['write', 10, 2010, 3000],
    ]);
  });

  it('never goes back, whatever comes', () => {
    const passes = new ProgressPasses();
    let last = -1;
    const phases: ProgressPhase[] = ['index', 'search', 'write', 'read'];
    for (let i = 0; i < 2000; i++) {
      const done = Math.floor(Math.random() * 1001);
      const overall = passes.update(event(phases[i % 4]!, done, i % 300 === 0 ? 'b.sql' : 'a.sql'));
      expect(overall.done).toBeGreaterThanOrEqual(last);
      expect(overall.total).toBeGreaterThanOrEqual(overall.done);
      last = overall.done;
    }
  });
});
