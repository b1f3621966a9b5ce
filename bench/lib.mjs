// Small helpers shared by the bench/*.bench.mjs files: timing, processes, temp folders, tables.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Run the collector if node was started with --expose-gc, so one measurement does not pay for another. */
export function collectGarbage() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

export function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Time `fn` in this process: `warmup` untimed calls (JIT, caches), then `runs` timed calls; returns the
 * median in milliseconds, and the last result.
 */
export function timeInProcess(fn, { warmup = 1, runs = 5 } = {}) {
  let result;
  for (let i = 0; i < warmup; i++) result = fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    collectGarbage();
    const start = performance.now();
    result = fn();
    times.push(performance.now() - start);
  }
  return { ms: median(times), times, result };
}

/** Time a whole external process (start to exit), output discarded; median of `runs` after `warmup`. */
export function timeProcess(command, args, { warmup = 1, runs = 5, env, okStatus = [0] } = {}) {
  const once = () => {
    const start = performance.now();
    const child = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    const ms = performance.now() - start;
    if (child.error) throw child.error;
    if (!okStatus.includes(child.status)) {
      throw new Error(`${command} exited with ${child.status}: ${String(child.stderr).slice(0, 500)}`);
    }
    return ms;
  };
  for (let i = 0; i < warmup; i++) once();
  const times = [];
  for (let i = 0; i < runs; i++) times.push(once());
  return { ms: median(times), times };
}

/**
 * Run a node script in a child process that prints one JSON line last, killing it `timeoutMs` after it
 * prints a line `started` (or after it starts, if it never does). Resolves to the parsed JSON, or to
 * `{ timedOut: true }`. Keeps a slow competitor from stalling the bench.
 */
export function runNodeChild(script, args, { timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const kill = () => {
      timedOut = true;
      child.kill('SIGKILL');
    };
    let timer = setTimeout(kill, timeoutMs);
    let started = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!started && /^started$/m.test(stdout)) {
        started = true;
        clearTimeout(timer);
        timer = setTimeout(kill, timeoutMs);
      }
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ timedOut: true });
      if (code !== 0)
        return reject(new Error(`child ${script} exited with ${code}: ${stderr.slice(0, 500)}`));
      const line = stdout.trim().split('\n').pop();
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`child ${script} printed no JSON: ${stdout.slice(0, 500)}`));
      }
    });
  });
}

/** A fresh temp folder, removed by `remove()` and, failing that, when the process exits. */
export function tempDir(prefix = 'editgate-bench-', parent = tmpdir()) {
  const path = mkdtempSync(join(parent, prefix));
  const remove = () => rmSync(path, { recursive: true, force: true });
  process.once('exit', remove);
  return { path, remove };
}

