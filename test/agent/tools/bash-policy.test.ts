import { access, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../src/agent/tools/bash.js';
import { CommandPolicy } from '../../../src/agent/tools/command-policy.js';
import { FileChangeTracker } from '../../../src/agent/tools/file-changes.js';
import { WorkspaceScope } from '../../../src/agent/tools/scope.js';
import { EditgateError } from '../../../src/core/errors.js';
import type { PolicyRule } from '../../../src/gate/policy.js';
import { DEFAULT_DENY } from '../../../src/workspace/guard.js';

// Issue #26: the command policy read a line one way and bash ran it another. Each attack runs through the
// bash tool with real bash, with no one to ask (as in `editgate chat -p`): only what the policy allows runs.

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) await rm(made.pop()!, { recursive: true, force: true });
});

const signal = new AbortController().signal;

async function chat(rules: PolicyRule[]) {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-bash-policy-')));
  made.push(root);
  await writeFile(join(root, 'victim'), 'keep me\n');
  const asked: string[] = [];
  const tool = bashTool({
    root,
    policy: new CommandPolicy(rules),
    ask: async (request) => {
      asked.push(request.command);
      throw new EditgateError('DENIED_NO_APPROVER', 'no one to ask');
    },
    tracker: new FileChangeTracker(await WorkspaceScope.create(root, [...DEFAULT_DENY])),
    onChanges: async () => {},
  });
  const exists = (name: string) =>
    access(join(root, name)).then(
      () => true,
      () => false,
    );
  return { tool, asked, exists };
}

describe('bash tool under the command policy, with real bash', () => {
  it.each([
    'git status #"\ntouch MARK #"',
    "git status $'\\'' ; touch MARK #'",
    'git status; touch MARK',
    'git status && touch MARK',
    'git status | touch MARK',
    'git status & touch MARK',
    'git status $(touch MARK)',
    'git status `touch MARK`',
    'git status <(touch MARK)',
    'git status > MARK',
    'git status\ntouch MARK',
  ])('an allow rule for git status does not run %j', async (command) => {
    const { tool, asked, exists } = await chat([{ tool: 'bash', path: 'git status', action: 'allow' }]);
    const result = await tool.run({ command }, { signal });
    expect(result.code).toBe('DENIED_NO_APPROVER');
    expect(asked).toEqual([command]);
    expect(await exists('MARK')).toBe(false);
  });

  it('the rule still runs the command it names', async () => {
    const { tool, asked } = await chat([{ tool: 'bash', path: 'echo', action: 'allow' }]);
    const result = await tool.run({ command: "echo 'allowed words' ok" }, { signal });
    expect(result).toMatchObject({ ok: true, output: 'allowed words ok' });
    expect(asked).toEqual([]);
  });

  it.each([
    'X=1 rm -f victim',
    '/bin/rm -f victim',
    'command rm -f victim',
    'env rm -f victim',
    'env -i PATH=/usr/bin:/bin rm -f victim',
    'nohup rm -f victim',
    'true && exec rm -f victim',
    'echo victim | xargs rm -f',
  ])('with an allow-all rule, a deny rule for rm refuses %j', async (command) => {
    const { tool, asked, exists } = await chat([
      { tool: 'bash', action: 'allow' },
      { tool: 'bash', path: 'rm', action: 'deny' },
    ]);
    const result = await tool.run({ command }, { signal });
    expect(result.code).toBe('DENIED_POLICY');
    expect(asked).toEqual([]);
    expect(await exists('victim')).toBe(true);
  });

  it('npm test --prefix elsewhere is asked, not allowed by a rule for npm test', async () => {
    const { tool, asked } = await chat([{ tool: 'bash', path: 'npm test', action: 'allow' }]);
    const result = await tool.run({ command: 'npm test --prefix /tmp' }, { signal });
    expect(result.code).toBe('DENIED_NO_APPROVER');
    expect(asked).toEqual(['npm test --prefix /tmp']);
  });
});
