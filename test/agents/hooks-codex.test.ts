import { describe } from 'vitest';
import { codex } from './clients/codex.js';
import { hookScenarios } from './hooks-session.js';
import { EDITED_NOTES, editTurnIndex, NOTES, OWN_EDIT_TURNS } from './own-edit-turns.js';

// editgate's hooks in front of Codex's own apply_patch (src/hooks/agents/codex.ts), in the real Codex 0.171.0
// with a scripted model (gpt-5.5's freeform apply_patch), installed by `editgate hooks install codex --user`
// (hooks.json and their trust in config.toml). Turn 0 patches, so its result is in main request 1.
describe('Codex with editgate hooks', () => {
  hookScenarios({
    client: codex,
    file: 'notes.txt',
    before: NOTES,
    after: EDITED_NOTES,
    tool: 'apply_patch',
    resultRequest: editTurnIndex('codex') + 1,
    turns: OWN_EDIT_TURNS.codex,
  });
});
