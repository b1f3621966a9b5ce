import { join } from 'node:path';
import { describe } from 'vitest';
import { claudeCode } from './clients/claude-code.js';
import { hookScenarios } from './hooks-session.js';

// editgate's hooks in front of Claude Code's own Edit (src/hooks/agents/claude-code.ts), in the real Claude
// Code 2.1.332 with a scripted model, installed by `editgate hooks install claude-code --user`. Claude Code's
// Edit wants the file read first: turn 0 reads, turn 1 edits, so the edit's result is in main request 2.
// Its 'denied on the page' runs with no page: the hook starts it (the other agents' run with one running).

describe('Claude Code with editgate hooks', () => {
  hookScenarios({
    client: claudeCode,
    file: 'notes.txt',
    before: 'alpha\nbeta\ngamma\n',
    after: 'alpha\nBETA\ngamma\n',
    tool: 'Edit',
    resultRequest: 2,
    hookStartsPage: true,
    turns: (root) => {
      const path = join(root, 'notes.txt');
      return [
        { call: [{ tool: 'Read', exact: true, input: { file_path: path } }] },
        {
          call: [
            { tool: 'Edit', exact: true, input: { file_path: path, old_string: 'beta', new_string: 'BETA' } },
          ],
        },
        { say: 'Done.' },
      ];
    },
  });
});