/** Peak resident set size of another process in MB (VmHWM in /proc/<pid>/status), or undefined off Linux. */
export function peakRssOfMb(pid) {
  try {
    const kb = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * CPU time another process has used so far, user plus system, all its threads, in ms (utime and stime in
 * /proc/<pid>/stat, in clock ticks of 10 ms: Linux's USER_HZ is 100), or undefined off Linux.
 */
export function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces: utime is the 14th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Peak resident set size of this process so far, in MB. */
export function peakRssMb() {
  return process.resourceUsage().maxRSS / 1024;
}

export function formatMs(ms) {
  if (ms === undefined || Number.isNaN(ms)) return '-';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(1)} ms`;
}

/** `mine / reference` as "0.42x"; '-' when either is missing, "<" when the reference was cut off. */
export function formatRatio(mine, reference, { referenceCapped = false } = {}) {
  if (mine === undefined || reference === undefined) return '-';
  const ratio = mine / reference;
  const text =
    ratio >= 10 ? `${ratio.toFixed(0)}x` : ratio >= 0.1 ? `${ratio.toFixed(2)}x` : `${ratio.toPrecision(2)}x`;
  return referenceCapped ? `< ${text}` : text;
}

/** Print rows (arrays of cells) under `headers`, columns padded; numbers-looking cells right-aligned. */
export function printTable(headers, rows) {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => String(row[i]).length)),
  );
  const numeric = (cell) => /^[<>]?\s?[\d.,]+\s?(ms|s|x|MB)?$/.test(String(cell));
  const line = (cells) =>
    cells
      .map((cell, i) => (numeric(cell) ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i])))
      .join('  ');
  console.log(line(headers));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
}

/** A deterministic pseudo-random generator (mulberry32): the same inputs on every run and machine. */
export function random(seed) {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A bench's own state folder (history, config trust records), never the real home; pass benchEnv() to the
 * editgate processes a bench starts.
 */
export const benchStateDir = mkdtempSync(join(tmpdir(), 'editgate-bench-state-'));
process.on('exit', () => rmSync(benchStateDir, { recursive: true, force: true }));

export function benchEnv(extra = {}) {
  return { ...process.env, EDITGATE_STATE_DIR: benchStateDir, ...extra };
}

/**
 * Writes FOLDER/editgate.config.json and trusts it in `stateDir` (default: the bench's), as its author would
 * with `editgate trust`: an untrusted config's allow rules and loosening settings are ignored.
 */
export async function writeTrustedConfig(folder, config, stateDir = benchStateDir) {
  const { recordTrust } = await import('../dist/tools/config-trust.js');
  const path = join(folder, 'editgate.config.json');
  const text = JSON.stringify(config);
  writeFileSync(path, text);
  // Trust is per folder, config file and content (issue #26).
  await recordTrust({ root: realpathSync(folder), path: realpathSync(path) }, text, stateDir);
}

// ---- The benches that run real coding agents (agents, clients, hooks) ----

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * An agent bench's command line: the agent names (every word that is not a number, not one of `flags` and
 * not a `key=value` setting), the rounds (the number, or `defaultRounds`), which of `flags` were given, and
 * the settings (`settings.get('think')`).
 */
export function agentBenchArgs(argv, { defaultRounds, flags = [] }) {
  const words = argv.slice(2);
  const settings = new Map(
    words
      .filter((arg) => arg.includes('='))
      .map((arg) => [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]),
  );
  return {
    names: words.filter((arg) => !/^\d+$/.test(arg) && !flags.includes(arg) && !arg.includes('=')),
    rounds: Number(words.find((arg) => /^\d+$/.test(arg)) ?? defaultRounds),
    flags: new Set(words.filter((arg) => flags.includes(arg))),
    settings,
  };
}

/** Installs the pinned agents named (every one when none is), as the tests do; prints what it does. */
export function installAgents(names) {
  execFileSync(process.execPath, [`${repoRoot}scripts/install-agents.mjs`, ...names], { stdio: 'inherit' });
}

/**
 * Loads the TypeScript harness of test/agents/ into a bench: `exports` maps a module under test/agents/
 * (without .ts) to the names it gives; every agent bench also gets CLIENTS (the agents), isolation() and
 * PINNED (their versions). They are bundled with esbuild into test/ for the run (the harness finds
 * its paths from the repository root, which the bundle's place keeps right) and the bundle is removed after
 * loading. Some harness modules import vitest (shared scenarios); outside vitest those imports do nothing.
 */
export async function loadAgentHarness(name, exports) {
  const { build } = await import('esbuild');
  const bundle = `${repoRoot}test/.${name}-bench.bundle.mjs`;
  await build({
    stdin: {
      contents: Object.entries({
        ...exports,
        'clients/all': ['CLIENTS'],
        'run-agent': ['isolation'],
        installed: ['PINNED'],
      })
        .map(([module, names]) => `export { ${names.join(', ')} } from './agents/${module}.ts';`)
        .join('\n'),
      resolveDir: `${repoRoot}test`,
      loader: 'ts',
    },
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    plugins: [
      {
        name: 'vitest-outside-vitest',
        setup(builder) {
          builder.onResolve({ filter: /^vitest$/ }, () => ({ path: 'vitest', namespace: 'stub' }));
          builder.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
            contents:
              'const none = () => {}; export { none as afterAll, none as afterEach, none as beforeAll, none as beforeEach, none as describe, none as expect, none as it };',
            loader: 'js',
          }));
        },
      },
    ],
  });
  try {
    return await import(pathToFileURL(bundle).href);
  } finally {
    rmSync(bundle, { force: true });
  }
}

/** The first line of an agent bench: whether the agents run with loopback only (`isolation()`'s answer). */
export function printIsolation(isolated) {
  console.log(`Isolation: ${isolated === 'namespace' ? 'network namespace with loopback only' : isolated}`);
}

/**
 * The loop of every agent bench: `rounds` rounds, each running every client once on each of `sides` (say,
 * without and then with editgate), so load on the machine weighs on both alike; with `alternate`, odd
 * rounds run the sides in the other order, so a warm cache or a burst of load does not favour one.
 * `measure(client, side)` resolves to `{ value, ...more }` or `{ failure }` (a sentence: printed, and the
 * bench exits 1), or throws (the same). `report(client, side, outcome, round)` prints a kept sample, if wanted.
 * Returns, by client name: each side's values, and `byRound[round][side]` for per-round ratios.
 */
export async function runAgentRounds({ rounds, clients, sides, alternate = false, measure, report }) {
  const samples = new Map(
    clients.map((client) => [
      client.name,
      { ...Object.fromEntries(sides.map((side) => [side, []])), byRound: [] },
    ]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const client of clients) {
      const order = alternate && round % 2 === 1 ? [...sides].reverse() : sides;
      for (const side of order) {
        let outcome;
        try {
          outcome = await measure(client, side);
        } catch (error) {
          outcome = { failure: error.message };
        }
        // A side that does not apply to this client (the measure says why in its own output).
        if (outcome.skip) continue;
        if (outcome.failure !== undefined) {
          console.error(`${client.label} (${side}): ${outcome.failure}`);
          process.exitCode = 1;
          continue;
        }
        const kept = samples.get(client.name);
        kept[side].push(outcome.value);
        kept.byRound[round] ??= {};
        kept.byRound[round][side] = outcome.value;
        report?.(client, side, outcome, round);
      }
    }
  }
  return samples;
}

/**
 * edits=N of an agent bench that runs sessions of several edits: 2 to 8 (a first edit and later ones),
 * `fallback` when not given. Exits with a message on anything else.
 */
export function sessionEdits(settings, fallback = 4) {
  const edits = Number(settings.get('edits') ?? fallback);
  if (!Number.isInteger(edits) || edits < 2 || edits > 8) {
    console.error(
      `edits=N takes 2 to 8 edits a session (a first and later ones); got ${settings.get('edits')}.`,
    );
    process.exit(1);
  }
  return edits;
}

/** A session's edit spans as one sample: its first edit, the median of its later ones, and each. */
export function editsSample(spans) {
  const [first, ...later] = spans;
  return { first, later: median(later), each: spans };
}

/**
 * One reading ('first' or 'later') of a client's samples of editsSample values: each side's list of it,
 * and its rounds (for ratiosPerRound).
 */
export function readingOf(kept, which) {
  const sides = Object.keys(kept).filter((key) => key !== 'byRound');
  return {
    ...Object.fromEntries(sides.map((side) => [side, kept[side].map((value) => value[which])])),
    byRound: kept.byRound.map((round) =>
      round ? Object.fromEntries(Object.entries(round).map(([side, value]) => [side, value[which]])) : round,
    ),
  };
}

/** The two readings' tables: the later edits' (the goal's reading), then the first edit's (`firstIs`). */
export function printReadings(headings, rowsOf, edits, firstIs) {
  console.log(`\nLater edits (edits 2-${edits} of each session, their median): the goal's reading.`);
  printTable(headings, rowsOf('later'));
  console.log(`\nFirst edit of each session (${firstIs}).`);
  printTable(headings, rowsOf('first'));
}

/** The pairs of one client's rounds where both sides ran, as `measured / reference` per round (the load's spread). */
export function ratiosPerRound(byRound, [reference, measured]) {
  return byRound
    .filter((pair) => pair?.[reference] !== undefined && pair[measured] !== undefined)
    .map((pair) => pair[measured] / pair[reference]);
}

/** "median [min-max]" of a list, each formatted by `format`; 'n/a' for none. */
export function formatRange(list, format = formatMs) {
  return list.length === 0
    ? 'n/a'
    : `${format(median(list))} [${format(Math.min(...list))}-${format(Math.max(...list))}]`;
}
