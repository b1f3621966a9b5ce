/**
 * Each agent's own read tool and own edit tool on notes.txt ("beta" becomes "BETA"), then "Done.": the
 * turns a scripted model plays to drive an agent's own edit, with absolute paths (every agent takes them).
 * Codex has no read tool of its own (it reads through its shell): its calls are its freeform apply_patch.
 * The hook sessions (hooks-<agent>.test.ts) and the hook-cost bench (bench/hooks.bench.mjs) share them; the
 * bench also plays several edits in one session (ownEditTurns), one word each, as a person's session makes
 * them one after another.
 */
import { join } from 'node:path';
import type { Turn } from './fake-models/script.js';
import type { AgentName } from './installed.js';

/** The words of notes.txt, a line each: edit k upper-cases word k (from "beta"); the first and last stay. */
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];

/** The most edits one session's turns hold. */
export const MAX_EDITS = WORDS.length - 2;

function checkEdits(edits: number): void {
  if (!Number.isInteger(edits) || edits < 1 || edits > MAX_EDITS)
    throw new Error(`edits must be 1 to ${MAX_EDITS} (got ${edits})`);
}

/** notes.txt before a session of `edits` edits: one word a line. */
export function notesFor(edits: number): string {
  checkEdits(edits);
  return `${WORDS.slice(0, edits + 2).join('\n')}\n`;
}

/** notes.txt after those edits: each edited word upper-cased. */
export function editedNotesFor(edits: number): string {
  checkEdits(edits);
  const words = WORDS.slice(0, edits + 2).map((word, index) =>
    index >= 1 && index <= edits ? word.toUpperCase() : word,
  );
  return `${words.join('\n')}\n`;
}

export const NOTES = notesFor(1);
export const EDITED_NOTES = editedNotesFor(1);

const call = (tool: string, input: Record<string, unknown>): Turn => ({
  call: [{ tool, exact: true, input }],
});

/** The agent's own edit of `word` into `WORD` in notes.txt; Codex's patch takes the lines around it. */
const EDIT_CALLS: Record<AgentName, (file: string, word: string, around: [string, string]) => Turn> = {
  'claude-code': (file, word) =>
    call('Edit', { file_path: file, old_string: word, new_string: word.toUpperCase() }),
  codex: (_file, word, [before, after]) =>
    call('apply_patch', {
      input: [
        '*** Begin Patch',
        '*** Update File: notes.txt',
        '@@',
        ` ${before}`,
        `-${word}`,
        `+${word.toUpperCase()}`,
        ` ${after}`,
        '*** End Patch',
        '',
      ].join('\n'),
    }),
  'gemini-cli': (file, word) =>
    call('replace', {
      file_path: file,
      old_string: word,
      new_string: word.toUpperCase(),
      instruction: `Upper-case ${word}.`,
    }),
  'qwen-code': (file, word) =>
    call('edit', { file_path: file, old_string: word, new_string: word.toUpperCase() }),
  opencode: (file, word) => call('edit', { filePath: file, oldString: word, newString: word.toUpperCase() }),
};

/** The agent's own read of notes.txt first (none for Codex, which reads through its shell). */
const READ_CALLS: Record<AgentName, ((file: string) => Turn) | undefined> = {
  'claude-code': (file) => call('Read', { file_path: file }),
  codex: undefined,
  'gemini-cli': (file) => call('read_file', { file_path: file }),
  'qwen-code': (file) => call('read_file', { file_path: file }),
  opencode: (file) => call('read', { filePath: file }),
};

/** The edits of a session, in order: each word upper-cased, with the lines around it as they are then. */
export function wordEdits(edits: number): Array<{ word: string; around: [string, string] }> {
  checkEdits(edits);
  return Array.from({ length: edits }, (_, at) => {
    const index = at + 1;
    // The line before was edited by the previous call (but the first word, never edited).
    const before = index === 1 ? WORDS[0]! : WORDS[index - 1]!.toUpperCase();
    return { word: WORDS[index]!, around: [before, WORDS[index + 1]!] };
  });
}

/** Read notes.txt, then `edits` edits one after another (word 1, 2, ...), then "Done.". */
export function ownEditTurns(agent: AgentName, root: string, edits = 1): Turn[] {
  const file = join(root, 'notes.txt');
  const read = READ_CALLS[agent];
  return [
    ...(read ? [read(file)] : []),
    ...wordEdits(edits).map(({ word, around }) => EDIT_CALLS[agent](file, word, around)),
    { say: 'Done.' },
  ];
}

export const OWN_EDIT_TURNS = Object.fromEntries(
  (Object.keys(EDIT_CALLS) as AgentName[]).map((agent) => [
    agent,
    (root: string) => ownEditTurns(agent, root),
  ]),
) as Record<AgentName, (root: string) => Turn[]>;

/** The main-loop request (0-based) that answers the first edit call: the one before its result comes back. */
export function editTurnIndex(agent: AgentName): number {
  return READ_CALLS[agent] ? 1 : 0;
}
