/**
 * What editgate's hooks cost one edit in a real agent (issue #29, item 5): the agent's own edit call, with
 * editgate's hooks installed (`--approve policy`, a config that allows every change) or without them, timed
 * from the fake model's request timestamps: from the request the model answered with the edit call to the
 * next request, which carries the edit's result. That span holds the agent's own work on the call (and its
 * next request's start) plus, with hooks, the pre-tool and post-tool hook processes. The same hooks
 * answering nothing at once (`no-op`, HookSessionOptions.noOp) cost what the agent's own hook machinery
 * does: the floor under any hook's cost. Used by bench/hooks.bench.mjs.
 */
import type { AgentClient } from './clients/client.js';
import { runHookSession } from './hooks-session.js';
import { editedNotesFor, editTurnIndex, notesFor, ownEditTurns } from './own-edit-turns.js';

export interface HookCost {
  /**
   * Per edit call, in order: from the request answered with the call to the request carrying its result
   * (NaN where a request is missing).
   */
  editMs: number[];
  /** The file was edited as the calls asked. */
  written: boolean;
  code: number | null;
  /** Hook calls the hook server answered. */
  served: number;
}

/**
 * `server`: warm (the hook server already running: every call after a person's first) or cold (none: the
 * first call runs the Node hook, which starts it). `edits`: how many edits the session makes, one after
 * another (the first in a root the server has not seen, the later ones as the rest of a person's session).
 */
export async function hookCost(
  client: AgentClient,
  hooks: 'none' | 'editgate' | 'no-op',
  server: 'warm' | 'cold' = 'warm',
  edits = 1,
): Promise<HookCost> {
  const session = await runHookSession({
    client,
    approve: 'policy',
    hooks: hooks !== 'none',
    noOp: hooks === 'no-op',
    server,
    files: { 'notes.txt': notesFor(edits) },
    turns: (root) => ownEditTurns(client.name, root, edits),
    // OpenCode alone takes a minute or more per run on a loaded machine.
    timeoutMs: 300_000,
  });
  try {
    const main = session.model.main();
    const at = editTurnIndex(client.name);
    const editMs = Array.from({ length: edits }, (_, index) => {
      const asked = main[at + index];
      const answered = main[at + index + 1];
      return asked && answered ? answered.at - asked.at : Number.NaN;
    });
    return {
      editMs,
      written: session.file('notes.txt') === editedNotesFor(edits),
      code: session.result.code,
      served: session.served,
    };
  } finally {
    await session.close();
  }
}
