import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import type { AgentClient } from './clients/client.js';
import { EDITGATE_TOOL_NAMES } from './fake-models/script.js';
import type { ModelRequest } from './fake-models/server.js';
import { offersTools, startScriptedModel } from './fake-models/server.js';
import { installedAgent, PINNED } from './installed.js';
import { type AgentResult, runAgent } from './run-agent.js';
import type { ScriptedSession } from './sessions.js';
import { makeWorkspace } from './workspace.js';

/** editgate's MCP tools that every agent must offer its model (with --approve policy: no apply_change). */
export const EDITGATE_TOOLS = EDITGATE_TOOL_NAMES.filter((tool) => tool !== 'apply_change');

/** The request as text, to look for what reached the model (a tool result, an error). */
export function requestText(request: ModelRequest | undefined): string {
  return request ? JSON.stringify(request.body) : '';
}

/**
 * With EDITGATE_AGENTS_DUMP=FOLDER, every request the fake model received is written to
 * FOLDER/<agent>-requests.json, and its output to <agent>-stdout.txt and -stderr.txt: what to read when an
 * agent does something unexpected.
 */
export function dumpRun(client: AgentClient, requests: ModelRequest[], result: AgentResult): void {
  const folder = process.env.EDITGATE_AGENTS_DUMP;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${client.name}-requests.json`), JSON.stringify(requests, null, 1));
  writeFileSync(join(folder, `${client.name}-stdout.txt`), result.stdout);
  writeFileSync(join(folder, `${client.name}-stderr.txt`), result.stderr);
}

/** A short account of the run for the test output: what the agent did and what the person saw. */
export function describeRun(client: AgentClient, result: AgentResult, requests: ModelRequest[]): string {
  const main = requests.filter((request) => request.main);
  const shown = (result.stdout.trim() || result.stderr.trim())
    .split('\n')
    .slice(-8)
    .map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line))
    .join('\n    ');
  return [
    `${client.label} ${PINNED[client.name].version}: exit ${result.code ?? result.signal}${result.timedOut ? ' (TIMED OUT)' : ''} in ${(result.ms / 1000).toFixed(1)} s, ${result.isolation}`,
    `  model requests: ${requests.length} (${main.length} main loop: ${requests.map((r) => `${r.method} ${r.url.replace(/\?.*$/, '')}${r.main ? '*' : ''} at ${r.at} ms`).join(', ')})`,
    `  editgate tools offered as: ${main[0]?.offered.join(', ') || 'none'}`,
    ...Object.entries(client.hiddenTools ?? {}).map(([tool, why]) => `  not offered: ${tool}: ${why}`),
    `  last lines of output:\n    ${shown}`,
  ].join('\n');
}

export interface SessionOptions {
  /**
   * editgate's MCP server configured (default true). Without it, the main loop is every request that
   * offers tools, and the session scripts the agent's own tools (`exact: true`).
   */
  mcp?: boolean;
  /** The agent's own edit tools write without asking (AgentClient.prepare's `ownEdits`). */
  ownEdits?: boolean;
  timeoutMs?: number;
}

/**
 * Runs the session in the agent against its fake model and checks it: with editgate's MCP server, its
 * tools offered (all but those the client declares hidden); what the model was told after each turn; every
 * file byte-exact; the agent finished cleanly. Fails with the agent's output when anything is off.
 */
export async function checkSession(
  client: AgentClient,
  session: ScriptedSession,
  { mcp = true, ownEdits = false, timeoutMs = 90_000 }: SessionOptions = {},
): Promise<void> {
  await ensureBuilt();
  const command = installedAgent(client.name);
  const workspace = makeWorkspace(client.name);
  // The preamble loads deferred MCP tools; without MCP there is nothing to load.
  const preamble = mcp ? (client.preamble ?? []) : [];
  const turns = typeof session.turns === 'function' ? session.turns(workspace.root) : session.turns;
  const isMain = client.isMain ?? (mcp ? undefined : offersTools);
  const model = await startScriptedModel({
    protocol: client.protocol,
    script: [...preamble, ...turns],
    ...(isMain ? { isMain } : {}),
    ...(client.sideTurn ? { sideTurn: client.sideTurn } : {}),
    ...(client.wrapCall ? { wrapCall: client.wrapCall } : {}),
  });
  try {
    for (const [path, content] of Object.entries(session.files)) {
      mkdirSync(dirname(join(workspace.root, path)), { recursive: true });
      writeFileSync(join(workspace.root, path), content);
    }
    const run = client.prepare({
      workspace,
      model,
      command,
      prompt: 'Make the planned changes.',
      mcp,
      ownEdits,
    });
    const result = await runAgent(run, model, timeoutMs);
    const report = `${session.title}\n${describeRun(client, result, model.requests)}`;
    console.log(report);
    dumpRun(client, model.requests, result);
    const context = `${report}\n--- stdout ---\n${result.stdout.slice(-3000)}\n--- stderr ---\n${result.stderr.slice(-3000)}`;

    expect(model.problems, context).toEqual([]);
    const main = model.main();
    const expected = preamble.length + turns.length;
    expect(
      main.length >= expected,
      `the agent made ${main.length} main-loop requests, the script has ${expected} turns\n${context}`,
    ).toBe(true);
    for (const tool of mcp ? EDITGATE_TOOLS : []) {
      const hidden = client.hiddenTools?.[tool];
      expect(
        main[0]!.offered.some((name) => name.endsWith(tool)),
        `${tool} ${hidden ? `hidden (${hidden})` : 'offered'} to the model\n${context}`,
      ).toBe(!hidden);
    }
    for (const { afterTurn, contains, what } of session.expectToldModel) {
      // The main-loop request the turn answered, and the one after it (the client's preamble comes first).
      const asked = requestText(main[preamble.length + afterTurn]);
      const next = requestText(main[preamble.length + afterTurn + 1]);
      expect(
        asked.includes(contains),
        `"${contains}" already in the request before turn ${afterTurn}\n${context}`,
      ).toBe(false);
      expect(
        next.includes(contains),
        `${what} reached the model after turn ${afterTurn} ("${contains}")\n${context}`,
      ).toBe(true);
    }
    for (const [path, content] of Object.entries(session.expectFiles)) {
      expect(readFileSync(join(workspace.root, path), 'utf8'), `${path}\n${context}`).toBe(content);
    }
    expect(result.timedOut, context).toBe(false);
    expect(result.code, context).toBe(0);
  } finally {
    await model.close();
    workspace.remove();
  }
}
