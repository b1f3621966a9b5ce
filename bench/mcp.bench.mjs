// What a full MCP session costs: spawn `editgate mcp`, initialize, read 20 files, make 100 edits, close,
// with a real SDK client over stdio. References measured in the same run: a bare `node -e ""` (what any
// Node server costs to start), and the same reads and 100 edits through the library (createEditTools) in a
// fresh node process. Memory is the server's peak RSS (VmHWM in /proc/<pid>/status, Linux).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchEnv,
  formatMs,
  formatRatio,
  median,
  peakRssOfMb,
  printTable,
  runNodeChild,
  tempDir,
  timeProcess,
  writeTrustedConfig,
} from './lib.mjs';

const FILES = 20;
const LINES = 200;
const EDITS = 100;
const RUNS = 5;
const self = fileURLToPath(import.meta.url);
const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** A workspace of FILES files of LINES distinct lines, and the 100 edits: file i % FILES, a line each. */
async function makeWorkspace() {
  const { path } = tempDir('editgate-bench-mcp-');
  await writeTrustedConfig(path, { policy: { rules: [{ action: 'allow' }] } });
  const files = [];
  for (let f = 0; f < FILES; f++) {
    const lines = Array.from({ length: LINES }, (_, i) => `export const value${f}_${i} = ${i}; // line ${i}`);
    files.push(`module${f}.ts`);
    writeFileSync(join(path, `module${f}.ts`), `${lines.join('\n')}\n`);
  }
  const edits = Array.from({ length: EDITS }, (_, e) => {
    const f = e % FILES;
    const line = Math.floor(e / FILES) * 7 + 3;
    return {
      file_path: `module${f}.ts`,
      old_string: `export const value${f}_${line} = ${line};`,
      new_string: `export const value${f}_${line} = ${line * 10};`,
    };
  });
  return { root: path, files, edits };
}

// Child mode: the same work through the library in this fresh process; prints {"ms", "editMs", "peakMb"}.
if (process.argv[2] === '--library') {
  const { createEditTools } = await import('../dist/tools/index.js');
  const { root, files, edits } = await makeWorkspace();
  const start = performance.now();
  const tools = createEditTools({ root, approve: 'allow' });
  for (const file_path of files) {
    const result = await tools.execute('read_file', { file_path });
    if (!result.ok) throw new Error(result.message);
  }
  const editStart = performance.now();
  for (const edit of edits) {
    const result = await tools.execute('edit_file', edit);
    if (!result.ok) throw new Error(result.message);
  }
  const end = performance.now();
  console.log(JSON.stringify({ ms: end - start, editMs: end - editStart, peakMb: peakRssOfMb(process.pid) }));
  process.exit(0);
}

const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');

/** One full session; returns its timings and the server's peak memory. */
async function session() {
  const { root, files, edits } = await makeWorkspace();
  const start = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main, 'mcp', root, '--approve', 'policy', '--log-level', 'warning'],
    env: benchEnv(),
    stderr: 'inherit',
  });
  const client = new Client({ name: 'editgate-bench', version: '1.0.0' });
  await client.connect(transport);
  const initialized = performance.now();
  for (const file_path of files) {
    const result = await client.callTool({ name: 'read_file', arguments: { file_path } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  }
  const editStart = performance.now();
  for (const edit of edits) {
    const result = await client.callTool({ name: 'edit_file', arguments: edit });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  }
  const editEnd = performance.now();
  const memory = peakRssOfMb(transport.pid);
  await client.close();
  const end = performance.now();
  // Every edit landed.
  const sample = readFileSync(join(root, 'module0.ts'), 'utf8');
  if (!sample.includes('value0_3 = 30;')) throw new Error('an edit is missing from module0.ts');
  return { ms: end - start, initMs: initialized - start, editMs: editEnd - editStart, peakMb: memory };
}

const nodeStart = timeProcess(process.execPath, ['-e', ''], { runs: RUNS });
const nodePeak = await runNodeChild(
  '-e',
  [
    `console.log(JSON.stringify({ peakMb: Number(/VmHWM:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status','utf8'))?.[1]) / 1024 }))`,
  ],
  { timeoutMs: 10_000 },
).catch(() => ({}));

await session(); // warm-up: file system caches, the first compile of the SDK's modules
const sessions = [];
for (let run = 0; run < RUNS; run++) sessions.push(await session());
const library = [];
for (let run = 0; run < RUNS; run++)
  library.push(await runNodeChild(self, ['--library'], { timeoutMs: 60_000 }));

const pick = (rows, key) => median(rows.map((row) => row[key]).filter((value) => value !== undefined));
const mcp = {
  ms: pick(sessions, 'ms'),
  initMs: pick(sessions, 'initMs'),
  editMs: pick(sessions, 'editMs'),
  peakMb: pick(sessions, 'peakMb'),
};
const lib = { ms: pick(library, 'ms'), editMs: pick(library, 'editMs'), peakMb: pick(library, 'peakMb') };
const mb = (value) => (value === undefined || Number.isNaN(value) ? '-' : `${value.toFixed(1)} MB`);

console.log(
  `Full MCP session over stdio: spawn, initialize, read ${FILES} files, ${EDITS} edit_file calls, close.`,
);
console.log(`Median of ${RUNS} runs after a warm-up.\n`);
printTable(
  ['measure', 'editgate mcp', 'reference', 'reference is', 'ratio'],
  [
    [
      'whole session',
      formatMs(mcp.ms),
      formatMs(nodeStart.ms + lib.ms),
      'node start + library run',
      formatRatio(mcp.ms, nodeStart.ms + lib.ms),
    ],
    [
      'start to initialized',
      formatMs(mcp.initMs),
      formatMs(nodeStart.ms),
      'node -e ""',
      formatRatio(mcp.initMs, nodeStart.ms),
    ],
    [
      `${EDITS} edits`,
      formatMs(mcp.editMs),
      formatMs(lib.editMs),
      'library, in-process',
      formatRatio(mcp.editMs, lib.editMs),
    ],
    [
      'per edit',
      formatMs(mcp.editMs / EDITS),
      formatMs(lib.editMs / EDITS),
      'library, in-process',
      formatRatio(mcp.editMs, lib.editMs),
    ],
    [
      'server peak RSS',
      mb(mcp.peakMb),
      mb(lib.peakMb),
      'library process',
      formatRatio(mcp.peakMb, lib.peakMb),
    ],
    [
      'server peak RSS',
      mb(mcp.peakMb),
      mb(nodePeak.peakMb),
      'node -e ""',
      formatRatio(mcp.peakMb, nodePeak.peakMb),
    ],
  ],
);
