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
import {
  agentBenchArgs,
  formatMs,
  formatRange,
  installAgents,
  loadAgentHarness,
  median,
  printIsolation,
  printTable,
  ratiosPerRound,
  runAgentRounds,
} from './lib.mjs';

const GOAL = 1.25;
const { names, rounds, flags } = agentBenchArgs(process.argv, { defaultRounds: 3, flags: ['cold'] });
const cold = flags.has('cold');

// The agents with hooks: those in the built registry (dist/hooks/agents.js).
const { HOOK_AGENTS } = await import('../dist/hooks/agents.js');
const hooked = Object.keys(HOOK_AGENTS).filter((name) => names.length === 0 || names.includes(name));
if (hooked.length === 0) {
  console.error(
    `No agent with hooks matches ${names.join(', ')}. Known: ${Object.keys(HOOK_AGENTS).join(', ')}.`,
  );
  process.exit(1);
}

installAgents(hooked);
const { hookCost, CLIENTS, isolation, PINNED } = await loadAgentHarness('hooks', {
  'hook-cost': ['hookCost'],
});

printIsolation(isolation());
console.log(
  `${rounds} rounds, each agent without then with hooks per round (hook server ${cold ? 'not running: cold' : 'running: warm'}); the edit call's span, median [min-max].\n`,
);

const clients = CLIENTS.filter((client) => hooked.includes(client.name));
const SIDES = ['without', 'with'];
const samples = await runAgentRounds({
  rounds,
  clients,
  sides: SIDES,
  measure: async (client, side) => {
    const cost = await hookCost(client, side === 'with', cold ? 'cold' : 'warm');
    if (cost.code !== 0 || !cost.written || Number.isNaN(cost.editMs))
      return {
        failure: `exit ${cost.code}, edit written: ${cost.written}, edit span ${cost.editMs} ms`,
      };
    return { value: cost.editMs, served: cost.served };
  },
  report: (client, side, { value, served }, round) =>
    console.log(
      `round ${round + 1}: ${client.label} ${side === 'with' ? 'with hooks' : 'without'}: ${formatMs(value)}${side === 'with' ? ` (${served} calls answered by the hook server)` : ''}`,
    ),
});

const rows = clients.map((client) => {
  const { without, with: withHooks, byRound } = samples.get(client.name);
  if (without.length === 0 || withHooks.length === 0)
    return [
      client.label,
      PINNED[client.name].version,
      formatRange(without),
      formatRange(withHooks),
      'n/a',
      'n/a',
      'n/a',
    ];
  const ratio = median(withHooks) / median(without);
  // Per round, with against without of the same round: the spread the load on the machine gives.
  const perRound = ratiosPerRound(byRound, SIDES);
  return [
    client.label,
    PINNED[client.name].version,
    formatRange(without),
    formatRange(withHooks),
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
