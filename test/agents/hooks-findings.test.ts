import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIN } from '../built-cli.js';
import { answerOnPage, LINK } from '../web/page-api.js';
import { claudeCode } from './clients/claude-code.js';
import { offersTools } from './fake-models/server.js';
import { requestText } from './mcp-session.js';
import { inAgentPty, typePrompt } from './run-agent-pty.js';

/**
 * Claude Code 2.1.332 in a real terminal with editgate's hooks installed `--approve agent` (issue #29's
 * "ask", issue #32's findings in the hook's answer), in one session:
 *
 *   - the model's Edit drops a bracket in a Python file; a rule allows every change but asks about one that
 *     adds a syntax error, so the hook answers "ask" with editgate's summary;
 *   - Claude Code shows its own permission prompt, and it carries editgate's reason: which rule asked and
 *     the syntax error (seen on the screen). It does so even in acceptEdits mode, where its Edit would not
 *     ask on its own: the question is the hook's;
 *   - the person answers yes at that prompt: the file is written, the audit line says the user decided;
 *   - the model reads the syntax error with the Edit's result, in its next request (the post-tool hook's
 *     additionalContext);
 *   - (issue #30 item 4, the session review of a hook session) the model then writes b.txt, allowed by the
 *     policy with no question (auto-approved); the person reviews the conversation afterwards with
 *     `editgate review --session last --approve web` and reverts b.txt with a reason through the page's JSON
 *     API; at the person's next prompt, Claude Code's UserPromptSubmit hook (installed beside the tool
 *     hooks) gives the model the review, and the fake model's next request carries the reason.
 */
const BEFORE = 'def f(x):\n    return x\n';
const AFTER = 'def f(x):\n    return (x\n';

describe('Claude Code in a terminal with editgate hooks in agent mode', () => {
  it("shows its own permission prompt with editgate's reason and the syntax error; yes writes; the model reads the error", async () => {
    await inAgentPty(
      {
        client: claudeCode,
        label: 'hooks-ask-pty',
        files: { 'a.py': BEFORE },
        turns: ({ root }) => [
          { call: [{ tool: 'Read', exact: true, input: { file_path: join(root, 'a.py') } }] },
          {
            call: [
              {
                tool: 'Edit',
                exact: true,
                input: { file_path: join(root, 'a.py'), old_string: 'return x', new_string: 'return (x' },
              },
            ],
          },
          // Allowed by the policy, no question: the auto-approved edit the session review reverts.
          {
            call: [{ tool: 'Write', exact: true, input: { file_path: join(root, 'b.txt'), content: 'b\n' } }],
          },
          { say: 'Done: the edit went through your prompt.' },
          { say: 'Noted the review.' },
        ],
        isMain: offersTools,
        mcp: false,
        ownEdits: true,
        beforeStart: ({ workspace, run }) => {
          writeFileSync(
            join(workspace.root, 'editgate.config.json'),
            JSON.stringify({
              auditLog: join(workspace.folder, 'audit.jsonl'),
              policy: {
                rules: [
                  { path: '**', action: 'allow' },
                  { path: '**/*.py', action: 'ask', change: { syntaxErrors: true } },
                ],
              },
            }),
          );
          const editgateEnv = { ...process.env, EDITGATE_STATE_DIR: workspace.state, NO_COLOR: '1' };
          execFileSync(process.execPath, [MAIN, 'trust', workspace.root, '--yes'], { env: editgateEnv });
          run.env.EDITGATE_STATE_DIR = workspace.state;
          execFileSync(
            process.execPath,
            [
              MAIN,
              'hooks',
              'install',
              'claude-code',
              '--user',
              '--approve',
              'agent',
              '--root',
              workspace.root,
            ],
            { env: { ...editgateEnv, ...run.env } },
          );
        },
      },
      async ({ workspace, model, terminal }) => {
        const path = join(workspace.root, 'a.py');
        // acceptEdits mode: its footer says so where it would say "? for shortcuts".
        await terminal.waitForText('accept edits on', 30_000);
        await typePrompt(terminal);
        await terminal.waitForText('Do you want to make this edit', 90_000);
        await terminal.waitForText('cannot read', 10_000);
        const question = terminal.screen().join('\n');
        console.log(`Claude Code's question, as the person sees it:\n${question}`);
        expect(existsSync(path) && readFileSync(path, 'utf8')).toBe(BEFORE);
        expect(question).toContain('editgate asks about this change to a.py');
        expect(question).toContain('Hook PreToolUse:Edit requires confirmation for this edit');
        expect(question).toContain('a.py:2: cannot read "return (x" (a syntax error this change adds)');
        expect(question).toContain('a.py:2: adds a syntax error: asked by rule syntaxErrors');
        // "Yes" is the answer already chosen.
        terminal.write('\r');
        await terminal.waitForText('Done: the edit went through your prompt.', 60_000);
        console.log(`The screen at the end:\n${terminal.screen().join('\n')}`);

        expect(model.problems).toEqual([]);
        expect(readFileSync(path, 'utf8')).toBe(AFTER);
        const afterEdit = requestText(model.main()[2]);
        expect(afterEdit).toContain('Checks on this change found');
        // (The request is JSON: the finding's quotes are escaped in it.)
        expect(afterEdit).toContain('a.py:2: cannot read \\"return (x\\" (a syntax error this change adds)');
        const audit = readFileSync(join(workspace.folder, 'audit.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(audit.find((line) => line.writer === 'Claude Code' && line.tool === 'Edit')).toMatchObject({
          decidedBy: 'user',
          asApproved: true,
        });
        expect(audit.find((line) => line.writer === 'Claude Code' && line.tool === 'Write')).toMatchObject({
          decidedBy: 'policy',
        });
        const bPath = join(workspace.root, 'b.txt');
        expect(readFileSync(bPath, 'utf8')).toBe('b\n');

        // The person reviews the conversation afterwards and reverts b.txt, with a reason.
        const editgateEnv = { ...process.env, EDITGATE_STATE_DIR: workspace.state, NO_COLOR: '1' };
        const review = spawn(process.execPath, [MAIN, 'review', '--session', 'last', '--approve', 'web'], {
          cwd: workspace.root,
          env: { ...editgateEnv, BROWSER: 'true' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let said = '';
        review.stdout.on('data', (chunk) => (said += chunk));
        review.stderr.on('data', (chunk) => (said += chunk));
        const exited = new Promise<number>((resolve) => review.on('exit', (code) => resolve(code ?? -1)));
        while (!LINK.test(said)) {
          if (review.exitCode !== null) throw new Error(`editgate review ended:\n${said}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const { answer } = await answerOnPage(LINK.exec(said)![0], {
          decision: 'once',
          hunks: {
            'b.txt': { accept: [], reject: [{ hunk: 0, reason: 'no b.txt in this project, please' }] },
          },
        });
        expect(answer.status, answer.body).toBe(200);
        expect(await exited, said).toBe(0);
        expect(existsSync(bPath), said).toBe(false);
        expect(readFileSync(path, 'utf8')).toBe(AFTER);

        // The person's next prompt: the prompt hook gives the model the review, once.
        await typePrompt(terminal, 'Go on.');
        await terminal.waitForText('Noted the review.', 60_000);
        const next = requestText(model.main().at(-1));
        expect(next).toContain("the user's review (editgate review --session)");
        expect(next).toContain('no b.txt in this project, please');
        expect(model.problems).toEqual([]);
      },
    );
  }, 240_000);
});
