import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import type { AgentClient } from './clients/client.js';
import type { Turn } from './fake-models/script.js';
import type { ModelRequest } from './fake-models/server.js';
import { startScriptedModel } from './fake-models/server.js';
import { installedAgent, PINNED } from './installed.js';
import { type AgentResult, runAgent } from './run-agent.js';
import { makeWorkspace } from './workspace.js';

/** editgate's MCP tools that every agent must offer its model (with --approve policy). */
export const EDITGATE_TOOLS = [
  'read_file',
  'write_file',
  'edit_file',
  'multi_edit',
  'edit_lines',
  'apply_patch',
  'undo_edit',
];

const BEFORE = 'alpha\nbeta\nrepeat\ngamma café ✓\nrepeat\n';
const AFTER = 'alpha\nbeta → BETA\nrepeat\ngamma café ✓\nrepeat\n';

/**
 * The scripted session every agent goes through: read the file, edit one line, then an edit whose old text
 * occurs twice (AMBIGUOUS, nothing written), then a closing text. The file's non-ASCII bytes must survive.
 */
export const SESSION: Turn[] = [
  { call: [{ tool: 'read_file', input: { file_path: 'notes.txt' } }] },
  {
    call: [
      { tool: 'edit_file', input: { file_path: 'notes.txt', old_string: 'beta', new_string: 'beta → BETA' } },
    ],
  },
  {
    call: [
      { tool: 'edit_file', input: { file_path: 'notes.txt', old_string: 'repeat', new_string: 'once' } },
    ],
  },
  { say: 'Done: one edit made, the other was ambiguous.' },
];

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

/**
 * Runs SESSION in the agent against its fake model and checks it: editgate's tools offered, the read's text
 * in the next request, the edit byte-exact on disk, the AMBIGUOUS error (with both lines) in the request
 * after it, the agent finished cleanly. Fails with the agent's output when anything is off.
 */
export async function checkMcpSession(client: AgentClient, timeoutMs = 90_000): Promise<void> {
  await ensureBuilt();
  const command = installedAgent(client.name);
  const workspace = makeWorkspace(client.name);
  const model = await startScriptedModel({
    protocol: client.protocol,
    script: [...(client.preamble ?? []), ...SESSION],
    ...(client.isMain ? { isMain: client.isMain } : {}),
    ...(client.sideTurn ? { sideTurn: client.sideTurn } : {}),
    ...(client.wrapCall ? { wrapCall: client.wrapCall } : {}),
  });
  try {
    const file = join(workspace.root, 'notes.txt');
    writeFileSync(file, BEFORE);
    const run = client.prepare({
      workspace,
      model,
      command,
      prompt: 'Edit notes.txt as planned.',
      mcp: true,
    });
    const result = await runAgent(run, model, timeoutMs);
    const report = describeRun(client, result, model.requests);
    console.log(report);
    dumpRun(client, model.requests, result);
    const context = `${report}\n--- stdout ---\n${result.stdout.slice(-3000)}\n--- stderr ---\n${result.stderr.slice(-3000)}`;

    expect(model.problems, context).toEqual([]);
    // The main-loop request that answers SESSION's turn n (after the client's preamble).
    const after = (n: number) => requestText(model.main()[(client.preamble?.length ?? 0) + n + 1]);
    const turns = model.main().length;
    const expected = (client.preamble?.length ?? 0) + SESSION.length;
    expect(
      turns >= expected,
      `the agent made ${turns} main-loop requests, the script has ${expected} turns\n${context}`,
    ).toBe(true);
    const offered = model.main()[0]!.offered;
    for (const tool of EDITGATE_TOOLS) {
      const hidden = client.hiddenTools?.[tool];
      expect(
        offered.some((name) => name.endsWith(tool)),
        `${tool} ${hidden ? `hidden (${hidden})` : 'offered'} to the model\n${context}`,
      ).toBe(!hidden);
    }
    expect(after(0).includes('gamma café ✓'), `the read's text reached the model\n${context}`).toBe(true);
    expect(readFileSync(file, 'utf8'), context).toBe(AFTER);
    expect(after(2).includes('AMBIGUOUS'), `the AMBIGUOUS error reached the model\n${context}`).toBe(true);
    expect(/lines 3 and 5/.test(after(2)), `the error names both matching lines\n${context}`).toBe(true);
    expect(result.timedOut, context).toBe(false);
    expect(result.code, context).toBe(0);
  } finally {
    await model.close();
    workspace.remove();
  }
}
