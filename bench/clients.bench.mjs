// The time an edit takes inside each coding agent: editgate's MCP edit_file against the agent's own edit
// tool (Claude Code Edit, Codex apply_patch, Gemini CLI replace, OpenCode edit, Qwen Code edit), in the same
// run, the same change to the same file (#28; goal: editgate at most 1.1x the agent's own). Timed from the
// scripted fake model's request timestamps: from the request answered with the edit call to the next
// request, which carries the result. The fake model answers at once, so this is the agent running the call
// (for editgate: the MCP round trip and editgate's work). Each round runs every agent once with each tool,
// alternating, so load on the machine weighs on both alike; medians and ranges are reported. A session
// makes several edits one after another (edits=N, default 4); two readings: its first edit (a server that
// has made no edit yet) and its later ones (their median per session: what a session is made of, and the
// per-edit median the goal is judged on).
//
// The fake model "thinks" 1 s before each answer, as a real model does, and the span starts when it
// answers. editgate readies its checks when a file is read (gate/checks.ts), in the model's time; a model
// that answered at once (think=0) put that work inside the edit call, which no real session sees.
//
// With the word `floor`, each round also runs the MCP session against a server that offers editgate's tools
// and answers every call at once, doing nothing (test/agents/no-op-mcp-server.mjs): what the client's own
// MCP machinery costs a tool call, whatever the server. Its ratio says whether the goal can be met by any
// MCP server; the time over it is editgate's own part.
//
//   npm run bench -- clients                  every agent, 5 rounds
//   node bench/clients.bench.mjs codex 3      only Codex, 3 rounds (after npm run build)
//   node bench/clients.bench.mjs gemini-cli 3 think=0   the model answers at once
//   node bench/clients.bench.mjs gemini-cli 5 floor     also the no-op server's floor
//   node bench/clients.bench.mjs edits=6                6 edits a session (2 to 8)
//
// Codex's own apply_patch is offered only for a model its catalogue knows (gpt-5.5), editgate's run uses
// fake-model; Codex's own session has no read before the patch.
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

const GOAL = 1.1;
const { names, rounds, settings, flags } = agentBenchArgs(process.argv, {
  defaultRounds: 5,
  flags: ['floor'],
});
const floor = flags.has('floor');
const edits = sessionEdits(settings);
const thinkMs = Number(settings.get('think') ?? 1000);
installAgents(names);
const { timeEdits, CLIENTS, isolation, PINNED } = await loadAgentHarness('clients', {
  'edit-timing': ['timeEdits'],
});

printIsolation(isolation());
console.log(
  `${rounds} rounds, the model thinking ${thinkMs} ms before each answer; edit call times are medians [min-max].\n`,
);

const clients = CLIENTS.filter((client) => names.length === 0 || names.includes(client.name));
const SIDES = floor ? ['own', 'mcp', 'no-op'] : ['own', 'mcp'];
const SIDE_WORDS = { own: 'own edit tool', mcp: 'editgate edit_file', 'no-op': 'no-op server edit_file' };
const samples = await runAgentRounds({
  rounds,
  clients,
  sides: SIDES,
  alternate: true,
  measure: async (client, side) => {
    const timing = await timeEdits(client, side !== 'own', { thinkMs, noOp: side === 'no-op', edits });
    // The no-op server writes nothing: only its exit and its timing count.
    if (timing.code !== 0 || (side !== 'no-op' && !timing.written) || timing.editMs.some(Number.isNaN))
      return {
        failure: `exit ${timing.code}, written ${timing.written}, edits ${timing.editMs.join(', ')} ms`,
      };
    return { value: editsSample(timing.editMs) };
  },
  report: (client, side, { value }, round) =>
    console.log(
      `round ${round + 1}: ${client.label} ${SIDE_WORDS[side]}: ${value.each.map(formatMs).join(', ')}`,
    ),
});

const ratio = (value) => `${value.toFixed(2)}x`;

function rowsOf(which) {
  return clients.map((client) => {
    const { own, mcp, 'no-op': noOp = [], byRound } = readingOf(samples.get(client.name), which);
    const both = own.length > 0 && mcp.length > 0;
    const cells = [
      client.label,
      PINNED[client.name].version,
      formatRange(own),
      formatRange(mcp),
      both ? ratio(median(mcp) / median(own)) : 'n/a',
      formatRange(ratiosPerRound(byRound, ['own', 'mcp']), ratio),
      both ? (median(mcp) / median(own) <= GOAL ? 'met' : 'NOT met') : 'n/a',
    ];
    if (!floor) return cells;
    if (noOp.length === 0 || own.length === 0) return [...cells, 'n/a', 'n/a', 'n/a', 'n/a'];
    const floorRatio = median(noOp) / median(own);
    return [
      ...cells,
      formatRange(noOp),
      `${ratio(floorRatio)} ${formatRange(ratiosPerRound(byRound, ['own', 'no-op']), ratio)}`,
      floorRatio <= GOAL ? 'yes' : 'no',
      mcp.length > 0 ? formatMs(median(mcp) - median(noOp)) : 'n/a',
    ];
  });
}

const HEADINGS = [
  'agent',
  'version',
  'own edit tool',
  'editgate edit_file',
  'ratio of medians',
  'ratio per round',
  `goal <= ${GOAL}x`,
  ...(floor ? ['no-op server edit_file', 'floor ratio', 'goal reachable', "editgate's part"] : []),
];
printReadings(HEADINGS, rowsOf, edits, 'a server that has made no edit yet');
