// editgate's line diff against `git diff --no-index` (whole process) and jsdiff (`diff` package, in a child
// process cut off after JSDIFF_CAP_MS) on generated inputs of every shape. Targets (issue 2): at most 1.5x git
// on inputs of 100k lines or more and on the unrelated/shuffled ones; never slower than jsdiff.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  formatMs,
  formatRatio,
  peakRssMb,
  printTable,
  random,
  runNodeChild,
  tempDir,
  timeInProcess,
  timeProcess,
} from './lib.mjs';

const JSDIFF_CAP_MS = 20_000;
const GIT_FACTOR = 1.5;
const self = fileURLToPath(import.meta.url);

// Child mode: time jsdiff's diffLines on two files and print {"ms": ...}.
if (process.argv[2] === '--jsdiff') {
  const { diffLines } = await import('diff');
  const oldText = readFileSync(process.argv[3], 'utf8');
  const newText = readFileSync(process.argv[4], 'utf8');
  console.log('started');
  const times = [];
  for (let run = 0; run < 3; run++) {
    const start = performance.now();
    const result = diffLines(oldText, newText);
    times.push(performance.now() - start);
    if (!Array.isArray(result)) throw new Error('jsdiff returned no result');
    if (times[0] > 2000) break; // slow: one run is a fine measurement
  }
  times.sort((x, y) => x - y);
  console.log(JSON.stringify({ ms: times[times.length >> 1] }));
  process.exit(0);
}

const { diffLines } = await import('../dist/core/diff.js');

// --- inputs -------------------------------------------------------------------------------------------------

/** Code-like lines: mostly distinct statements, plus the `}`, blank and `return;` lines real code repeats. */
function codeLines(count, next) {
  const lines = new Array(count);
  for (let i = 0; i < count; i++) lines[i] = codeLine(next);
  return lines;
}

function codeLine(next) {
  const x = next();
  if (x < 0.08) return '}';
  if (x < 0.15) return '';
  if (x < 0.2) return '  return;';
  const name = `${['value', 'result', 'item', 'node', 'config', 'state'][Math.floor(next() * 6)]}${Math.floor(next() * 1e6)}`;
  const indent = '  '.repeat(1 + Math.floor(next() * 3));
  return x < 0.6
    ? `${indent}const ${name} = compute(${Math.floor(next() * 1e6)}, '${name}');`
    : `${indent}if (${name}.size > ${Math.floor(next() * 1000)}) ${name}.update(options.limit);`;
}

