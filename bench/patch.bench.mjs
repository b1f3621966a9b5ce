// A 10-file patch (issue #16) against the same changes made by ten single-file edits, in the same run:
// ten 60 KB, 2,000-line JS files; each step changes one line in every file, either by one apply_patch call
// (one change set: one approval, all ten files committed together with their journal) or by ten edit_file
// calls (each its own commit). The two sides take turns step by step (the order swapped every step), each
// on its own copy of the files, so a load spike on a shared machine falls on both alike.
// Target: the patch at most 1.5x the ten edits. Environment: EDITGATE_BENCH_ROUNDS (default 3).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatMs, formatRatio, median, printTable } from './lib.mjs';

const ROUNDS = Number(process.env.EDITGATE_BENCH_ROUNDS ?? 3);
const FILES = 10;
const LINES = 2000;
const LINE_BYTES = 30;
const STEPS = 30;
const { createEditTools } = await import('../dist/tools/index.js');

function jsLine(n) {
  return `const v${String(n).padStart(4, '0')} = f(${n}, ${n % 97});`.padEnd(LINE_BYTES - 1, ' ');
}

function setUp() {
  const root = mkdtempSync(join(tmpdir(), 'editgate-bench-patch-'));
  const state = mkdtempSync(join(tmpdir(), 'editgate-bench-patch-state-'));
  const text = `${Array.from({ length: LINES }, (_, n) => jsLine(n)).join('\n')}\n`;
  for (let f = 0; f < FILES; f++) writeFileSync(join(root, `file${f}.js`), text);
  const tools = createEditTools({ root, approve: 'allow', stateDir: state });
  return { root, state, tools };
}

/** Step s changes line (s * 37 mod LINES) of every file: the same old and new text on both sides. */
function change(step) {
  const n = ((step * 37 + 11) % (LINES - 10)) + 5;
  return { n, old: jsLine(n), new: `${jsLine(n).trimEnd()} // step ${step}` };
}

function patchOf(step) {
  const { n, old } = change(step);
  const lines = ['*** Begin Patch'];
  for (let f = 0; f < FILES; f++) {
    lines.push(`*** Update File: file${f}.js`, '@@');
    for (let k = n - 3; k < n; k++) lines.push(` ${jsLine(k)}`);
    lines.push(`-${old}`, `+${change(step).new}`);
    for (let k = n + 1; k <= n + 3; k++) lines.push(` ${jsLine(k)}`);
  }
  lines.push('*** End Patch');
  return lines.join('\n');
}

async function expectOk(result) {
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
}

const ratios = [];
const patchTimes = [];
const editTimes = [];
for (let round = 0; round < ROUNDS; round++) {
  const patchSide = setUp();
  const editSide = setUp();
  for (let f = 0; f < FILES; f++) {
    await expectOk(await editSide.tools.execute('read_file', { file_path: `file${f}.js`, limit: LINES }));
  }
  // Warm-up: load everything on both sides.
  await expectOk(await patchSide.tools.execute('apply_patch', { patch: patchOf(STEPS) }));
  for (let f = 0; f < FILES; f++) {
    const { old, new: next } = change(STEPS);
    await expectOk(
      await editSide.tools.execute('edit_file', {
        file_path: `file${f}.js`,
        old_string: old,
        new_string: next,
      }),
    );
  }
  const patchRun = [];
  const editRun = [];
  const runPatch = async (step) => {
    const start = performance.now();
    await expectOk(await patchSide.tools.execute('apply_patch', { patch: patchOf(step) }));
    patchRun.push(performance.now() - start);
  };
  const runEdits = async (step) => {
    const { old, new: next } = change(step);
    const start = performance.now();
    for (let f = 0; f < FILES; f++) {
      await expectOk(
        await editSide.tools.execute('edit_file', {
          file_path: `file${f}.js`,
          old_string: old,
          new_string: next,
        }),
      );
    }
    editRun.push(performance.now() - start);
  };
  for (let step = 0; step < STEPS; step++) {
    if (step % 2 === 0) {
      await runPatch(step);
      await runEdits(step);
    } else {
      await runEdits(step);
      await runPatch(step);
    }
  }
  patchTimes.push(median(patchRun));
  editTimes.push(median(editRun));
  ratios.push(median(patchRun) / median(editRun));
  for (const side of [patchSide, editSide]) {
    rmSync(side.root, { recursive: true, force: true });
    rmSync(side.state, { recursive: true, force: true });
  }
}

const range = (values, format) => `${format(Math.min(...values))} - ${format(Math.max(...values))}`;
console.log(
  `\npatch: one 10-file apply_patch vs ten edit_file calls, 60 KB files, ${STEPS} steps x ${ROUNDS} rounds (medians per round)`,
);
printTable(
  ['what', 'median of rounds', 'range of rounds'],
  [
    ['apply_patch, 10 files', formatMs(median(patchTimes)), range(patchTimes, formatMs)],
    ['10 x edit_file', formatMs(median(editTimes)), range(editTimes, formatMs)],
    ['ratio (target <= 1.5x)', formatRatio(median(ratios), 1), range(ratios, (r) => formatRatio(r, 1))],
  ],
);
