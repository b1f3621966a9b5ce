import type { AgentClient } from './clients/client.js';
import { startScriptedModel } from './fake-models/server.js';
import { installedAgent } from './installed.js';
import { runAgent } from './run-agent.js';
import { makeWorkspace } from './workspace.js';

export interface ColdStart {
  /** From spawn to the agent's first model request that offers tools: the agent is ready to work. */
  readyMs: number;
  /** From spawn to exit, for a prompt answered with one line of text. */
  totalMs: number;
  /** Whether the ready request offered editgate's tools (with `mcp`, it must). */
  editgateOffered: boolean;
  code: number | null;
}

/**
 * One cold start of the agent, with or without editgate's MCP server configured, in a fresh HOME (so no
 * cache of an earlier run helps): the model answers one line of text. Used by bench/agents.bench.mjs.
 */
export async function coldStart(client: AgentClient, mcp: boolean): Promise<ColdStart> {
  const command = installedAgent(client.name);
  const workspace = makeWorkspace(`${client.name}-bench`);
  // Every request is answered with the one line: the first one that offers tools is the ready one.
  const model = await startScriptedModel({
    protocol: client.protocol,
    script: [],
    isMain: () => false,
    sideTurn: () => ({ text: 'Done.' }),
  });
  try {
    const run = client.prepare({ workspace, model, command, prompt: 'Say done.', mcp });
    const spawned = performance.now();
    const result = await runAgent(run, model, 120_000);
    const ready = model.requests.find(
      (request) =>
        request.method === 'POST' && Array.isArray(request.body?.tools) && request.body.tools.length > 0,
    );
    // Request times are from the server's start; the server started before the spawn.
    const serverToSpawn = spawned - model.startedAt;
    return {
      readyMs: ready ? ready.at - serverToSpawn : Number.NaN,
      totalMs: result.ms,
      editgateOffered: (ready?.offered.length ?? 0) > 0,
      code: result.code,
    };
  } finally {
    await model.close();
    workspace.remove();
  }
}
