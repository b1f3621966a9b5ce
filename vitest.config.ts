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

/**
 * Folders whose files share a worker process and the modules it has loaded (isolate: false), instead of a new
 * process and a fresh import of src/ and the test helpers per file, which costs more CPU than many files'
 * tests (test/core + test/gate: 74 s of CPU isolated, 36 s shared; test/mcp, proxy, hooks and checks: 209 s
 * isolated, 123 s shared). Their files set no global state that outlives them, and what a test opens is
 * closed through test/cleanup.ts, whose hook runs per file (a hook at a helper module's top would not). A
 * file that mocks a module (vi.mock) stays isolated, as a module another file loaded first would not be
 * mocked; so do the coding agents' files (test/agents), which change the environment a run inherits and
 * spend their time in the agents, not in imports.
 */
const SHARED_WORKER = [
  'adapters',
  'agent',
  'architecture',
  'checks',
  'cli',
  'core',
  'docs',
  'faces',
  'gate',
  'hooks',
  'mcp',
  'proxy',
  'readme',
  'terminal',
  'tools',
  'web',
  'workspace',
].map((folder) => `test/${folder}/**/*.test.ts`);
const NEEDS_ITS_OWN_PROCESS = ['test/workspace/early-write-order.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // Per test file, also where files share a worker: what a test opened closes after it, the file's temp
    // folders go when it ends. The run's temp
    // folder (for what a worker keeps while it runs) goes when the run does.
    setupFiles: ['test/setup/cleanup.ts'],
    globalSetup: ['test/setup/run-temp-folder.ts'],
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: WORKERS,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: { name: 'in-process', include: SHARED_WORKER, exclude: NEEDS_ITS_OWN_PROCESS, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: SHARED_WORKER } },
      { extends: true, test: { name: 'isolated-mocks', include: NEEDS_ITS_OWN_PROCESS } },
    ],
  },
});
