// Start-up: whole-process time of the CLI's quick commands (spawned, output discarded) against `node -e ""`
// measured in the same run. Every round runs each command once, in turn, so load on the machine weighs on
// all of them alike; the median of the rounds is reported. Target (issue): `editgate --help` and
// `editgate diff` on small files at most 2x `node -e ""`. The coloured view (FORCE_COLOR) is reported too,
// as information: it loads the renderer and, at 256 colours and up, highlight.js. The MCP server's cold start
// (spawn, initialize, tools/list, stdin closed) is reported as information too. The last column says whether
// web-tree-sitter was loaded: the syntax check's grammars (#32) are loaded only when a change is checked,
// never to start a command (each grammar is read after web-tree-sitter, so without it, none was).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatMs, formatRatio, median, printTable, tempDir } from './lib.mjs';

const WARMUP = 3;
const RUNS = 20;
const TARGET = 2;
const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

/** A small TypeScript file and an edited copy: the everyday `editgate diff`. */
function sampleFiles(folder) {
  const lines = [];
  for (let i = 0; i < 40; i++) {
    lines.push(
      i % 8 === 0 ? `export function step${i}(input: number): number {` : `  const v${i} = input * ${i};`,
    );
    if (i % 8 === 7) lines.push(`  return v${i};`, '}', '');
  }
  const edited = lines.map((line, i) => (i % 17 === 5 ? line.replace('input', 'value') : line));
  edited.splice(20, 0, '  // a new comment');
  const oldFile = join(folder, 'old.ts');
  const newFile = join(folder, 'new.ts');
  writeFileSync(oldFile, `${lines.join('\n')}\n`);
  writeFileSync(newFile, `${edited.join('\n')}\n`);
  return { oldFile, newFile };
}

/** A child environment without colour settings (the bench may run under FORCE_COLOR), plus `extra`. */
function environment(extra = {}) {
  const env = { ...process.env, ...extra };
  if (!('FORCE_COLOR' in extra)) delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  return env;
}

/**
 * The modules a command loads (ESM resolutions, node: built-ins aside), recorded once by a resolve hook in
 * an untimed run: ours (dist/) and dependencies (node_modules/).
 */
function modulesLoaded(folder, testCase) {
  const hooks = join(folder, 'hooks.mjs');
  const register = join(folder, 'register.mjs');
  const log = join(folder, `modules-${testCase.id}.log`);
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.EDITGATE_BENCH_MODULE_LOG, result.url + '\\n');
  return result;
}
`,
  );
  writeFileSync(
    register,
    // The MCP server is one bundle with web-tree-sitter inside: a .wasm file read is what shows it loaded.
    `import { register, syncBuiltinESMExports } from 'node:module';
