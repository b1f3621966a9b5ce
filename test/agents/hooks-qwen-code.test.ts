import { describe } from 'vitest';
import { qwenCode } from './clients/qwen-code.js';
import { hookCases } from './hooks-cases.js';
import { OWN_EDIT_TURNS } from './own-edit-turns.js';

// editgate's hooks in front of Qwen Code's own edit (src/hooks/agents/qwen-code.ts), in the real Qwen Code
// 0.24.4 (--approval-mode auto-edit) with a scripted model: installed by `editgate hooks install qwen-code
// --user`.
describe('Qwen Code with editgate hooks', () => {
  hookCases({
    client: qwenCode,
    tool: 'edit',
    turns: OWN_EDIT_TURNS['qwen-code'],
  });
});
