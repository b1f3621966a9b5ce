/**
 * What editgate's hooks cost one edit in a real agent (issue #29, item 5): the agent's own edit call, with
 * editgate's hooks installed (`--approve policy`, a config that allows every change) or without them, timed
 * from the fake model's request timestamps: from the request the model answered with the edit call to the
 * next request, which carries the edit's result. That span holds the agent's own work on the call (and its
 * next request's start) plus, with hooks, the pre-tool and post-tool hook processes. Used by
 * bench/hooks.bench.mjs.
 */
import type { AgentClient } from './clients/client.js';
import { runHookSession } from './hooks-session.js';
import { EDITED_NOTES, editTurnIndex, NOTES, OWN_EDIT_TURNS } from './own-edit-turns.js';

export interface HookCost {
  /** From the request answered with the edit call to the request carrying its result. */
  editMs: number;
  /** The file was edited as the call asked. */
  written: boolean;
  code: number | null;
  /** Hook calls the hook server answered. */
  served: number;
}

/**
 * `server`: warm (the hook server already running: every call after a person's first) or cold (none: the
 * first call runs the Node hook, which starts it).
 */
export async function hookCost(
  client: AgentClient,
  hooks: boolean,
  server: 'warm' | 'cold' = 'warm',
): Promise<HookCost> {
  const session = await runHookSession({
    client,
    approve: 'policy',
    hooks,
    server,
    files: { 'notes.txt': NOTES },
    turns: OWN_EDIT_TURNS[client.name],
    // OpenCode alone takes a minute or more per run on a loaded machine.
    timeoutMs: 300_000,
  });
  try {
    const main = session.model.main();
    const at = editTurnIndex(client.name);
    const asked = main[at];
    const answered = main[at + 1];
    return {
      editMs: asked && answered ? answered.at - asked.at : Number.NaN,
      written: session.file('notes.txt') === EDITED_NOTES,
      code: session.result.code,
      served: session.served,
    };
  } finally {
    await session.close();
  }
}
