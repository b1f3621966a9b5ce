import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * Much of a test file's time is spent waiting: on a coding agent and its fake model, a pty, Chromium, an
 * editgate child process. Vitest's default (one worker per core, less one) runs the suite one file at a time
 * on a 2-core machine, so on an otherwise idle machine those waits add up end to end: one worker per core
 * (two at least) overlaps them. Not more: the files are CPU-heavy between their waits (a child process or an
 * agent starting costs most of a core), and on a shared, saturated machine more workers do not get more CPU,
 * only make each file slower, so the tests' time-outs come closer. `npm test -- --maxWorkers=1` runs one at a
 * time.
 */
const WORKERS = Math.max(2, availableParallelism());

/**
 * Files that take the longest, by what they drive: with several workers, the suite ends when its last file
 * does, so these start first instead of whenever their size places them. Vitest's own order follows (the
 * last run's durations when it kept them, otherwise the larger file first).
 */
const STARTS_FIRST = [/^test\/agents\//, /\.browser\.test\.ts$/, /^test\/package\//, /\.e2e\.test\.ts$/];

function startRank(spec: TestSpecification): number {
  const path = spec.moduleId.slice(spec.project.config.root.length + 1);
  const rank = STARTS_FIRST.findIndex((pattern) => pattern.test(path));
  return rank === -1 ? STARTS_FIRST.length : rank;
}

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, index) => ({ spec, index, rank: startRank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: WORKERS,
    sequence: { sequencer: LongestFirst },
  },
});
