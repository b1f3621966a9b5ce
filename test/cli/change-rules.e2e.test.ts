/**
 * Rules on what a change does and secrets (#32) at the CLI: a change rule asks past --yes and an allow
 * rule (the person at the terminal is asked, and the question says which rule), a deny rule refuses with
 * the rule named, an untrusted config's change rules still apply, and a secret never reaches the output.
 * The built CLI, in a real pty and with no terminal at all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { fakeGithubToken } from '../secret-fixtures.js';
import { type PtyRun, spawnCli } from './pty.js';
import { cliWorkspace, runCli } from './run-cli.js';

beforeAll(ensureBuilt, 300_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const BIG = 'a\nb\nc\nd\n';
const CONFIG = JSON.stringify({
  policy: {
    rules: [
      { path: '**', action: 'allow' },
      { change: { removedOver: 2 }, action: 'ask', name: 'big deletion' },
      { change: { lockfile: true }, action: 'deny' },
    ],
  },
});

describe('editgate and change rules', () => {
  it('--yes at a terminal: a change rule asks the person, and the question names the rule', async () => {
    const ws = cliWorkspace({ 'big.txt': BIG, 'editgate.config.json': CONFIG });
    const run = spawnCli(['--yes', 'write', 'big.txt', '--content', 'x', '--json'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      cols: 200,
    });
    runs.push(run);
    await run.waitForText('v view the whole diff');
    const screen = run.screen().join('\n');
    expect(screen).toContain('Asked by rule:big deletion');
    expect(screen).toContain('big.txt: removes 4 lines (more than 2): asked by rule big deletion');
    await run.answer('y');
    await run.exited();
    expect(readFileSync(join(ws.root, 'big.txt'), 'utf8')).toBe('x\n');
    const raw = run.raw();
    const result = JSON.parse(raw.slice(raw.indexOf('{"tool"')).split(/\r?\n/)[0]!);
    expect(result.details).toMatchObject({ decidedBy: 'user', askedBy: ['rule:big deletion'] });
  });

  it('--yes with no terminal: refused, saying which rule asked; nothing written', async () => {
    const ws = cliWorkspace({ 'big.txt': BIG, 'editgate.config.json': CONFIG });
    const run = await runCli(['--yes', 'write', 'big.txt', '--content', 'x'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('DENIED_NO_APPROVER');
    expect(run.stderr).toContain('rule:big deletion asks a person');
    expect(readFileSync(join(ws.root, 'big.txt'), 'utf8')).toBe(BIG);
  });

  it('a deny rule refuses with the rule named, also from a config that is not trusted', async () => {
    const ws = cliWorkspace({ 'package-lock.json': '{}\n' });
    // Written after the workspace: not trusted. A change rule tightens, so it applies all the same.
    writeFileSync(join(ws.root, 'editgate.config.json'), CONFIG);
    const run = await runCli(['--yes', 'edit', 'package-lock.json', '--old', '{}', '--new', '{"a":1}'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('is not trusted');
    expect(run.stderr).toContain('DENIED_POLICY: Policy does not allow the change to package-lock.json');
    expect(run.stderr).toContain(
      '✖ package-lock.json: changes a lock file: refused by rule lockfile [rule:lockfile]',
    );
    expect(readFileSync(join(ws.root, 'package-lock.json'), 'utf8')).toBe('{}\n');
  });

  it('a secret: asked at the terminal with the value masked, and the value is in no output', async () => {
    const token = fakeGithubToken();
    const ws = cliWorkspace({ 'app.ts': 'const a = 1;\n' });
    const run = spawnCli(['edit', 'app.ts', '--old', 'a = 1', '--new', `a = "${token}"`, '--json'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      cols: 200,
    });
    runs.push(run);
    await run.waitForText('v view the whole diff');
    expect(run.screen().join('\n')).toContain('app.ts:1: Github token (ghp_****');
    await run.answer('n');
    await run.exited();
    expect(run.raw()).not.toContain(token);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 1;\n');
  });
});
