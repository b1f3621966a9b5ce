import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../built-cli.js';
import type { AgentClient } from './clients/client.js';
import type { Turn } from './fake-models/script.js';
import { offersTools, startScriptedModel } from './fake-models/server.js';
import { installedAgent } from './installed.js';
import { editedNotesFor, editTurnIndex, notesFor, ownEditTurns, wordEdits } from './own-edit-turns.js';
import { runAgent } from './run-agent.js';
import { makeWorkspace } from './workspace.js';

/**
 * editgate's read_file, then `edits` edit_file calls one after another: the same changes to notes.txt the
 * agent's own tools make in ownEditTurns.
 */
function mcpEditTurns(edits: number): Turn[] {
  return [
    { call: [{ tool: 'read_file', input: { file_path: 'notes.txt' } }] },
    ...wordEdits(edits).map(
      ({ word }): Turn => ({
        call: [
          {
            tool: 'edit_file',
            input: { file_path: 'notes.txt', old_string: word, new_string: word.toUpperCase() },
          },
        ],
      }),
    ),
    { say: 'Done.' },
  ];
}

export interface EditTiming {
  /**
   * Per edit call, in order: from the model's answer with the call to its next request, which carries the
   * call's result: the agent running the call (the same fake model for both tools). NaN where a request
   * is missing.
   */
  editMs: number[];
  /** The file was written as the edits ask. */
  written: boolean;
  code: number | null;
}

/**
 * A server that offers editgate's tools and answers every call at once, doing nothing (no-op-mcp-server.mjs):
 * the client's own cost of an MCP tool call.
 */
const NO_OP_SERVER = join(REPO, 'test', 'agents', 'no-op-mcp-server.mjs');

/**
 * A session of `edits` edits in the agent, one after another, each timed: with editgate's MCP edit_file
 * (`mcp`, after a read_file), or with the agent's own edit tool (after its own read; Codex has none).
 * `thinkMs`: the model waits that long before each answer, as a real one does (default: it answers at once,
 * so what editgate readies in the background after the read still runs during the edit call). `noOp`: the
 * MCP calls go to a server that answers at once in editgate's place (nothing is written then).
 * Used by bench/clients.bench.mjs.
 */
export async function timeEdits(
  client: AgentClient,
  mcp: boolean,
  { thinkMs = 0, noOp = false, edits = 1 }: { thinkMs?: number; noOp?: boolean; edits?: number } = {},
): Promise<EditTiming> {
  const workspace = makeWorkspace(`${client.name}-edit-bench`);
  if (noOp) workspace.editgate = { ...workspace.editgate, args: [NO_OP_SERVER, workspace.root] };
  const preamble = mcp ? (client.preamble ?? []) : [];
  const turns = mcp ? mcpEditTurns(edits) : ownEditTurns(client.name, workspace.root, edits);
  // The first edit's turn: after editgate's read_file, or after the agent's own read (if it has one).
  const firstEdit = preamble.length + (mcp ? 1 : editTurnIndex(client.name));
  const isMain = client.isMain ?? (mcp ? undefined : offersTools);
  const model = await startScriptedModel({
    protocol: client.protocol,
    script: [...preamble, ...turns],
    // As checkSession runs it: without editgate, every request that offers tools is the main loop.
    ...(isMain ? { isMain } : {}),
    ...(client.sideTurn ? { sideTurn: client.sideTurn } : {}),
    ...(client.wrapCall ? { wrapCall: client.wrapCall } : {}),
    thinkMs,
  });
  try {
    writeFileSync(join(workspace.root, 'notes.txt'), notesFor(edits));
    const run = client.prepare({
      workspace,
      model,
      command: installedAgent(client.name),
      prompt: 'Make the planned changes.',
      mcp,
      ownEdits: !mcp,
    });
    const result = await runAgent(run, model, 120_000);
    const main = model.main();
    const editMs = Array.from({ length: edits }, (_, index) => {
      const asked = main[firstEdit + index];
      const answered = main[firstEdit + index + 1];
      return asked && answered ? answered.at - (asked.answeredAt ?? asked.at) : Number.NaN;
    });
    return {
      editMs,
      written: readFileSync(join(workspace.root, 'notes.txt'), 'utf8') === editedNotesFor(edits),
      code: result.code,
    };
  } finally {
    await model.close();
    workspace.remove();
  }
}
