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
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { formatMs, median, printTable } from './lib.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const names = process.argv.slice(2).filter((arg) => !/^\d+$/.test(arg));
const rounds = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 5);

execFileSync(process.execPath, [`${repo}scripts/install-agents.mjs`, ...names], { stdio: 'inherit' });

const bundle = `${repo}test/.clients-bench.bundle.mjs`;
await build({
  stdin: {
    contents: [
      "export { timeEdit } from './agents/edit-timing.ts';",
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
});
let harness;
try {
  harness = await import(pathToFileURL(bundle).href);
} finally {
  rmSync(bundle, { force: true });
}
const { timeEdit, CLIENTS, isolation, PINNED } = harness;

const isolated = isolation();
console.log(`Isolation: ${isolated === 'namespace' ? 'network namespace with loopback only' : isolated}`);
console.log(`${rounds} rounds; edit call times are medians [min-max].\n`);

const clients = CLIENTS.filter((client) => names.length === 0 || names.includes(client.name));
const samples = new Map(clients.map((client) => [client.name, { own: [], mcp: [], ratios: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const client of clients) {
    // Alternate which goes first, so a warm cache or a burst of load does not favour one side.
    const order = round % 2 === 0 ? [false, true] : [true, false];
    const pair = {};
    for (const mcp of order) {
      const timing = await timeEdit(client, mcp);
      if (timing.code !== 0 || !timing.written || Number.isNaN(timing.editMs)) {
        console.error(
          `${client.label} ${mcp ? 'editgate' : 'own tool'}: exit ${timing.code}, written ${timing.written}, edit ${timing.editMs} ms`,
        );
        process.exitCode = 1;
        continue;
      }
      console.log(
        `round ${round + 1}: ${client.label} ${mcp ? 'editgate edit_file' : 'own edit tool'}: ${formatMs(timing.editMs)}`,
      );
      pair[mcp ? 'mcp' : 'own'] = timing.editMs;
      samples.get(client.name)[mcp ? 'mcp' : 'own'].push(timing.editMs);
    }
    if (pair.mcp !== undefined && pair.own !== undefined)
      samples.get(client.name).ratios.push(pair.mcp / pair.own);
  }
}

const range = (list, format) =>
  list.length === 0
    ? 'n/a'
    : `${format(median(list))} [${format(Math.min(...list))}-${format(Math.max(...list))}]`;
const ratio = (value) => `${value.toFixed(2)}x`;
printTable(
  ['agent', 'version', 'own edit tool', 'editgate edit_file', 'ratio of medians', 'ratio per round'],
  clients.map((client) => {
    const { own, mcp, ratios } = samples.get(client.name);
    return [
      client.label,
      PINNED[client.name].version,
      range(own, formatMs),
      range(mcp, formatMs),
      own.length && mcp.length ? ratio(median(mcp) / median(own)) : 'n/a',
      range(ratios, ratio),
    ];
  }),
);
