/**
 * Rules on what a change does and secrets (#32) behind the proxy: the real filesystem server writes, the
 * proxy shows the diff first. A change rule asks past an allow rule and the question names it; a deny rule
 * refuses with the rule named; a secret is masked in the question and in what the model is told.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/gate/policy.js';
import { fakeGithubToken } from '../secret-fixtures.js';
import { allowOnce, call, connectProxy, filesystemUpstream, workspace } from './helpers.js';

const policy: Policy = {
  rules: [
    { path: '**', action: 'allow' },
    { change: { removedOver: 2 }, action: 'ask', name: 'big deletion' },
    { change: { lockfile: true }, action: 'deny' },
  ],
};

describe('editgate proxy and change rules', () => {
  it('a change rule asks past an allow rule, and the question names it', async () => {
    const { root, state } = workspace({ 'big.txt': 'a\nb\nc\nd\n', 'small.txt': 'a\n' });
    const { client, questions } = await connectProxy(
      { upstream: filesystemUpstream(root), roots: [root], stateDir: state, config: { policy } },
      { answers: [allowOnce()] },
    );
    const small = await call(client, 'write_file', { path: join(root, 'small.txt'), content: 'A\n' });
    expect(small.isError).toBe(false);
    expect(questions).toHaveLength(0);
    const big = await call(client, 'write_file', { path: join(root, 'big.txt'), content: 'x\n' });
    expect(big.isError).toBe(false);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('Asked by rule:big deletion');
    expect(questions[0]).toContain('big.txt: removes 4 lines (more than 2)');
    expect(big.text).toContain('[rule:big deletion]');
    expect(readFileSync(join(root, 'big.txt'), 'utf8')).toBe('x\n');
  });

  it('a deny rule refuses with the rule named; the server is never called', async () => {
    const { root, state } = workspace({ 'package-lock.json': '{}\n' });
    const { client, questions } = await connectProxy({
      upstream: filesystemUpstream(root),
      roots: [root],
      stateDir: state,
      config: { policy },
    });
    const result = await call(client, 'write_file', {
      path: join(root, 'package-lock.json'),
      content: '{"a":1}\n',
    });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('(rule:lockfile)');
    expect(questions).toHaveLength(0);
    expect(readFileSync(join(root, 'package-lock.json'), 'utf8')).toBe('{}\n');
  });

  it('a secret: the question shows it masked, and editgate tells the model the line, never the value', async () => {
    const token = fakeGithubToken();
    const { root, state } = workspace({ 'app.ts': 'const a = 1;\n' });
    const { client, questions } = await connectProxy(
      { upstream: filesystemUpstream(root), roots: [root], stateDir: state, config: { policy } },
      { answers: [allowOnce()] },
    );
    const result = await call(client, 'write_file', {
      path: join(root, 'app.ts'),
      content: `const a = "${token}";\n`,
    });
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('app.ts:1: Github token (ghp_****');
    expect(questions[0]).not.toContain(token);
    // What editgate adds to the server's answer names the line; the value is not in it.
    const added = result.result.content.filter(
      (block) => block.type === 'text' && block.text.startsWith('editgate proxy:'),
    );
    expect(JSON.stringify(added)).toContain('app.ts:1: Github token');
    expect(JSON.stringify(added)).not.toContain(token);
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toContain(token);
  });
});
