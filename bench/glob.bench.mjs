// Glob matching (issue #26): editgate's linear matcher (src/core/glob.ts) against picomatch, which it replaced.
// Ordinary: the deny rules of a config with a list of its own (ALWAYS_DENY plus `secrets/**` and `**/*.env`)
// and a `.gitignore`-style `**/*.log`, tested against 20,000 generated paths of 1-6 folders, as a walk does.
// Hostile: `*a*a*a*a*a*a*a*a*b` against names of `a` repeated; picomatch backtracks, so it is only run on
// names short enough to finish (it took 14 s on 60 characters).
import { formatMs, median, printTable, random } from './lib.mjs';

const { compileGlob } = await import('../dist/core/glob.js');
const picomatch = (await import('picomatch')).default;

const rand = random(26);
const names = ['src', 'lib', 'test', 'a', 'node_modules', '.git', 'config', 'index.ts', 'x.env', 'y.log'];
const paths = Array.from({ length: 20_000 }, () =>
  Array.from({ length: 1 + Math.floor(rand() * 6) }, () => names[Math.floor(rand() * names.length)]).join(
    '/',
  ),
);
const globs = ['**/.git', '**/.git/**', '**/editgate.config.json', 'secrets/**', '**/*.env', '**/*.log'];

function timeMatching(compile, subject, runs = 5) {
  const times = [];
  let hits = 0;
  for (let run = 0; run < runs; run++) {
    const matchers = globs.map((glob) => compile(glob));
    const start = performance.now();
    hits = 0;
    for (const path of subject) if (matchers.some((test) => test(path))) hits++;
    times.push(performance.now() - start);
  }
  return { ms: median(times), hits };
}

const ours = timeMatching((glob) => compileGlob(glob), paths);
const theirs = timeMatching((glob) => picomatch(glob, { dot: true }), paths);
if (ours.hits !== theirs.hits) throw new Error(`different answers: ${ours.hits} vs ${theirs.hits}`);
const rows = [
  ['ordinary: 6 globs x 20,000 paths', formatMs(ours.ms), formatMs(theirs.ms), `${ours.hits} denied`],
];

const hostile = '*a*a*a*a*a*a*a*a*b';
for (const length of [20, 26, 60, 10_000]) {
  const name = 'a'.repeat(length);
  const start = performance.now();
  const answer = compileGlob(hostile)(name);
  const mine = performance.now() - start;
  let reference = 'not run (minutes)';
  if (length <= 26) {
    const t0 = performance.now();
    picomatch(hostile, { dot: true })(name);
    reference = formatMs(performance.now() - t0);
  }
  rows.push([`hostile: ${hostile} on ${length} chars`, formatMs(mine), reference, String(answer)]);
}

printTable(['case', 'editgate', 'picomatch', 'answer'], rows);
