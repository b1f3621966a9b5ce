/**
 * The six cases every agent's hooks must pass against its real binary (issue #29, item 8), for any agent:
 * an edit allowed by policy is written, audited with the agent as the writer, and undone by `editgate undo`;
 * one a policy rule denies is not written and the rule reaches the model; one approved on the review page
 * is written only after the answer; one denied there carries the reason to the model; bytes on disk that
 * are not the approved ones are reported; with no review page to ask, the hook fails closed.
 *
 * A hooks-<agent>.test.ts gives its client, the model's turns (the agent's own read, then its own edit of
 * notes.txt turning "beta" into "BETA", then "Done.") and the tool name the audit line carries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { answerOnPage, pendingPageHtml } from '../web/page-api.js';
import type { AgentClient } from './clients/client.js';
import type { Turn } from './fake-models/script.js';
import { type HookSession, type HookSessionOptions, requestText, runHookSession } from './hooks-session.js';
import { editTurnIndex } from './own-edit-turns.js';

export const NOTES = 'alpha\nbeta\ngamma\n';
export const EDITED = 'alpha\nBETA\ngamma\n';

export interface HookCases {
  client: AgentClient;
  /** Read notes.txt, edit beta into BETA, say done: given the project root. */
  turns: (root: string) => Turn[];
  /** The edit tool's name as the audit line has it. */
  tool: string;

  timeoutMs?: number;
}

export function hookCases({ client, turns, tool, timeoutMs = 240_000 }: HookCases): void {
  // The main-loop request that carries the edit's result: the one after the request answered with the edit.
  const afterEditRequest = editTurnIndex(client.name) + 1;
  const sessions: HookSession[] = [];
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.close();
  });

  async function run(options: Omit<HookSessionOptions, 'client' | 'files' | 'turns'>): Promise<HookSession> {
    const session = await runHookSession({
      client,
      files: { 'notes.txt': NOTES },
      turns,
      timeoutMs: timeoutMs - 30_000,
      ...options,
    });
    sessions.push(session);
    console.log(session.report.split('\n--- stdout')[0]);
    return session;
  }

  const afterEdit = (session: HookSession) => requestText(session.model.main()[afterEditRequest]);
  const settledLine = (session: HookSession) => session.audit().find((line) => line.writer === client.label);

  it(
    `an edit allowed by policy is written, audited with ${client.label} as the writer, and undone by editgate undo`,
    async () => {
      const session = await run({ approve: 'policy' });
      expect(session.file('notes.txt'), session.report).toBe(EDITED);
      expect(settledLine(session), JSON.stringify(session.audit())).toMatchObject({
        tool,
        decidedBy: 'policy',
        asApproved: true,
      });
      expect(session.result.code, session.report).toBe(0);
      const undone = session.undo('notes.txt');
      expect(undone.code, undone.output).toBe(0);
      expect(session.file('notes.txt')).toBe(NOTES);
    },
    timeoutMs,
  );

  it(
    'an edit a policy rule denies is not written, and the rule reaches the model',
    async () => {
      const session = await run({
        approve: 'policy',
        config: { policy: { rules: [{ path: 'notes.txt', action: 'deny' }] } },
      });
      expect(session.file('notes.txt'), session.report).toBe(NOTES);
      expect(afterEdit(session), session.report).toContain('(rule: notes.txt → deny)');
      expect(session.audit().some((line) => line.decision === 'deny' && line.decidedBy === 'policy')).toBe(
        true,
      );
    },
    timeoutMs,
  );

  it(
    'an edit approved on the review page is written only after the answer',
    async () => {
      let before = '';
      const session = await run({
        approve: 'web',
        config: {},
        reviewPage: true,
        during: async ({ link, workspace }) => {
          await pendingPageHtml(link!);
          before = readFileSync(join(workspace.root, 'notes.txt'), 'utf8');
          await answerOnPage(link!, { decision: 'once' });
        },
      });
      expect(before).toBe(NOTES);
      expect(session.file('notes.txt'), session.report).toBe(EDITED);
      expect(settledLine(session), JSON.stringify(session.audit())).toMatchObject({
        decidedBy: 'user',
        asApproved: true,
      });
    },
    timeoutMs,
  );

  it(
    'an edit denied on the review page is not written, and the reason reaches the model',
    async () => {
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
    },
    timeoutMs,
  );

  it(
    'bytes on disk that are not the approved ones are reported to the model',
    async () => {
      const session = await run({
        approve: 'policy',
        beforePostTool: `printf 'tampered\\n' >> "$EDITGATE_ROOT/notes.txt"`,
      });
      expect(session.file('notes.txt'), session.report).toBe(`${EDITED}tampered\n`);
      expect(afterEdit(session), session.report).toContain('is not what was approved');
      expect(settledLine(session), JSON.stringify(session.audit())).toMatchObject({ asApproved: false });
    },
    timeoutMs,
  );

  it(
    'with no review page to ask, the hook fails closed: nothing is written and the model is told why',
    async () => {
      const session = await run({ approve: 'web', config: {} });
      expect(session.file('notes.txt'), session.report).toBe(NOTES);
      expect(afterEdit(session), session.report).toContain('no editgate review page is running');
    },
    timeoutMs,
  );
}
