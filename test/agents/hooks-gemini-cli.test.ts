import { join } from 'node:path';
import { describe } from 'vitest';
import { geminiCli } from './clients/gemini-cli.js';
import { hookCases } from './hooks-cases.js';

// editgate's hooks in front of Gemini CLI's own replace (src/hooks/agents/gemini-cli.ts), in the real Gemini
// CLI 0.61.0 (--approval-mode auto_edit) with a scripted model: installed by `editgate hooks install
// gemini-cli --user`.
describe('Gemini CLI with editgate hooks', () => {
  hookCases({
    client: geminiCli,
    tool: 'replace',
    turns: (root) => {
      const path = join(root, 'notes.txt');
      return [
        { call: [{ tool: 'read_file', exact: true, input: { file_path: path } }] },
        {
          call: [
            {
              tool: 'replace',
              exact: true,
              input: {
                file_path: path,
                old_string: 'beta',
                new_string: 'BETA',
                instruction: 'Upper-case beta.',
              },
            },
          ],
        },
        { say: 'Done.' },
      ];
    },
  });
});
