import { join } from 'node:path';
import { describe } from 'vitest';
import { qwenCode } from './clients/qwen-code.js';
import { hookCases } from './hooks-cases.js';

// editgate's hooks in front of Qwen Code's own edit (src/hooks/agents/qwen-code.ts), in the real Qwen Code
// 0.24.4 (--approval-mode auto-edit) with a scripted model: installed by `editgate hooks install qwen-code
// --user`.
describe('Qwen Code with editgate hooks', () => {
  hookCases({
    client: qwenCode,
    tool: 'edit',
    turns: (root) => {
      const path = join(root, 'notes.txt');
      return [
        { call: [{ tool: 'read_file', exact: true, input: { file_path: path } }] },
        {
          call: [
            { tool: 'edit', exact: true, input: { file_path: path, old_string: 'beta', new_string: 'BETA' } },
          ],
        },
        { say: 'Done.' },
      ];
    },
  });
});
