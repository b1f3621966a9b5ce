// Deciding a change hunk by hunk (#30), the library part: for a file of 10,000 lines changed in 1,000
// places (1,000 hunks), how long checking a choice (`hunkChoiceProblem`, what a front end calls per answer),
// rebuilding the text from half of the hunks (`applySomeHunks`) and the diff itself take.
import { formatMs, peakRssMb, printTable, random, timeInProcess } from './lib.mjs';

const { diffLines } = await import('../dist/core/diff.js');
const { applySomeHunks } = await import('../dist/core/diff-hunks.js');
const { hunkChoiceProblem } = await import('../dist/gate/hunk-decision.js');

const LINES = 10_000;
const next = random(30);
const old = Array.from(
  { length: LINES },
  (_, i) => `  const value${i} = compute(${Math.floor(next() * 1e6)});\n`,
);
const changed = old.map((line, i) => (i % 10 === 5 ? line.replace('compute', 'recompute') : line));
const before = old.join('');
const after = changed.join('');

const diffed = timeInProcess(() => diffLines(before, after));
const diff = diffed.result;
const request = {
  tool: 'write_file',
  path: 'big.ts',
  kind: 'modify',
  diff,
  unifiedDiff: '',
  stats: { added: 0, removed: 0 },
};
const accept = diff.hunks.map((_, i) => i).filter((i) => i % 2 === 0);
const reject = diff.hunks
  .map((_, i) => i)
  .filter((i) => i % 2 === 1)
  .map((hunk) => ({ hunk, reason: 'not this one' }));
const choice = { 'big.ts': { accept, reject } };
const checked = timeInProcess(() => hunkChoiceProblem(request, choice), { runs: 21 });
if (checked.result !== null) throw new Error(`the choice was refused: ${checked.result}`);
const taken = new Set(accept);
const rebuilt = timeInProcess(() => applySomeHunks(before, diff, (i) => taken.has(i)), { runs: 11 });

console.log(
  `A ${LINES}-line file changed in ${diff.hunks.length} places (${diff.hunks.length} hunks), half of them accepted:`,
);
printTable(
  ['step', 'median'],
  [
    ['diffLines (the proposal, for scale)', formatMs(diffed.ms)],
    ['hunkChoiceProblem (check a choice of 1,000 hunks)', formatMs(checked.ms)],
    ['applySomeHunks (rebuild from 500 hunks)', formatMs(rebuilt.ms)],
  ],
);
console.log(`peak RSS ${peakRssMb().toFixed(0)} MB`);
