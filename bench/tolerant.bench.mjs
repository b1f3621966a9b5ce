// The tolerant matcher (issue #13: it was file lines × old lines; 10k/20k/40k lines took 0.9/3.8/15 s, a
// 176 KB old_string froze the server for 72 s). Each input is searched for an old_string that exact matching
// does not find, so every tolerant tier runs; `edit` is the whole applyStringEdits call, NOT_FOUND hint
// included. The reference, in the same run, is the exact search on the same file and old_string
// (findMatches with matching: 'exact'). Targets: the time per file line stays flat from 10k to 40k lines
// (fastest of all runs, 40k / 10k at most 6x; linear is 4x) and no search takes more than 1 s.
import { formatMs, formatRatio, printTable, random, timeInProcess } from './lib.mjs';

const { findMatches } = await import('../dist/core/match.js');
const { applyStringEdits } = await import('../dist/core/edit.js');

const REPEATS = 3;
const SIZES = [10_000, 20_000, 40_000];

function codeLines(count, next) {
  return Array.from({ length: count }, (_, i) => {
    const x = next();
    if (x < 0.1) return '}';
    if (x < 0.18) return '';
    return `  const value${i} = compute(${Math.floor(next() * 1e6)}, options.limit);`;
  });
}

const SHAPES = [
  {
    name: 'equal lines, old = half of them + 1 other',
    make: (n) => {
      const text = '  x = 1;\n'.repeat(n);
      return { text, old: `${Array.from({ length: n / 2 }, () => 'x = 1;').join('\n')}\nnope` };
    },
  },
  {
    name: 'code, ~176 KB old with trailing spaces, not found',
    make: (n, next) => {
      const lines = codeLines(n, next);
      const from = Math.floor(n / 4);
      const chunk = lines.slice(from, from + 4000).map((line) => `${line} `);
      return { text: `${lines.join('\n')}\n`, old: `${chunk.join('\n')}\nnot in the file` };
    },
  },
  {
    name: 'code, 200-line old found re-indented',
    make: (n, next) => {
      const lines = codeLines(n, next);
      const from = Math.floor(n / 2);
      const chunk = lines.slice(from, from + 200).map((line) => (line === '' ? '' : `    ${line}`));
      return { text: `${lines.join('\n')}\n`, old: chunk.join('\n') };
    },
  },
];

const rows = [];
const missed = [];
for (const shape of SHAPES) {
  const perLine = new Map();
  for (const n of SIZES) {
    const { text, old } = shape.make(n, random(n));
    const ratios = [];
    const edits = [];
    let outcome = '';
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      const exact = timeInProcess(() => findMatches(text, old, { matching: 'exact' }), { runs: 5 });
      const tolerant = timeInProcess(() => findMatches(text, old), { runs: 5 });
      const edit = timeInProcess(
        () => {
          try {
            return applyStringEdits(text, [{ oldText: old, newText: 'replaced' }]).edits[0].tier;
          } catch (error) {
            return error.code;
          }
        },
        { runs: 3 },
      );
      outcome = edit.result;
      ratios.push(tolerant.ms / exact.ms);
      edits.push(edit.ms);
      perLine.set(n, [...(perLine.get(n) ?? []), ...tolerant.times]);
      if (repeat === REPEATS - 1) {
        rows.push([
          shape.name,
          `${n / 1000}k`,
          `${(old.length / 1024).toFixed(0)} KB`,
          formatMs(exact.ms),
          formatMs(tolerant.ms),
          `${formatRatio(Math.min(...ratios), 1)}-${formatRatio(Math.max(...ratios), 1)}`,
          `${formatMs(Math.min(...edits))}-${formatMs(Math.max(...edits))}`,
          outcome,
        ]);
      }
    }
    if (Math.max(...edits) > 1000)
      missed.push(`${shape.name} ${n}: edit took ${formatMs(Math.max(...edits))}`);
    console.log(`  measured: ${shape.name}, ${n} lines`);
  }
  const small = Math.min(...perLine.get(SIZES[0]));
  const large = Math.min(...perLine.get(SIZES[SIZES.length - 1]));
  const growth = large / small;
  rows.push([shape.name, '40k/10k', '', '', '', `${growth.toFixed(1)}x (linear: 4x)`, '', '']);
  if (growth > 6) missed.push(`${shape.name}: 40k/10k ${growth.toFixed(1)}x`);
}

console.log('');
printTable(
  ['input', 'lines', 'old', 'exact', 'tolerant', 'tolerant/exact (range)', 'edit (range)', 'result'],
  rows,
);
console.log('');
console.log(
  missed.length === 0
    ? `tolerant: all targets met (near-linear growth, every edit under 1 s; ${REPEATS} repeats).`
    : `tolerant: targets MISSED: ${missed.join('; ')}`,
);
