import type { Turn } from './fake-models/script.js';

/**
 * A scripted session: the files it starts from, the model's turns, and what must hold afterwards: each
 * file's bytes, and what the model must have been told (found in the request that follows a turn).
 */
export interface ScriptedSession {
  title: string;
  /** Paths relative to the project root, and their content before the run. */
  files: Record<string, string>;
  /** The model's turns; a function when they need the project root (an agent's own tools take absolute paths). */
  turns: Turn[] | ((root: string) => Turn[]);
  /** Each file's exact content after the run. */
  expectFiles: Record<string, string>;
  /**
   * After turn `afterTurn` (0-based), the model's next request carries `contains` (why: `what`), and the
   * request the turn answered did not: it is that turn's result, not an echo of the call.
   */
  expectToldModel: { afterTurn: number; contains: string; what: string }[];
}

const NOTES = 'alpha\nbeta\nrepeat\ngamma café ✓\nrepeat\n';

/**
 * Read a file, edit one line, then an edit whose old text occurs twice (AMBIGUOUS, nothing written). The
 * file's non-ASCII bytes must survive.
 */
export const READ_EDIT_AMBIGUOUS: ScriptedSession = {
  title: 'read_file, edit_file byte-exact, an ambiguous edit_file whose AMBIGUOUS error reaches the model',
  files: { 'notes.txt': NOTES },
  turns: [
    { call: [{ tool: 'read_file', input: { file_path: 'notes.txt' } }] },
    {
      call: [
        {
          tool: 'edit_file',
          input: { file_path: 'notes.txt', old_string: 'beta', new_string: 'beta → BETA' },
        },
      ],
    },
    {
      call: [
        { tool: 'edit_file', input: { file_path: 'notes.txt', old_string: 'repeat', new_string: 'once' } },
      ],
    },
    { say: 'Done: one edit made, the other was ambiguous.' },
  ],
  expectFiles: { 'notes.txt': 'alpha\nbeta → BETA\nrepeat\ngamma café ✓\nrepeat\n' },
  expectToldModel: [
    { afterTurn: 0, contains: 'gamma café ✓', what: "the read's text" },
    { afterTurn: 1, contains: 'Edited notes.txt: 1 replacement', what: 'the edit result' },
    // (AMBIGUOUS alone is in editgate's instructions, in every request.)
    { afterTurn: 2, contains: 'edit_file failed (AMBIGUOUS)', what: 'the AMBIGUOUS error' },
    {
      afterTurn: 2,
      contains: 'matches 2 places (lines 3 and 5)',
      what: 'the count and lines of the matches',
    },
  ],
};

/** Two edits in one multi_edit, an apply_patch over two files (one change set), then undo of the first file. */
export const MULTI_PATCH_UNDO: ScriptedSession = {
  title: 'multi_edit, a 2-file apply_patch byte-exact, undo_edit puts the first file back',
  files: { 'notes.txt': NOTES, 'src/a.txt': 'one\ntwo\nthree\n', 'src/b.txt': 'uno\r\ndos\r\ntres\r\n' },
  turns: [
    { call: [{ tool: 'read_file', input: { file_path: 'notes.txt' } }] },
    {
      call: [
        {
          tool: 'multi_edit',
          input: {
            file_path: 'notes.txt',
            edits: [
              { old_string: 'alpha', new_string: 'ALPHA' },
              { old_string: 'gamma', new_string: 'GAMMA' },
            ],
          },
        },
      ],
    },
    {
      call: [
        {
          tool: 'apply_patch',
          input: {
            patch: [
              '*** Begin Patch',
              '*** Update File: src/a.txt',
              '@@',
              ' one',
              '-two',
              '+TWO',
              ' three',
              '*** Update File: src/b.txt',
              '@@',
              ' uno',
              '-dos',
              '+DOS',
              ' tres',
              '*** End Patch',
            ].join('\n'),
          },
        },
      ],
    },
    { call: [{ tool: 'undo_edit', input: { file_path: 'notes.txt' } }] },
    { say: 'Done: patched two files, and put notes.txt back.' },
  ],
  expectFiles: {
    'notes.txt': NOTES,
    'src/a.txt': 'one\nTWO\nthree\n',
    // The file's CRLF line endings are kept.
    'src/b.txt': 'uno\r\nDOS\r\ntres\r\n',
  },
  expectToldModel: [
    { afterTurn: 1, contains: 'Edited notes.txt: 2 replacements', what: 'the multi_edit result' },
    { afterTurn: 2, contains: 'Changed 2 files as one change', what: 'the patch result' },
    { afterTurn: 2, contains: 'Edited src/b.txt (+1 -1 lines)', what: 'the patch result, naming each file' },
    { afterTurn: 3, contains: 'Undid the last change to notes.txt', what: 'the undo result' },
  ],
};

