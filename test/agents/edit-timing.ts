import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentClient } from './clients/client.js';
import type { Turn } from './fake-models/script.js';
import { offersTools, startScriptedModel } from './fake-models/server.js';
import { installedAgent } from './installed.js';
import { runAgent } from './run-agent.js';
import {
  CLAUDE_OWN_EDIT,
  CODEX_OWN_PATCH,
  GEMINI_OWN_EDIT,
  OPENCODE_OWN_EDIT,
  QWEN_OWN_EDIT,
  READ_EDIT_AMBIGUOUS,
  type ScriptedSession,
} from './sessions.js';
import { makeWorkspace } from './workspace.js';

/** Each agent's own read-then-edit session (Codex: its apply_patch alone), and which turn is the edit. */
const OWN_EDIT: Record<string, { session: ScriptedSession; editTurn: number }> = {
  'claude-code': { session: CLAUDE_OWN_EDIT, editTurn: 1 },
  codex: { session: CODEX_OWN_PATCH, editTurn: 0 },
  'gemini-cli': { session: GEMINI_OWN_EDIT, editTurn: 1 },
  opencode: { session: OPENCODE_OWN_EDIT, editTurn: 1 },
  'qwen-code': { session: QWEN_OWN_EDIT, editTurn: 1 },
};

/** editgate's read_file then edit_file, the same change the agents' own sessions make. */
const MCP_EDIT: ScriptedSession = {
  ...READ_EDIT_AMBIGUOUS,
  title: 'read_file, then edit_file',
  turns: [...(READ_EDIT_AMBIGUOUS.turns as Turn[]).slice(0, 2), { say: 'Done.' }],
  expectFiles: READ_EDIT_AMBIGUOUS.expectFiles,
};

export interface EditTiming {
  /**
   * From the model's answer with the edit call to its next request, which carries the edit's result: the
   * agent running the call (the same fake model for both tools).
   */
  editMs: number;
  /** The file was written as the session expects. */
  written: boolean;
  code: number | null;
}

/**
 * One timed edit in the agent: with editgate's MCP edit_file (`mcp`), or with the agent's own edit tool.
 * `thinkMs`: the model waits that long before each answer, as a real one does (default: it answers at once,
 * so what editgate readies in the background after the read still runs during the edit call).
 * Used by bench/clients.bench.mjs.
 */
export async function timeEdit(
  client: AgentClient,
  mcp: boolean,
  { thinkMs = 0 }: { thinkMs?: number } = {},
): Promise<EditTiming> {
  const own = OWN_EDIT[client.name];
  if (!own) throw new Error(`no own-edit session for ${client.name}`);
  const { session, editTurn } = mcp ? { session: MCP_EDIT, editTurn: 1 } : own;
  const workspace = makeWorkspace(`${client.name}-edit-bench`);
  const preamble = mcp ? (client.preamble ?? []) : [];
  const turns = typeof session.turns === 'function' ? session.turns(workspace.root) : session.turns;
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
    for (const [path, content] of Object.entries(session.files)) {
      mkdirSync(dirname(join(workspace.root, path)), { recursive: true });
      writeFileSync(join(workspace.root, path), content);
    }
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
    const asked = main[preamble.length + editTurn];
    const answered = main[preamble.length + editTurn + 1];
    const written = Object.entries(session.expectFiles).every(
      ([path, content]) => readFileSync(join(workspace.root, path), 'utf8') === content,
    );
    return {
      editMs: asked && answered ? answered.at - (asked.answeredAt ?? asked.at) : Number.NaN,
      written,
      code: result.code,
    };
  } finally {
    await model.close();
    workspace.remove();
  }
}
