// Cold start of each coding agent (test/agents/pinned-agents.json, installed by scripts/install-agents.mjs)
// with and without editgate's MCP server configured, against the scripted fake model on 127.0.0.1 (in a
// network namespace when the machine allows it; see test/agents/README.md). Each round starts every agent
// once without and once with editgate, in a fresh HOME, so load on the machine weighs on both alike; the
// median of the rounds is reported. "ready" is spawn to the agent's first model request that offers tools
// (with editgate: offering editgate's); "total" is spawn to exit for a prompt answered with one line.
//
//   npm run bench -- agents                 every agent, 3 rounds
//   node bench/agents.bench.mjs codex 3     only Codex, 3 rounds (after npm run build)
//
// The harness is TypeScript (test/agents/); it is bundled with esbuild into test/ for the run (its paths are
// found from the repository root, which the bundle's place keeps right) and removed afterwards.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { formatMs, formatRatio, median, printTable } from './lib.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const names = process.argv.slice(2).filter((arg) => !/^\d+$/.test(arg));
const rounds = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 3);

execFileSync(process.execPath, [`${repo}scripts/install-agents.mjs`, ...names], { stdio: 'inherit' });

const bundle = `${repo}test/.agents-bench.bundle.mjs`;
await build({
  stdin: {
    contents: [
      "export { coldStart } from './agents/cold-start.ts';",
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
const { coldStart, CLIENTS, isolation, PINNED } = harness;

const isolated = isolation();
console.log(`Isolation: ${isolated === 'namespace' ? 'network namespace with loopback only' : isolated}`);
console.log(`${rounds} rounds; times are medians (min in brackets).\n`);

const clients = CLIENTS.filter((client) => names.length === 0 || names.includes(client.name));
const samples = new Map(clients.map((client) => [client.name, { without: [], with: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const client of clients) {
    for (const mcp of [false, true]) {
      const start = await coldStart(client, mcp);
      if (start.code !== 0 || Number.isNaN(start.readyMs) || (mcp && !start.editgateOffered)) {
        console.error(
          `${client.label}${mcp ? ' with editgate' : ''}: exit ${start.code}, ready ${start.readyMs}, editgate offered: ${start.editgateOffered}`,
        );
        process.exitCode = 1;
        continue;
      }
      samples.get(client.name)[mcp ? 'with' : 'without'].push(start);
    }
  }
}

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
