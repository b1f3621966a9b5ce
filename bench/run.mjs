// Runs every bench/*.bench.mjs (sorted), or those named on the command line (`npm run bench -- diff`), each in
// its own `node --expose-gc` process so each reports its own peak memory. Output is streamed as it comes.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const suffix = '.bench.mjs';
const all = readdirSync(here)
  .filter((name) => name.endsWith(suffix))
  .sort();
const wanted = process.argv.slice(2);
const selected =
  wanted.length === 0
    ? all
    : all.filter((name) => wanted.some((w) => name === w || name === `${w}${suffix}` || name.includes(w)));

if (selected.length === 0) {
  console.error(`No benchmark matches ${wanted.join(', ')}. Available: ${all.join(', ') || 'none'}.`);
  process.exit(1);
}

console.log(
  `Benchmarks: ${selected.join(', ')}${wanted.length === 0 ? ' (npm run bench -- NAME runs the ones whose name contains NAME)' : ''}.`,
);
if (selected.some((name) => name.startsWith('huge-files'))) {
  console.log(
    'huge-files writes 1 and 2 GiB files to the temp folder and to /dev/shm (RAM) where there is one.',
  );
}

let current;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    current?.kill(signal);
    process.exit(130);
  });
}

const results = [];
for (const name of selected) {
  console.log(`\n=== ${name} ===`);
  const start = performance.now();
  const code = await new Promise((resolve) => {
    current = spawn(process.execPath, ['--expose-gc', join(here, name)], { stdio: 'inherit' });
    current.on('error', (error) => {
      console.error(error);
      resolve(1);
    });
    current.on('close', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
  });
  current = undefined;
  results.push({ name, code, seconds: (performance.now() - start) / 1000 });
}

console.log('\n=== summary ===');
for (const { name, code, seconds } of results) {
  console.log(`${code === 0 ? 'ok    ' : 'FAILED'}  ${name}  (${seconds.toFixed(1)} s)`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
