import { describe } from 'vitest';
import { opencode } from './clients/opencode.js';
import { hookScenarios } from './hooks-session.js';
import { EDITED_NOTES, editTurnIndex, NOTES, OWN_EDIT_TURNS } from './own-edit-turns.js';

// editgate's hooks in front of OpenCode's own edit (src/hooks/agents/opencode.ts), in the real OpenCode
// 1.18.33 with a scripted model: its own read, then edit, through the plugin `editgate hooks install opencode
// --user` writes. OpenCode starts slowly here (about a minute per run under load): a longer time-out.
describe('OpenCode with editgate hooks', () => {
  hookScenarios({
    client: opencode,
    file: 'notes.txt',
    before: NOTES,
    after: EDITED_NOTES,
    tool: 'edit',
    resultRequest: editTurnIndex('opencode') + 1,
    turns: OWN_EDIT_TURNS['opencode'],
    timeoutMs: 300_000,
    // Issue #29 asks all six scenarios of Claude Code, Codex and Gemini CLI; here two, each a minute or
    // more of CI: the Node hook (no server yet) written and undone, and the review page through the server.
    only: ['allowed by policy', 'approved on the page'],
  });
});
