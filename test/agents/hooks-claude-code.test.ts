import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answerOnPage, pendingPageHtml } from '../web/page-api.js';
import { claudeCode } from './clients/claude-code.js';
import type { Turn } from './fake-models/script.js';
import { type HookSession, type HookSessionOptions, requestText, runHookSession } from './hooks-session.js';

// editgate's hooks in front of Claude Code's own Edit (src/hooks/agents/claude-code.ts), in the real Claude
// Code 2.1.332 with a scripted model: installed by `editgate hooks install claude-code --user`.

const NOTES = 'alpha\nbeta\ngamma\n';

/** Read the file (Claude Code's Edit wants it read), then Edit beta into BETA, then say done. */
function readThenEdit(root: string): Turn[] {
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
}

const sessions: HookSession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
});

async function run(options: Omit<HookSessionOptions, 'client' | 'files' | 'turns'>): Promise<HookSession> {
  const session = await runHookSession({
    client: claudeCode,
    files: { 'notes.txt': NOTES },
    turns: readThenEdit,
    ...options,
  });
  sessions.push(session);
  console.log(session.report.split('\n--- stdout')[0]);
  return session;
}

/** The request after the Edit's turn (turn 1): where its result reaches the model. */
const afterEdit = (session: HookSession) => requestText(session.model.main()[2]);

describe('Claude Code with editgate hooks', () => {
  it('an edit allowed by policy is written, audited with Claude Code as the writer, and undone by editgate undo', async () => {
    const session = await run({ approve: 'policy' });
    expect(session.installOutput, session.report).toContain('PreToolUse');
    expect(session.file('notes.txt'), session.report).toBe('alpha\nBETA\ngamma\n');
    const lines = session.audit();
    const settled = lines.find((line) => line.writer === 'Claude Code');
    expect(settled, JSON.stringify(lines)).toMatchObject({
      tool: 'Edit',
      decidedBy: 'policy',
      asApproved: true,
    });
    expect(session.result.code, session.report).toBe(0);
    const undone = session.undo('notes.txt');
    expect(undone.code, undone.output).toBe(0);
    expect(session.file('notes.txt')).toBe(NOTES);
  }, 180_000);

  it('an edit a policy rule denies is not written, and the rule reaches the model', async () => {
    const session = await run({
      approve: 'policy',
      config: { policy: { rules: [{ path: 'notes.txt', action: 'deny' }] } },
    });
    expect(session.file('notes.txt'), session.report).toBe(NOTES);
    expect(afterEdit(session), session.report).toContain('Policy');
    expect(session.audit().some((line) => line.decision === 'deny' && line.decidedBy === 'policy')).toBe(
      true,
    );
  }, 180_000);

  it('an edit approved on the review page is written only after the answer', async () => {
    let before = '';
    const session = await run({
      approve: 'web',
      config: {},
      reviewPage: true,
      during: async ({ link, workspace }) => {
        // The change waits on the page; the file is untouched until the answer.
        await pendingPageHtml(link!);
        before = readFileSync(join(workspace.root, 'notes.txt'), 'utf8');
        await answerOnPage(link!, { decision: 'once' });
      },
    });
    expect(before).toBe(NOTES);
    expect(session.file('notes.txt'), session.report).toBe('alpha\nBETA\ngamma\n');
    expect(
      session.audit().find((line) => line.writer === 'Claude Code'),
      JSON.stringify(session.audit()),
    ).toMatchObject({
      decidedBy: 'user',
      asApproved: true,
    });
  }, 180_000);

  it('an edit denied on the review page is not written, and the reason reaches the model', async () => {
    const session = await run({
      approve: 'web',
      config: {},
      reviewPage: true,
      during: async ({ link }) => {
        await answerOnPage(link!, { decision: 'deny', reason: 'keep beta lowercase' });
      },
    });
    expect(session.file('notes.txt'), session.report).toBe(NOTES);
    expect(afterEdit(session), session.report).toContain('keep beta lowercase');
  }, 180_000);

  it('bytes on disk that are not the approved ones are reported to the model', async () => {
    const session = await run({
      approve: 'policy',
      beforePostTool: `printf 'tampered\\n' >> "$EDITGATE_ROOT/notes.txt"`,
    });
    expect(session.file('notes.txt'), session.report).toBe('alpha\nBETA\ngamma\ntampered\n');
    expect(afterEdit(session), session.report).toContain('is not what was approved');
    expect(session.audit().find((line) => line.writer === 'Claude Code')).toMatchObject({
      asApproved: false,
    });
  }, 180_000);

  it('with no review page to ask, the hook fails closed: nothing is written and the model is told why', async () => {
    const session = await run({ approve: 'web', config: {} });
    expect(session.file('notes.txt'), session.report).toBe(NOTES);
    expect(afterEdit(session), session.report).toContain('no editgate review page is running');
  }, 180_000);
});
