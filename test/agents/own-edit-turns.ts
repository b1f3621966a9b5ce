/**
 * Each agent's own read tool and own edit tool on notes.txt ("beta" becomes "BETA"), then "Done.": the
 * turns a scripted model plays to drive an agent's own edit, with absolute paths (every agent takes them).
 * Codex has no read tool of its own (it reads through its shell): its one call is its freeform apply_patch.
 * The hook sessions (hooks-<agent>.test.ts) and the hook-cost bench (bench/hooks.bench.mjs) share them.
 */
import { join } from 'node:path';
import type { Turn } from './fake-models/script.js';
import type { AgentName } from './installed.js';

export const NOTES = 'alpha\nbeta\ngamma\n';
export const EDITED_NOTES = 'alpha\nBETA\ngamma\n';

const call = (tool: string, input: Record<string, unknown>): Turn => ({
  call: [{ tool, exact: true, input }],
});

export const OWN_EDIT_TURNS: Record<AgentName, (root: string) => Turn[]> = {
  'claude-code': (root) => [
    call('Read', { file_path: join(root, 'notes.txt') }),
    call('Edit', { file_path: join(root, 'notes.txt'), old_string: 'beta', new_string: 'BETA' }),
    { say: 'Done.' },
  ],
  codex: () => [
    call('apply_patch', {
      input: [
        '*** Begin Patch',
        '*** Update File: notes.txt',
        '@@',
        ' alpha',
        '-beta',
        '+BETA',
        ' gamma',
        '*** End Patch',
        '',
      ].join('\n'),
    }),
    { say: 'Done.' },
  ],
  'gemini-cli': (root) => [
    call('read_file', { file_path: join(root, 'notes.txt') }),
    call('replace', {
      file_path: join(root, 'notes.txt'),
      old_string: 'beta',
      new_string: 'BETA',
      instruction: 'Upper-case beta.',
    }),
    { say: 'Done.' },
  ],
  'qwen-code': (root) => [
    call('read_file', { file_path: join(root, 'notes.txt') }),
    call('edit', { file_path: join(root, 'notes.txt'), old_string: 'beta', new_string: 'BETA' }),
    { say: 'Done.' },
  ],
  opencode: (root) => [
    call('read', { filePath: join(root, 'notes.txt') }),
    call('edit', { filePath: join(root, 'notes.txt'), oldString: 'beta', newString: 'BETA' }),
    { say: 'Done.' },
  ],
};

/** The main-loop request (0-based) that answers the edit call: the one before the result comes back. */
export function editTurnIndex(agent: AgentName): number {
  return OWN_EDIT_TURNS[agent]('/').findIndex((turn) =>
    'call' in turn
      ? turn.call.some((c) => ['Edit', 'apply_patch', 'replace', 'edit'].includes(c.tool))
      : false,
  );
}
