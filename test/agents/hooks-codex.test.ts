import { describe } from 'vitest';
import { codex } from './clients/codex.js';
import { hookScenarios } from './hooks-session.js';

// editgate's hooks in front of Codex's own apply_patch (src/hooks/agents/codex.ts), in the real Codex 0.171.0
// with a scripted model (gpt-5.5's freeform apply_patch), installed by `editgate hooks install codex --user`
// (hooks.json and their trust in config.toml). Turn 0 patches, so its result is in main request 1.

const PATCH = [
  '*** Begin Patch',
  '*** Update File: notes.txt',
  '@@',
  ' alpha',
  '-beta',
  '+BETA',
  ' gamma',
  '*** End Patch',
  '',
].join('\n');

describe('Codex with editgate hooks', () => {
  hookScenarios({
    client: codex,
    file: 'notes.txt',
    before: 'alpha\nbeta\ngamma\n',
    after: 'alpha\nBETA\ngamma\n',
    tool: 'apply_patch',
    resultRequest: 1,
    turns: () => [
      { call: [{ tool: 'apply_patch', exact: true, input: { input: PATCH } }] },
      { say: 'Done.' },
    ],
  });
});
