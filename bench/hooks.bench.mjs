// What editgate's hooks cost one edit in each real coding agent (issue #29, item 5; goal: at most 1.25x).
// Each round runs, per agent, the same scripted session (the agent's own read, then its own edit, then
// "Done.") once without editgate's hooks and once with them (`editgate hooks install AGENT --user --approve
// policy`, a config that allows every change), in a fresh HOME, in the network namespace. With them, the
// hook server already runs (warm: each call is the shell entry and a curl to it, as after a person's first
// call), or with the word `cold`, none does (the first call runs the Node hook, which starts it). The edit is timed
// from the fake model's request timestamps: from the request the model answered with the edit call to the
// next request, which carries the edit's result (test/agents/hook-cost.ts). That span holds the agent's own
// work on the call; with hooks, also the pre-tool and post-tool hook calls.
//
//   npm run bench -- hooks              every agent editgate has hooks for, 3 rounds
//   node bench/hooks.bench.mjs gemini-cli 5   one agent, 5 rounds (after npm run build)
//   node bench/hooks.bench.mjs cold          no hook server before the edit
//
// The harness is TypeScript (test/agents/); it is bundled with esbuild into test/ for the run (its paths are
// found from the repository root, which the bundle's place keeps right) and removed afterwards.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { formatMs, median, printTable } from './lib.mjs';

const GOAL = 1.25;
const repo = fileURLToPath(new URL('..', import.meta.url));
const cold = process.argv.includes('cold');
const names = process.argv.slice(2).filter((arg) => !/^\d+$/.test(arg) && arg !== 'cold');
const rounds = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 3);

// The agents with hooks: those in the built registry (dist/hooks/agents.js).
const { HOOK_AGENTS } = await import(pathToFileURL(`${repo}dist/hooks/agents.js`).href);
const hooked = Object.keys(HOOK_AGENTS).filter((name) => names.length === 0 || names.includes(name));
if (hooked.length === 0) {
  console.error(
    `No agent with hooks matches ${names.join(', ')}. Known: ${Object.keys(HOOK_AGENTS).join(', ')}.`,
  );
  process.exit(1);
}

execFileSync(process.execPath, [`${repo}scripts/install-agents.mjs`, ...hooked], { stdio: 'inherit' });

const bundle = `${repo}test/.hooks-bench.bundle.mjs`;
await build({
  stdin: {
    contents: [
      "export { hookCost } from './agents/hook-cost.ts';",
      "export { CLIENTS } from './agents/clients/all.ts';",
      "export { isolation } from './agents/run-agent.ts';",
      "export { PINNED } from './agents/installed.ts';",
    ].join('\n'),
    resolveDir: `${repo}test`,
    loader: 'ts',
  },
  outfile: bundle,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  // The harness's test files import vitest (its shared scenarios); outside vitest those do nothing.
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
let harness;
try {
  harness = await import(pathToFileURL(bundle).href);
} finally {
  rmSync(bundle, { force: true });
}
const { hookCost, CLIENTS, isolation, PINNED } = harness;

const isolated = isolation();
console.log(`Isolation: ${isolated === 'namespace' ? 'network namespace with loopback only' : isolated}`);
console.log(
  `${rounds} rounds, each agent without then with hooks per round (hook server ${cold ? 'not running: cold' : 'running: warm'}); the edit call's span, median [min-max].\n`,
);

const clients = CLIENTS.filter((client) => hooked.includes(client.name));
const samples = new Map(clients.map((client) => [client.name, { without: [], with: [], byRound: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const client of clients) {
    for (const hooks of [false, true]) {
      let cost;
      try {
        cost = await hookCost(client, hooks, cold ? 'cold' : 'warm');
      } catch (error) {
        console.error(`${client.label}${hooks ? ' with hooks' : ''}: ${error.message}`);
        process.exitCode = 1;
        continue;
      }
      if (cost.code !== 0 || !cost.written || Number.isNaN(cost.editMs)) {
        console.error(
          `${client.label}${hooks ? ' with hooks' : ''}: exit ${cost.code}, edit written: ${cost.written}, edit span ${cost.editMs} ms`,
        );
        process.exitCode = 1;
        continue;
      }
      samples.get(client.name)[hooks ? 'with' : 'without'].push(cost.editMs);
      samples.get(client.name).byRound[round] ??= {};
      samples.get(client.name).byRound[round][hooks ? 'with' : 'without'] = cost.editMs;
      console.log(
        `round ${round + 1}: ${client.label} ${hooks ? 'with hooks' : 'without'}: ${formatMs(cost.editMs)}${hooks ? ` (${cost.served} calls answered by the hook server)` : ''}`,
      );
    }
  }
}

const range = (list) =>
  list.length === 0
    ? 'n/a'
    : `${formatMs(median(list))} [${formatMs(Math.min(...list))}-${formatMs(Math.max(...list))}]`;
const rows = clients.map((client) => {
  const { without, with: withHooks, byRound } = samples.get(client.name);
  if (without.length === 0 || withHooks.length === 0)
    return [client.label, PINNED[client.name].version, range(without), range(withHooks), 'n/a', 'n/a', 'n/a'];
  const ratio = median(withHooks) / median(without);
  // Per round, with against without of the same round: the spread the load on the machine gives.
  const perRound = byRound
    .filter((pair) => pair?.with && pair.without)
    .map((pair) => pair.with / pair.without);
  return [
    client.label,
    PINNED[client.name].version,
    range(without),
    range(withHooks),
    `${formatMs(median(withHooks) - median(without))}`,
    `${ratio.toFixed(2)}x [${Math.min(...perRound).toFixed(2)}-${Math.max(...perRound).toFixed(2)}]`,
    ratio <= GOAL ? 'met' : 'NOT met',
  ];
});
console.log('');
printTable(
  [
    'agent',
    'version',
    'edit without hooks',
    'edit with hooks',
    'hook cost',
    'ratio [per round]',
    `goal <= ${GOAL}x`,
  ],
  rows,
);
