import { describe } from 'vitest';
import { geminiCli } from './clients/gemini-cli.js';
import { hookScenarios } from './hooks-session.js';
import { EDITED_NOTES, editTurnIndex, NOTES, OWN_EDIT_TURNS } from './own-edit-turns.js';

// editgate's hooks in front of Gemini CLI's own replace (src/hooks/agents/gemini-cli.ts), in the real Gemini
// CLI 0.61.0 (--approval-mode auto_edit) with a scripted model: its own read_file, then replace, installed by
// `editgate hooks install gemini-cli --user`.
describe('Gemini CLI with editgate hooks', () => {
  hookScenarios({
    client: geminiCli,
    file: 'notes.txt',
    before: NOTES,
    after: EDITED_NOTES,
    tool: 'replace',
    resultRequest: editTurnIndex('gemini-cli') + 1,
    turns: OWN_EDIT_TURNS['gemini-cli'],
    // Under load a run takes minutes here.
    timeoutMs: 300_000,
  });
});