import fs from 'node:fs';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(`file://${hooks}`)});
const logWasm = (file) => String(file).endsWith('.wasm') && appendFileSync(process.env.EDITGATE_BENCH_MODULE_LOG, 'wasm:' + file + '\\n');
for (const [api, name] of [[fs, 'readFileSync'], [fs, 'readFile'], [fs.promises, 'readFile']]) {
  const original = api[name];
  api[name] = function (file, ...rest) { logWasm(file); return original.call(this, file, ...rest); };
}
syncBuiltinESMExports();
`,
  );
  writeFileSync(log, '');
  spawnSync(process.execPath, ['--import', register, ...testCase.args], {
    stdio: [testCase.input === undefined ? 'ignore' : 'pipe', 'ignore', 'ignore'],
    input: testCase.input,
    env: { ...testCase.env, EDITGATE_BENCH_MODULE_LOG: log },
  });
  const urls = new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean));
  const treeSitter = [...urls].some((url) => url.includes('/web-tree-sitter/') || url.startsWith('wasm:'))
    ? 'LOADED'
    : 'no';
  let ours = 0;
  let deps = 0;
  for (const url of urls) {
    if (!url.startsWith('file:')) continue;
    if (url.includes('/node_modules/')) deps++;
    else if (fileURLToPath(url).startsWith(root)) ours++;
  }
  return [`${ours} + ${deps}`, treeSitter];
}

/** An MCP client's first messages: the server answers them and exits when its stdin closes. */
function mcpSession() {
  const messages = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  return `${messages.map((message) => JSON.stringify(message)).join('\n')}\n`;
}

const dir = tempDir('editgate-bench-startup-');
try {
  const { oldFile, newFile } = sampleFiles(dir.path);
  const cases = [
    { id: 'node', name: 'node -e ""', args: ['-e', ''], okStatus: [0], reference: true },
    { id: 'help', name: 'editgate --help', args: [main, '--help'], okStatus: [0], target: true },
    { id: 'version', name: 'editgate --version', args: [main, '--version'], okStatus: [0], target: true },
    {
      id: 'diff',
      name: 'editgate diff old.ts new.ts (piped: unified text)',
      args: [main, 'diff', oldFile, newFile],
      okStatus: [1],
      target: true,
      expect: /^--- a\//,
    },
    {
      id: 'equal',
      name: 'editgate diff old.ts old.ts (piped: equal)',
      args: [main, 'diff', oldFile, oldFile],
      okStatus: [0],
      target: true,
      expect: /^$/,
    },
    {
      id: 'mcp',
      name: 'editgate mcp (initialize, tools/list, stdin closed)',
      args: [main, 'mcp', dir.path, '--approve', 'policy', '--log-level', 'error'],
      input: mcpSession(),
      okStatus: [0],
      expect: /"tools":\[/,
    },
    {
      id: 'view16',
      name: 'FORCE_COLOR=1 editgate diff (view, 16 colours)',
      args: [main, 'diff', oldFile, newFile],
      extraEnv: { FORCE_COLOR: '1' },
      okStatus: [1],
      expect: /\x1b\[/,
    },
    {
      id: 'view24',
      name: 'FORCE_COLOR=3 editgate diff (view, highlighted)',
      args: [main, 'diff', oldFile, newFile],
      extraEnv: { FORCE_COLOR: '3' },
      okStatus: [1],
      expect: /\x1b\[38;2;/,
    },
  ];
  for (const testCase of cases) testCase.env = environment(testCase.extraEnv);

  // Each command once, checked: the bench must time what it says it times.
  for (const testCase of cases) {
    const child = spawnSync(process.execPath, testCase.args, {
      env: testCase.env,
      encoding: 'utf8',
      input: testCase.input,
    });
    if (
      !testCase.okStatus.includes(child.status) ||
      (testCase.expect && !testCase.expect.test(child.stdout))
    ) {
      throw new Error(
        `${testCase.name}: exit ${child.status}, output ${JSON.stringify(child.stdout.slice(0, 200))}`,
      );
    }
  }

  const once = (testCase) => {
    const start = performance.now();
    const child = spawnSync(process.execPath, testCase.args, {
      stdio: [testCase.input === undefined ? 'ignore' : 'pipe', 'ignore', 'ignore'],
      input: testCase.input,
      env: testCase.env,
    });
    const ms = performance.now() - start;
    if (child.error) throw child.error;
    if (!testCase.okStatus.includes(child.status))
      throw new Error(`${testCase.name} exited with ${child.status}`);
    return ms;
  };
  for (let round = 0; round < WARMUP; round++) for (const testCase of cases) once(testCase);
  const times = new Map(cases.map((testCase) => [testCase, []]));
  for (let round = 0; round < RUNS; round++)
    for (const testCase of cases) times.get(testCase).push(once(testCase));

  console.log(
    `Start-up: whole process, median of ${RUNS} interleaved rounds after ${WARMUP} warm-up rounds.`,
  );
  console.log(`Node ${process.version}; modules loaded: ours (dist/) + dependencies (node_modules/).\n`);
  const reference = median(times.get(cases[0]));
  const missed = [];
  const rows = cases.map((testCase) => {
    const ms = median(times.get(testCase));
    const ratio = ms / reference;
    let met = '';
    if (testCase.target) {
      met = ratio <= TARGET ? 'met' : 'MISSED';
      if (ratio > TARGET) missed.push(`${testCase.name}: ${formatRatio(ms, reference)}`);
    }
    return [
      testCase.name,
      formatMs(ms),
      testCase.reference ? '1.00x' : formatRatio(ms, reference),
      testCase.target ? `<=${TARGET}x` : testCase.reference ? 'reference' : '(info)',
      met,
      ...(testCase.reference ? ['-', '-'] : modulesLoaded(dir.path, testCase)),
    ];
  });
  printTable(['command', 'median', 'vs node', 'target', 'met', 'modules', 'web-tree-sitter'], rows);
  console.log('');
  console.log(
    missed.length === 0
      ? `startup: target met (--help, --version and diff on small files within ${TARGET}x node -e "").`
      : `startup: target MISSED: ${missed.join('; ')}`,
  );
} finally {
  dir.remove();
}
