// Cold start of each coding agent (test/agents/pinned-agents.json, installed by scripts/install-agents.mjs)
// with and without editgate's MCP server configured, against the scripted fake model on 127.0.0.1 (in a
// network namespace when the machine allows it; see test/agents/README.md). Each round starts every agent
// once without and once with editgate, in a fresh HOME, so load on the machine weighs on both alike; the
// median of the rounds is reported. "ready" is spawn to the agent's first model request that offers tools
// (with editgate: offering editgate's); "total" is spawn to exit for a prompt answered with one line.
//
//   npm run bench -- agents                 every agent, 3 rounds
//   node bench/agents.bench.mjs codex 3     only Codex, 3 rounds (after npm run build)
import {
  agentBenchArgs,
  formatMs,
  formatRatio,
  installAgents,
  loadAgentHarness,
  median,
  printIsolation,
  printTable,
  runAgentRounds,
} from './lib.mjs';

const { names, rounds } = agentBenchArgs(process.argv, { defaultRounds: 3 });
installAgents(names);
const { coldStart, CLIENTS, isolation, PINNED } = await loadAgentHarness('agents', {
  'cold-start': ['coldStart'],
});

printIsolation(isolation());
console.log(`${rounds} rounds; times are medians (min in brackets).\n`);

const clients = CLIENTS.filter((client) => names.length === 0 || names.includes(client.name));
const samples = await runAgentRounds({
  rounds,
  clients,
  sides: ['without', 'with'],
  measure: async (client, side) => {
    const mcp = side === 'with';
    const start = await coldStart(client, mcp);
    if (start.code !== 0 || Number.isNaN(start.readyMs) || (mcp && !start.editgateOffered))
      return {
        failure: `exit ${start.code}, ready ${start.readyMs}, editgate offered: ${start.editgateOffered}`,
      };
    return { value: start };
  },
});

const summary = (list, key) =>
  list.length === 0
    ? 'n/a'
    : `${formatMs(median(list.map((s) => s[key])))} (${formatMs(Math.min(...list.map((s) => s[key])))})`;
printTable(
  [
    'agent',
    'version',
    'ready without',
    'ready with editgate',
    'ratio',
    'total without',
    'total with editgate',
  ],
  clients.map((client) => {
    const { without, with: withMcp } = samples.get(client.name);
    const ratio =
      without.length && withMcp.length
        ? formatRatio(median(withMcp.map((s) => s.readyMs)), median(without.map((s) => s.readyMs)))
        : 'n/a';
    return [
      client.label,
      PINNED[client.name].version,
      summary(without, 'readyMs'),
      summary(withMcp, 'readyMs'),
      ratio,
      summary(without, 'totalMs'),
      summary(withMcp, 'totalMs'),
    ];
  }),
);
