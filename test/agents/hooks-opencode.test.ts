import { describe } from 'vitest';
import { opencode } from './clients/opencode.js';
import { hookCases } from './hooks-cases.js';
import { OWN_EDIT_TURNS } from './own-edit-turns.js';

// editgate's hooks in front of OpenCode's own edit (src/hooks/agents/opencode.ts), in the real OpenCode
// 1.18.33 with a scripted model: the plugin installed by `editgate hooks install opencode --user`.
describe('OpenCode with editgate hooks', () => {
  hookCases({
    client: opencode,
    tool: 'edit',
    timeoutMs: 300_000,
    turns: OWN_EDIT_TURNS['opencode'],
  });
});
