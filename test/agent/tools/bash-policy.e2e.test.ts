import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../built-cli.js';
import { cliWorkspace, runCli } from '../../cli/run-cli.js';
import { startFakeModelServer } from '../fake-model-server.js';

// Issue #26, as it was reproduced: `editgate chat -p` with an allow rule for `git status`, and a model that
// hides a second command behind quotes the old tokenizer misread. bash must run neither.

beforeAll(ensureBuilt, 120_000);

describe('editgate chat -p with an allow rule for git status', () => {
  it('runs git status alone, and asks (so refuses, with no one to ask) the lines that hide touch MARK', async () => {
    const ws = cliWorkspace({
      'editgate.config.json': JSON.stringify({
        policy: { rules: [{ tool: 'bash', path: 'git status', action: 'allow' }] },
      }),
    });
    const config = join(ws.stateDir, '..', 'config');
    mkdirSync(config, { recursive: true });
    const server = await startFakeModelServer([
      {
        calls: [
          { name: 'bash', input: { command: 'git status #"\ntouch MARK1 #"' } },
          { name: 'bash', input: { command: "git status $'\\'' ; touch MARK2 #'" } },
          { name: 'bash', input: { command: 'git status' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const result = await runCli(
      ['chat', '--model', 'anthropic/fake', '--base-url', server.baseURL, '--json', '-p', 'Check'],
      {
        cwd: ws.root,
        stateDir: ws.stateDir,
        env: { XDG_CONFIG_HOME: config, ANTHROPIC_API_KEY: 'test-key' },
      },
    );
    const tools = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((event) => event.type === 'tool');
    expect(tools.map((event) => event.code ?? 'ran')).toEqual([
      'DENIED_NO_APPROVER',
      'DENIED_NO_APPROVER',
      expect.not.stringMatching(/^DENIED/),
    ]);
    expect(existsSync(join(ws.root, 'MARK1'))).toBe(false);
    expect(existsSync(join(ws.root, 'MARK2'))).toBe(false);
    expect(result.code).toBe(3);
  });
});
