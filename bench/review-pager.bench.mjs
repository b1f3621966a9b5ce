// Deciding hunk by hunk at a terminal on a change of 1,000 hunks (issue 30: each keypress answered in under
// 50 ms). Two real parts, driven through their own key readers with the output captured, timing each key
// from the moment it is given until the answer is written:
//   - the pager (terminal/pager.ts, runPager): ] and [ to the next and previous hunk, j, space, G and g,
//     a search, and n to its next match, on the whole diff rendered in colour at 120 columns;
//   - the walk at the CLI prompt (terminal/prompt.ts, h): y for each hunk, n with a reason, the summary line
//     and y to it (the approver's answer).
// Reference in the same run: the same keys on a change of 10 hunks. Repeated EDITGATE_BENCH_ROUNDS times
// (default 3); median and p95 per key are reported, with their range over the rounds.
import { PassThrough, Writable } from 'node:stream';
import { formatMs, formatRatio, median, printTable } from './lib.mjs';
import { reviewChange, reviewFile } from './review-page.mjs';

const { runPager } = await import('../dist/terminal/pager.js');
const { createTerminalApprover } = await import('../dist/terminal/prompt.js');
const { renderRequestDiff, highlighterFor } = await import('../dist/terminal/preview.js');

const GOAL_MS = 50;
const ROUNDS = Number(process.env.EDITGATE_BENCH_ROUNDS ?? 3);
const WIDTH = 120;
const HEIGHT = 40;
const display = { level: 3, theme: 'dark', width: WIDTH, height: HEIGHT, tabWidth: 4 };

async function requestOf(changed) {
  const { oldText, newText } = reviewChange(changed, 10);
  return { tool: 'write_file', files: [await reviewFile(oldText, newText)] };
}

/** An output that tells when the next write comes. */
function capturedOutput() {
  let waiting;
  const output = new Writable({
    write(_chunk, _encoding, done) {
      const resolve = waiting;
      waiting = undefined;
      resolve?.(performance.now());
      done();
    },
  });
  output.nextWrite = () => new Promise((resolve) => (waiting = resolve));
  return output;
}

/** A key reader the bench feeds, key by key. */
function pushedKeys() {
  const queue = [];
  let waiting;
  return {
    push(key) {
      const timed = { key, at: performance.now() };
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve(timed);
      } else queue.push(timed);
    },
    reader: {
      nextTimed: () =>
        queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((resolve) => (waiting = resolve)),
      next() {
        return this.nextTimed().then((timed) => timed.key);
      },
      close() {},
    },
  };
}

const char = (c) => ({ name: 'char', char: c });

/** The pager's keys on `request`'s whole diff: ms per key, by kind. */
async function pagerRound(request) {
  const highlighter = await highlighterFor(request, display);
  const lines = renderRequestDiff(request, display, WIDTH, highlighter);
  const output = capturedOutput();
  const keys = pushedKeys();
  let written = output.nextWrite();
  const done = runPager(lines, { output, keys: keys.reader, color: 3, width: WIDTH, height: HEIGHT });
  await written;
  const times = {};
  const press = async (kind, key) => {
    written = output.nextWrite();
    const start = performance.now();
    keys.push(key);
    const at = await written;
    (times[kind] ??= []).push(at - start);
  };
  for (let i = 0; i < 200; i++) await press('] next hunk', char(']'));
  for (let i = 0; i < 50; i++) await press('[ previous hunk', char('['));
  for (let i = 0; i < 100; i++) await press('j line', char('j'));
  for (let i = 0; i < 100; i++) await press('space page', char(' '));
  for (let i = 0; i < 10; i++) {
    await press('G g end, top', char('G'));
    await press('G g end, top', char('g'));
  }
  for (let i = 0; i < 10; i++) {
    for (const c of '/value5') await press('/ typing a search', char(c));
    await press('Enter search', { name: 'enter' });
  }
  for (let i = 0; i < 100; i++) await press('n next match', char('n'));
  keys.push(char('q'));
  await done;
  return { times, lines: lines.length };
}

/** The walk at the CLI prompt: h, then y for each hunk but the second (n, a reason), then y to the summary. */
async function walkRound(request) {
  const input = new PassThrough();
  const output = capturedOutput();
  const hunks = request.files[0].diff.hunks.length;
  const approve = createTerminalApprover({ input, output, color: 3, width: WIDTH, height: HEIGHT });
  let written = output.nextWrite();
  const answer = approve(request);
  await written;
  const times = {};
  const press = async (kind, keys, until = () => output.nextWrite()) => {
    // A person's keys come half a second apart at least (the typing guard takes no faster answer); a few
    // ms here let the prompt draw the next hunk ahead, as it does while a person reads.
    await new Promise((resolve) => setTimeout(resolve, 5));
    written = until();
    const start = performance.now();
    input.write(keys);
    const at = await written;
    (times[kind] ??= []).push(at - start);
  };
  await press('h opens the walk', 'h');
  for (let hunk = 0; hunk < hunks; hunk++) {
    if (hunk === 1) {
      await press('n (reason line)', 'n');
      await press('Enter the reason', 'not this one\r');
    } else await press('y next hunk', 'y');
  }
  await press('y to the summary', 'y', () => answer.then(() => performance.now()));
  const decision = await answer;
  if (!decision.hunks) throw new Error(`the walk answered ${JSON.stringify(decision)}`);
  return { times };
}

const p95 = (values) =>
  [...values].sort((x, y) => x - y)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];

async function measure(name, round) {
  const big = await requestOf(10_000);
  const small = await requestOf(100);
  console.log(
    `${name}: ${big.files[0].diff.hunks.length.toLocaleString('en')} hunks against ${small.files[0].diff.hunks.length} (reference), ${ROUNDS} rounds.`,
  );
  await round(small); // warm-up: JIT, the highlighter
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push({ big: await round(big), small: await round(small) });
  const kinds = Object.keys(rounds[0].big.times);
  const rows = kinds.map((kind) => {
    const medians = rounds.map((each) => median(each.big.times[kind]));
    const p95s = rounds.map((each) => p95(each.big.times[kind]));
    const reference = rounds.map((each) => median(each.small.times[kind]));
    const range = (values) =>
      values.length > 1 ? ` [${formatMs(Math.min(...values))}–${formatMs(Math.max(...values))}]` : '';
    const worst = Math.max(...p95s);
    return [
      kind,
      String(rounds[0].big.times[kind].length),
      `${formatMs(median(medians))}${range(medians)}`,
      `${formatMs(median(p95s))}${range(p95s)}`,
      formatRatio(median(medians), median(reference)),
      worst < GOAL_MS ? 'met' : 'NOT MET',
    ];
  });
  printTable(['key', 'presses', 'median', 'p95', 'vs 10 hunks', `p95 < ${GOAL_MS} ms`], rows);
  console.log('');
  return rows.every((row) => row.at(-1) === 'met');
}

const pagerMet = await measure('The pager', pagerRound);
const walkMet = await measure('The walk (h) at the CLI prompt', walkRound);
console.log(
  `Goal: each keypress answered in under ${GOAL_MS} ms: ${pagerMet && walkMet ? 'met' : 'NOT met'} (every key's p95 in every round).`,
);
process.exit(0);
