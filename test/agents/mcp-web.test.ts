/**
 * `--approve web` inside the clients that cannot show editgate's diff (#28): Gemini CLI and OpenCode have no
 * MCP elicitation, so a change waits on editgate's review page, answered here through the page's JSON API
 * as its script does. Then the proxy inside OpenCode: the filesystem server's edit is asked on the page, and
 * move_file (not a file write, which the page cannot show) is refused with advice, never asked at the
 * terminal OpenCode owns. Real agents, fake models, the agent in its network namespace; the page's port is
 * reached through web-bridge.mjs.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from '../built-cli.js';
import type { AgentClient } from './clients/client.js';
import { geminiCli } from './clients/gemini-cli.js';
import { opencode } from './clients/opencode.js';
import type { Turn } from './fake-models/script.js';
import { startScriptedModel } from './fake-models/server.js';
import { installedAgent } from './installed.js';
import { describeRun, requestText } from './mcp-session.js';
import { runAgent } from './run-agent.js';
import { webApprovalRun } from './web-approval.js';
import { makeWorkspace } from './workspace.js';

const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);

const NOTES = 'alpha\nbeta\ngamma\n';

interface WebSession {
  editgateArgs: (root: string) => string[];
  turns: (root: string) => Turn[];
  /** How many changes the page is asked about (each answered "allow once"). */
  answers: number;
}

async function runWebSession(client: AgentClient, session: WebSession) {
  await ensureBuilt();
  const base = makeWorkspace(`web-${client.name}`);
  const web = webApprovalRun(base, session.editgateArgs(base.root));
  const { workspace } = web;
  writeFileSync(join(workspace.root, 'notes.txt'), NOTES);
  const turns = session.turns(workspace.root);
  const model = await startScriptedModel({
    protocol: client.protocol,
    script: [...(client.preamble ?? []), ...turns],
    ...(client.isMain ? { isMain: client.isMain } : {}),
    ...(client.wrapCall ? { wrapCall: client.wrapCall } : {}),
  });
  const run = client.prepare({
    workspace,
    model,
    command: installedAgent(client.name),
    prompt: 'Make the planned changes.',
    mcp: true,
  });
  const running = runAgent(run, model, 150_000);
  const statuses: number[] = [];
  try {
    for (let n = 0; n < session.answers; n++) statuses.push(await web.answer({ decision: 'once' }));
    const result = await running;
    const report = describeRun(client, result, model.requests);
    console.log(report);
    return {
      // Read before the workspace goes.
      notes: readFileSync(join(workspace.root, 'notes.txt'), 'utf8'),
      moved: existsSync(join(workspace.root, 'moved.txt')),
      statuses,
      result,
      main: model.main(),
      problems: model.problems,
      context: `${report}\n--- stderr ---\n${result.stderr.slice(-3000)}`,
    };
  } finally {
    await running.catch(() => undefined);
    web.close();
    await model.close();
    workspace.remove();
  }
}

const EDIT_ON_PAGE: WebSession = {
  editgateArgs: (root) => [MAIN, 'mcp', root, '--approve', 'web'],
  turns: () => [
    { call: [{ tool: 'read_file', input: { file_path: 'notes.txt' } }] },
    {
      call: [
        { tool: 'edit_file', input: { file_path: 'notes.txt', old_string: 'beta', new_string: 'BETA' } },
      ],
    },
    { say: 'Done.' },
  ],
  answers: 1,
};

describe('editgate mcp --approve web inside clients without elicitation', () => {
  it.each([geminiCli, opencode].map((client) => [client.label, client] as const))(
    '%s: the edit waits on the review page, is written once allowed there, and the model reads the result',
    async (_label, client) => {
      const run = await runWebSession(client, EDIT_ON_PAGE);
      expect(run.problems, run.context).toEqual([]);
      expect(run.statuses, run.context).toEqual([200]);
      const afterEdit = requestText(run.main[(client.preamble?.length ?? 0) + 2]);
      expect(afterEdit, run.context).toContain('Edited notes.txt: 1 replacement');
      expect(run.result.code, run.context).toBe(0);
      expect(run.notes).toBe('alpha\nBETA\ngamma\n');
    },
    200_000,
  );
});

describe('editgate proxy --approve web inside OpenCode, wrapping the reference filesystem server', () => {
  it("the server's edit_file is asked on the page; move_file is refused with advice, not asked at the terminal", async () => {
    const run = await runWebSession(opencode, {
      editgateArgs: (root) => [
        MAIN,
        'proxy',
        '--root',
        root,
        '--approve',
        'web',
        '--',
        process.execPath,
        FILESYSTEM_SERVER,
        root,
      ],
      turns: (root) => [
        {
          call: [
            {
              tool: 'edit_file',
              input: { path: join(root, 'notes.txt'), edits: [{ oldText: 'beta', newText: 'BETA' }] },
            },
          ],
        },
        {
          call: [
            {
              tool: 'editgate_move_file',
              exact: true,
              input: { source: join(root, 'notes.txt'), destination: join(root, 'moved.txt') },
            },
          ],
        },
        { say: 'Done.' },
      ],
      answers: 1,
    });
    expect(run.problems, run.context).toEqual([]);
    expect(run.statuses, run.context).toEqual([200]);
    const afterMove = requestText(run.main[2]);
    expect(afterMove, run.context).toContain('(DENIED_NO_APPROVER)');
    expect(afterMove, run.context).toContain('the web review page shows only file writes');
    expect(run.result.code, run.context).toBe(0);
    expect(run.notes).toBe('alpha\nBETA\ngamma\n');
    expect(run.moved).toBe(false);
  }, 200_000);
});