function shuffled(lines, next) {
  const copy = lines.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

function scatteredEdits(lines, edits, next) {
  const copy = lines.slice();
  for (let k = 0; k < edits; k++) {
    const at = Math.floor(next() * copy.length);
    if (k % 3 === 0) copy.splice(at, 1 + Math.floor(next() * 3));
    else if (k % 3 === 1) copy.splice(at, 0, ...codeLines(1 + Math.floor(next() * 3), next));
    else copy[at] = `${codeLine(next)} // edited`;
  }
  return copy;
}

const CASES = [
  {
    name: '10k lines, 1 change',
    make: (next) => {
      const lines = codeLines(10_000, next);
      const edited = lines.slice();
      edited[5_000] = '  const changed = true;';
      return [lines, edited];
    },
  },
  {
    name: '100k lines, 10 scattered changes',
    gitTarget: true,
    make: (next) => {
      const lines = codeLines(100_000, next);
      return [lines, scatteredEdits(lines, 10, next)];
    },
  },
  {
    name: '100k lines, 10% changed',
    gitTarget: true,
    make: (next) => {
      const lines = codeLines(100_000, next);
      return [lines, lines.map((line) => (next() < 0.1 ? `${codeLine(next)} // edited` : line))];
    },
  },
  {
    name: '1M lines, 1 change',
    gitTarget: true,
    make: (next) => {
      const lines = codeLines(1_000_000, next);
      const edited = lines.slice();
      edited[500_000] = '  const changed = true;';
      return [lines, edited];
    },
  },
  {
    name: 'unrelated 20k-line files',
    gitTarget: true,
    make: (next) => [codeLines(20_000, next), codeLines(20_000, next)],
  },
  {
    name: '20k lines, none in common',
    gitTarget: true,
    make: (next) => {
      const lines = codeLines(20_000, next);
      return [lines.map((line, i) => `${i} old ${line}`), lines.map((line, i) => `${i} new ${line}`)];
    },
  },
  {
    name: '20k lines vs shuffled',
    gitTarget: true,
    make: (next) => {
      const lines = codeLines(20_000, next);
      return [lines, shuffled(lines, next)];
    },
  },
];

// --- checks -------------------------------------------------------------------------------------------------

/** The diff must turn the old text into the new one: a fast answer that is wrong does not count. */
function verify(oldText, newText, diff) {
  const old = oldText.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
  const out = [];
  let next = 0;
  for (const hunk of diff.hunks) {
    const first = hunk.oldLines > 0 ? hunk.oldStart - 1 : hunk.oldStart;
    while (next < first) out.push(old[next++]);
    for (const line of hunk.lines) {
      if (line.kind !== 'add' && old[next++] !== line.text + line.eol)
        throw new Error('diff does not match old');
      if (line.kind !== 'remove') out.push(line.text + line.eol);
    }
  }
  while (next < old.length) out.push(old[next++]);
  if (out.join('') !== newText) throw new Error('diff does not rebuild the new text');
}

// --- run ----------------------------------------------------------------------------------------------------

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };
const dir = tempDir('editgate-bench-diff-');
const rows = [];
const missed = [];
console.log(`Diff benchmark: editgate diffLines (in-process, median of runs) vs git diff --no-index (whole`);
console.log(
  `process, median) vs jsdiff diffLines (in-process, child killed after ${JSDIFF_CAP_MS / 1000} s).\n`,
);
try {
  for (const [index, testCase] of CASES.entries()) {
    const [oldLines, newLines] = testCase.make(random(1000 + index));
    const oldText = `${oldLines.join('\n')}\n`;
    const newText = `${newLines.join('\n')}\n`;
    const oldFile = join(dir.path, `${index}-old.txt`);
    const newFile = join(dir.path, `${index}-new.txt`);
    writeFileSync(oldFile, oldText);
    writeFileSync(newFile, newText);
    const big = oldLines.length >= 500_000;

    const mine = timeInProcess(() => diffLines(oldText, newText), { warmup: big ? 1 : 2, runs: big ? 3 : 7 });
    verify(oldText, newText, mine.result);
    const git = timeProcess(
      'git',
      ['--no-pager', 'diff', '--no-index', '--no-color', '--no-ext-diff', oldFile, newFile],
      { warmup: 1, runs: big ? 3 : 5, env: gitEnv, okStatus: [0, 1] },
    );
    const js = await runNodeChild(self, ['--jsdiff', oldFile, newFile], { timeoutMs: JSDIFF_CAP_MS });
    const jsMs = js.timedOut ? JSDIFF_CAP_MS : js.ms;

    const gitOk = !testCase.gitTarget || mine.ms <= GIT_FACTOR * git.ms;
    const jsOk = js.timedOut || mine.ms <= jsMs;
    if (!gitOk) missed.push(`${testCase.name}: ${formatRatio(mine.ms, git.ms)} git`);
    if (!jsOk) missed.push(`${testCase.name}: slower than jsdiff`);
    const targets = testCase.gitTarget ? `<=${GIT_FACTOR}x git, <jsdiff` : '<jsdiff';
    rows.push([
      testCase.name,
      `+${mine.result.added} -${mine.result.removed}`,
      formatMs(mine.ms),
      formatMs(git.ms),
      js.timedOut ? `> ${formatMs(JSDIFF_CAP_MS)}` : formatMs(js.ms),
      formatRatio(mine.ms, git.ms),
      formatRatio(mine.ms, jsMs, { referenceCapped: js.timedOut }),
      targets,
      gitOk && jsOk ? 'yes' : 'NO',
    ]);
    console.log(`  measured: ${testCase.name}`);
  }
} finally {
  dir.remove();
}

console.log('');
printTable(['input', 'changes', 'editgate', 'git', 'jsdiff', 'vs git', 'vs jsdiff', 'target', 'met'], rows);
console.log('');
console.log(
  missed.length === 0
    ? `diff: all targets met on ${rows.length} inputs (every result verified to rebuild the new text).`
    : `diff: targets MISSED on ${missed.length}: ${missed.join('; ')}`,
);
console.log(`diff: peak RSS ${peakRssMb().toFixed(0)} MB (this process; jsdiff ran in children)`);
