// What editgate's hooks cost one edit in each real coding agent (issue #29, item 5; goal: at most 1.25x).
// Each round runs, per agent, the same scripted session (the agent's own read, then its own edits one after
// another, then "Done.") once without editgate's hooks and once with them (`editgate hooks install AGENT
// --user --approve policy`, a config that allows every change), in a fresh HOME, in the network namespace.
// With them, the hook server already runs (warm: each call is the shell entry and a request to it, as after
// a person's first call), or with the word `cold`, none does (the first call runs the Node hook, which
// starts it). Each edit is timed from the fake model's request timestamps: from the request the model
// answered with the edit call to the next request, which carries the edit's result (test/agents/
// hook-cost.ts). That span holds the agent's own work on the call; with hooks, also the pre-tool and
// post-tool hook calls.
//
// Two readings, each edit with hooks against the same edit without: the session's first edit (a root and a
// session the hook server has not seen: its first config, history and session folders), and its later
// edits (their median per session), which is what a person's session is made of. The goal is judged on
// the later edits; the first is shown beside them.
//
// With the word `floor`, each round also runs the agent with the same hooks answering nothing at once (a
// shell script that reads the event and exits; for Claude Code's http hooks, a server that answers 200 with
// an empty body): what the agent's own hook machinery costs, under any hook. Its ratio says whether the goal
// can be met by any hook at all; the hook cost over it is editgate's own part.
//
//   npm run bench -- hooks                    every agent editgate has hooks for, 3 rounds, 4 edits each
//   node bench/hooks.bench.mjs gemini-cli 5   one agent, 5 rounds (after npm run build)
//   node bench/hooks.bench.mjs cold           no hook server before the first edit
//   node bench/hooks.bench.mjs codex 5 floor  also the no-op hooks' floor
//   node bench/hooks.bench.mjs edits=6        6 edits a session (2 to 8)
import {
  agentBenchArgs,
  editsSample,
  formatMs,
  formatRange,
  installAgents,
  loadAgentHarness,
  median,
  printIsolation,
  printReadings,
  ratiosPerRound,
  readingOf,
  runAgentRounds,
  sessionEdits,
} from './lib.mjs';

const GOAL = 1.25;
const { names, rounds, flags, settings } = agentBenchArgs(process.argv, {
  defaultRounds: 3,
  flags: ['cold', 'floor'],
});
const cold = flags.has('cold');
const floor = flags.has('floor');
const edits = sessionEdits(settings);
// OpenCode's hooks are a plugin inside OpenCode's own process: no command or request per call, so its
// machinery costs nothing apart from editgate's answer.
const NO_FLOOR = new Set(['opencode']);

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
  `${rounds} rounds of ${edits} edits a session, each agent without then with hooks${floor ? ', then with no-op hooks,' : ''} per round (hook server ${cold ? 'not running: cold' : 'running: warm'}); each edit call's span, median [min-max].\n`,
);

const clients = CLIENTS.filter((client) => hooked.includes(client.name));
const SIDES = floor ? ['without', 'with', 'no-op'] : ['without', 'with'];
const HOOKS = { without: 'none', with: 'editgate', 'no-op': 'no-op' };
const SIDE_WORDS = { without: 'without', with: 'with hooks', 'no-op': 'with no-op hooks' };
const samples = await runAgentRounds({
  rounds,
  clients,
  sides: SIDES,
  measure: async (client, side) => {
    if (side === 'no-op' && NO_FLOOR.has(client.name)) return { skip: true };
    const cost = await hookCost(client, HOOKS[side], cold ? 'cold' : 'warm', edits);
    if (cost.code !== 0 || !cost.written || cost.editMs.some(Number.isNaN))
      return {
        failure: `exit ${cost.code}, edits written: ${cost.written}, edit spans ${cost.editMs.join(', ')} ms`,
      };
    return { value: editsSample(cost.editMs), served: cost.served };
  },
  report: (client, side, { value, served }, round) =>
    console.log(
      `round ${round + 1}: ${client.label} ${SIDE_WORDS[side]}: ${value.each.map(formatMs).join(', ')}${side === 'with' ? ` (${served} calls answered by the hook server)` : ''}`,
    ),
});

/** "median ratio [per-round min-max]" of `measured` against the edit without hooks. */
function ratioCell({ without, byRound }, measured, side) {
  const ratio = median(measured) / median(without);
  // Per round, against without of the same round: the spread the load on the machine gives.
  const perRound = ratiosPerRound(byRound, ['without', side]);
  return {
    ratio,
    text: `${ratio.toFixed(2)}x [${Math.min(...perRound).toFixed(2)}-${Math.max(...perRound).toFixed(2)}]`,
  };
}

function rowsOf(which) {
  return clients.map((client) => {
    const kept = readingOf(samples.get(client.name), which);
    const read = { ...kept, noOp: kept['no-op'] ?? [] };
    const row = [
      client.label,
      PINNED[client.name].version,
      formatRange(read.without),
      formatRange(read.with),
    ];
    const floorCells = () => {
      if (NO_FLOOR.has(client.name)) return ['n/a (a plugin)', 'n/a', 'n/a'];
      if (read.noOp.length === 0 || read.without.length === 0) return ['n/a', 'n/a', 'n/a'];
      const { ratio, text } = ratioCell(read, read.noOp, 'no-op');
      return [formatRange(read.noOp), text, ratio <= GOAL ? 'yes' : 'no'];
    };
    if (read.without.length === 0 || read.with.length === 0)
      return [...row, 'n/a', 'n/a', 'n/a', ...(floor ? [...floorCells(), 'n/a'] : [])];
    const { ratio, text } = ratioCell(read, read.with, 'with');
    const cells = [
      ...row,
      formatMs(median(read.with) - median(read.without)),
      text,
      ratio <= GOAL ? 'met' : 'NOT met',
    ];
    if (!floor) return cells;
    // editgate's own part: the hook cost over what the same hooks cost answering nothing.
    const own = NO_FLOOR.has(client.name)
      ? formatMs(median(read.with) - median(read.without))
      : read.noOp.length > 0
        ? formatMs(median(read.with) - median(read.noOp))
        : 'n/a';
    return [...cells, ...floorCells(), own];
  });
}

const HEADINGS = [
  'agent',
  'version',
  'edit without hooks',
  'edit with hooks',
  'hook cost',
  'ratio [per round]',
  `goal <= ${GOAL}x`,
  ...(floor ? ['edit with no-op hooks', 'floor ratio [per round]', 'goal reachable', "editgate's part"] : []),
];
printReadings(HEADINGS, rowsOf, edits, 'a root and a session the hook server has not seen');
