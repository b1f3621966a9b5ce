import { describe } from 'vitest';
import { qwenCode } from './clients/qwen-code.js';
import { hookScenarios } from './hooks-session.js';
import { EDITED_NOTES, editTurnIndex, NOTES, OWN_EDIT_TURNS } from './own-edit-turns.js';

// editgate's hooks in front of Qwen Code's own edit (src/hooks/agents/qwen-code.ts), in the real Qwen Code
// 0.24.4 (--approval-mode auto-edit) with a scripted model: its own read_file, then edit, installed by
// `editgate hooks install qwen-code --user`.
describe('Qwen Code with editgate hooks', () => {
  hookScenarios({
    client: qwenCode,
    file: 'notes.txt',
    before: NOTES,
    after: EDITED_NOTES,
    tool: 'edit',
    resultRequest: editTurnIndex('qwen-code') + 1,
    turns: OWN_EDIT_TURNS['qwen-code'],
    // Under load a run takes minutes here.
    timeoutMs: 300_000,
    // Issue #29 asks all six scenarios of Claude Code, Codex and Gemini CLI; here two, each a minute or
    // more of CI: the Node hook (no server yet) written and undone, and the review page through the server.
    only: ['allowed by policy', 'approved on the page'],
  });
});
