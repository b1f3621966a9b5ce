// The time an edit takes inside each coding agent: editgate's MCP edit_file against the agent's own edit
// tool (Claude Code Edit, Codex apply_patch, Gemini CLI replace, OpenCode edit, Qwen Code edit), in the same
// run, the same change to the same file (#28; goal: editgate at most 1.1x the agent's own). Timed from the
// scripted fake model's request timestamps: from the request answered with the edit call to the next
// request, which carries the result. The fake model answers at once, so this is the agent running the call
// (for editgate: the MCP round trip and editgate's work). Each round runs every agent once with each tool,
// alternating, so load on the machine weighs on both alike; medians and ranges are reported.
//
//   npm run bench -- clients                  every agent, 5 rounds
//   node bench/clients.bench.mjs codex 3      only Codex, 3 rounds (after npm run build)
//
// Codex's own apply_patch is offered only for a model its catalogue knows (gpt-5.5), editgate's run uses
// fake-model; Codex's own session has no read before the patch.
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

const { names, rounds } = agentBenchArgs(process.argv, { defaultRounds: 5 });
installAgents(names);
const { timeEdit, CLIENTS, isolation, PINNED } = await loadAgentHarness('clients', {
  'edit-timing': ['timeEdit'],
});

printIsolation(isolation());
console.log(`${rounds} rounds; edit call times are medians [min-max].\n`);

const clients = CLIENTS.filter((client) => names.length === 0 || names.includes(client.name));
const SIDES = ['own', 'mcp'];
const samples = await runAgentRounds({
  rounds,
  clients,
  sides: SIDES,
  alternate: true,
  measure: async (client, side) => {
    const timing = await timeEdit(client, side === 'mcp');
    if (timing.code !== 0 || !timing.written || Number.isNaN(timing.editMs))
      return {
        failure: `exit ${timing.code}, written ${timing.written}, edit ${timing.editMs} ms`,
      };
    return { value: timing.editMs };
  },
  report: (client, side, { value }, round) =>
    console.log(
      `round ${round + 1}: ${client.label} ${side === 'mcp' ? 'editgate edit_file' : 'own edit tool'}: ${formatMs(value)}`,
    ),
});

const ratio = (value) => `${value.toFixed(2)}x`;
printTable(
  ['agent', 'version', 'own edit tool', 'editgate edit_file', 'ratio of medians', 'ratio per round'],
  clients.map((client) => {
    const { own, mcp, byRound } = samples.get(client.name);
    return [
      client.label,
      PINNED[client.name].version,
      formatRange(own),
      formatRange(mcp),
      own.length && mcp.length ? ratio(median(mcp) / median(own)) : 'n/a',
      formatRange(ratiosPerRound(byRound, SIDES), ratio),
    ];
  }),
);