/** Codex's own apply_patch tool (freeform: the patch is the call's whole input), no editgate. */
export const CODEX_OWN_PATCH: ScriptedSession = {
  title: "Codex's own apply_patch, scripted (no editgate)",
  files: { 'notes.txt': NOTES },
  turns: [
    {
      call: [
        {
          tool: 'apply_patch',
          exact: true,
          input: {
            input: [
              '*** Begin Patch',
              '*** Update File: notes.txt',
              '@@',
              ' alpha',
              '-beta',
              '+beta → BETA',
              ' repeat',
              '*** End Patch',
              '',
            ].join('\n'),
          },
        },
      ],
    },
    { say: 'Done.' },
  ],
  expectFiles: { 'notes.txt': 'alpha\nbeta → BETA\nrepeat\ngamma café ✓\nrepeat\n' },
  expectToldModel: [
    { afterTurn: 0, contains: 'Success. Updated the following files', what: "apply_patch's result" },
  ],
};

/**
 * An agent's own read tool, then its own edit tool, no editgate (absolute paths: every agent takes them).
 * `editResult` is what the agent tells the model after the edit.
 */
function ownReadThenEdit(
  label: string,
  read: (path: string) => Record<string, unknown> & { tool: string },
  edit: (path: string) => Record<string, unknown> & { tool: string },
  editResult: string,
): ScriptedSession {
  const call = ({ tool, ...input }: Record<string, unknown> & { tool: string }): Turn => ({
    call: [{ tool, exact: true, input }],
  });
  return {
    title: `${label}'s own read and edit tools, scripted (no editgate)`,
    files: { 'notes.txt': NOTES },
    turns: (root) => [call(read(`${root}/notes.txt`)), call(edit(`${root}/notes.txt`)), { say: 'Done.' }],
    expectFiles: { 'notes.txt': 'alpha\nbeta → BETA\nrepeat\ngamma café ✓\nrepeat\n' },
    expectToldModel: [
      { afterTurn: 0, contains: 'gamma café ✓', what: "the read's text" },
      { afterTurn: 1, contains: editResult, what: "the edit tool's result" },
    ],
  };
}

/** Claude Code's Read, then Edit (which refuses a file not read first). */
export const CLAUDE_OWN_EDIT = ownReadThenEdit(
  'Claude Code',
  (path) => ({ tool: 'Read', file_path: path }),
  (path) => ({ tool: 'Edit', file_path: path, old_string: 'beta', new_string: 'beta → BETA' }),
  'has been updated',
);

export const GEMINI_OWN_EDIT = ownReadThenEdit(
  'Gemini CLI',
  (path) => ({ tool: 'read_file', file_path: path }),
  (path) => ({
    tool: 'replace',
    file_path: path,
    old_string: 'beta',
    new_string: 'beta → BETA',
    instruction: 'Rename.',
  }),
  'Successfully modified file',
);

export const QWEN_OWN_EDIT = ownReadThenEdit(
  'Qwen Code',
  (path) => ({ tool: 'read_file', file_path: path }),
  (path) => ({ tool: 'edit', file_path: path, old_string: 'beta', new_string: 'beta → BETA' }),
  'has been updated',
);

export const OPENCODE_OWN_EDIT = ownReadThenEdit(
  'OpenCode',
  (path) => ({ tool: 'read', filePath: path }),
  (path) => ({ tool: 'edit', filePath: path, oldString: 'beta', newString: 'beta → BETA' }),
  'Edit applied successfully',
);

/** Every session each agent runs over MCP. */
export const MCP_SESSIONS = [READ_EDIT_AMBIGUOUS, MULTI_PATCH_UNDO];
