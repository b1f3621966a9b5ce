import { join } from 'node:path';
import { describe } from 'vitest';
import { opencode } from './clients/opencode.js';
import { hookCases } from './hooks-cases.js';

// editgate's hooks in front of OpenCode's own edit (src/hooks/agents/opencode.ts), in the real OpenCode
// 1.18.33 with a scripted model: the plugin installed by `editgate hooks install opencode --user`.
describe('OpenCode with editgate hooks', () => {
  hookCases({
    client: opencode,
    tool: 'edit',
    timeoutMs: 300_000,
    turns: (root) => {
      const path = join(root, 'notes.txt');
      return [
        { call: [{ tool: 'read', exact: true, input: { filePath: path } }] },
        {
          call: [
            { tool: 'edit', exact: true, input: { filePath: path, oldString: 'beta', newString: 'BETA' } },
          ],
        },
        { say: 'Done.' },
      ];
    },
  });
});
