import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { opencode, opencodeWith } from './clients/opencode.js';
import { type HookSession, hookScenarios, requestText, runHookSession } from './hooks-session.js';
import { EDITED_NOTES, editTurnIndex, NOTES, OWN_EDIT_TURNS } from './own-edit-turns.js';

// editgate's hooks in front of OpenCode's own edit (src/hooks/agents/opencode.ts), in the real OpenCode
// 1.18.33 with a scripted model: its own read, then edit, through the plugin `editgate hooks install opencode
// --user` writes. OpenCode starts slowly here (about a minute per run under load): a longer time-out.
describe('OpenCode with editgate hooks', () => {
  hookScenarios({
    client: opencode,
    file: 'notes.txt',
    before: NOTES,
    after: EDITED_NOTES,
    tool: 'edit',
    resultRequest: editTurnIndex('opencode') + 1,
    turns: OWN_EDIT_TURNS.opencode,
    timeoutMs: 300_000,
    // Issue #29 asks all six scenarios of Claude Code, Codex and Gemini CLI; here two, each a minute or
    // more of CI: the Node hook (no server yet) written and undone, and the review page through the server.
    only: ['allowed by policy', 'approved on the page'],
  });

  // A GPT model gets OpenCode's apply_patch instead of edit and write: one patch that changes a file and
  // adds one, as one change allowed by policy, both audited, both undone.
  const sessions: HookSession[] = [];
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.close();
  });

  it("OpenCode's apply_patch (a GPT model's edit tool): written as approved, audited, undone; a patch read otherwise is refused", async () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: notes.txt',
      '@@',
      ' alpha',
      '-beta',
      '+BETA',
      '*** Add File: added.txt',
      '+new file',
      '*** End Patch',
    ].join('\n');
    // OpenCode skips the lines before a file's first "@@": refused, the model told what to send instead.
    const unanchored = patch.replace('@@\n', '');
    const session = await runHookSession({
      client: opencodeWith('gpt-5-fake'),
      approve: 'policy',
      files: { 'notes.txt': NOTES },
      server: 'warm',
      turns: () => [
        { call: [{ tool: 'apply_patch', exact: true, input: { patchText: unanchored } }] },
        { call: [{ tool: 'apply_patch', exact: true, input: { patchText: patch } }] },
        { say: 'Done.' },
      ],
      timeoutMs: 300_000,
    });
    sessions.push(session);
    expect(requestText(session.model.main()[1]), session.report).toContain(
      'comes before the first \\"@@\\" of its file',
    );
    expect(session.file('notes.txt'), session.report).toBe(EDITED_NOTES);
    expect(session.file('added.txt')).toBe('new file\n');
    const audited = session
      .audit()
      .filter((line) => line.writer === 'OpenCode' && line.tool === 'apply_patch');
    expect(audited, JSON.stringify(session.audit())).toContainEqual(
      expect.objectContaining({ decidedBy: 'policy', asApproved: true }),
    );
    const undone = session.undo('notes.txt');
    expect(undone.code, undone.output).toBe(0);
    expect(session.file('notes.txt')).toBe(NOTES);
    expect(existsSync(join(session.workspace.root, 'added.txt'))).toBe(true);
  }, 300_000);
});
