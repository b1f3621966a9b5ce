import { describe } from 'vitest';
import { geminiCli } from './clients/gemini-cli.js';
import { hookCases } from './hooks-cases.js';
import { OWN_EDIT_TURNS } from './own-edit-turns.js';

// editgate's hooks in front of Gemini CLI's own replace (src/hooks/agents/gemini-cli.ts), in the real Gemini
// CLI 0.61.0 (--approval-mode auto_edit) with a scripted model: installed by `editgate hooks install
// gemini-cli --user`.
describe('Gemini CLI with editgate hooks', () => {
  hookCases({
    client: geminiCli,
    tool: 'replace',
    turns: OWN_EDIT_TURNS['gemini-cli'],
  });
});
