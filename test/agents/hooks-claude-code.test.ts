import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCode } from './clients/claude-code.js';
import { type HookSession, hookScenarios, requestText, runHookSession } from './hooks-session.js';

// editgate's hooks in front of Claude Code's own Edit (src/hooks/agents/claude-code.ts), in the real Claude
// Code 2.1.332 with a scripted model, installed by `editgate hooks install claude-code --user`: the edit
// hooks are http hooks that post to the hook server on 127.0.0.1 (the scenarios' answers reach the model and
// the page only through them), SessionStart a command hook. Claude Code's Edit wants the file read first:
// turn 0 reads, turn 1 edits, so the edit's result is in main request 2.
// Its 'denied on the page' runs with no page: the hook starts it (the other agents' run with one running).

const path = (root: string) => join(root, 'notes.txt');
const turns = (root: string) => [
  { call: [{ tool: 'Read', exact: true, input: { file_path: path(root) } }] },
  {
    call: [
      { tool: 'Edit', exact: true, input: { file_path: path(root), old_string: 'beta', new_string: 'BETA' } },
    ],
  },
  { say: 'Done.' },
];

/** The edit allowed by policy, with the hook server running before Claude Code starts. */
const warmPolicy = {
  client: claudeCode,
  approve: 'policy',
  files: { 'notes.txt': 'alpha\nbeta\ngamma\n' },
  turns,
  server: 'warm',
} as const;

describe('Claude Code with editgate hooks', () => {
  const sessions: HookSession[] = [];
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.close();
  });

  it('an http hook that finds no server listening blocks the edit (onFailure: block): nothing is written', async () => {
    const session = await runHookSession({ ...warmPolicy, unreachable: true });
    sessions.push(session);
    expect(session.installOutput, session.installOutput).toMatch(/"type": "http"/);
    expect(session.file('notes.txt'), session.report).toBe('alpha\nbeta\ngamma\n');
    // Claude Code's own words: "PreToolUse:Edit hook error: [URL]: failed; blocking because onFailure is
    // "block"", then "connect ECONNREFUSED ...".
    expect(requestText(session.model.main()[2]), session.report).toContain(
      'blocking because onFailure is \\"block\\"',
    );
  }, 180_000);

  it("a program that is not editgate's holds the hook port: the person is told at the start, every prompt is blocked, no edit reaches it", async () => {
    const session = await runHookSession({ ...warmPolicy, stranger: true });
    sessions.push(session);
    // The session's start shows the person why (Claude Code goes on all the same), and the prompt is
    // blocked: the model is never asked, so no edit is made and none reaches the stranger, which was only
    // asked for a proof (with no token) twice.
    expect(session.file('notes.txt'), session.report).toBe('alpha\nbeta\ngamma\n');
    expect(session.model.main(), session.report).toHaveLength(0);
    expect(session.strangerCalls, session.report).toBe(2);
    expect(session.report).toContain("is not editgate's hook server");
  }, 180_000);

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
