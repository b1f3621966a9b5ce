import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { tempFolder } from '../temp-folder.js';
import { type PtyRun, spawnCli } from './pty.js';
import { cliWorkspace, runCli } from './run-cli.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const APP = 'const a = 1;\n';
const EDIT = ['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2'];

/**
 * Issue #13, item 1: a cloned repository whose config allows every change and runs a command before each.
 * It is written after the workspace is made, so no one has trusted it.
 */
function clonedRepository() {
  const ws = cliWorkspace({ 'app.ts': APP });
  const marker = join(tempFolder('editgate-outside-'), 'hook-ran');
  const config = {
    hooks: { beforeChange: [{ command: `touch ${marker}; echo '{"decision":"allow"}'` }] },
    policy: { rules: [{ action: 'allow' }] },
  };
  writeFileSync(join(ws.root, 'editgate.config.json'), JSON.stringify(config));
  return { ...ws, marker };
}

describe('config trust in the CLI (issue #13)', () => {
  it('without a terminal: the hook never runs, the allow rule is ignored, and the reason names the command that trusts it', async () => {
    const ws = clonedRepository();
    const run = await runCli(EDIT, { cwd: ws.root, stateDir: ws.stateDir });
    expect(run.code).toBe(3);
    expect(existsSync(ws.marker)).toBe(false);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    expect(run.stderr).toContain('is not trusted');
    expect(run.stderr).toContain(`editgate trust ${ws.root}`);
    expect(run.stderr.split('is not trusted')).toHaveLength(2); // said once
  });

  it('editgate trust --show shows what it would do; editgate trust records it; a change untrusts it again', async () => {
    const ws = clonedRepository();
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const shown = await runCli(['trust', '--show'], at);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`runs before every change: "touch ${ws.marker}`);
    expect(shown.stdout).toContain('allow every tool on every path');
    expect(shown.stdout).toContain('It is not trusted');

    const trusted = await runCli(['trust', ws.root], at);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('Trusted (recorded in');
    expect(trusted.stdout).toContain(ws.stateDir);

    const edit = await runCli(EDIT, at);
    expect(edit.stderr).not.toContain('is not trusted');
    expect(edit.code).toBe(0);
    expect(existsSync(ws.marker)).toBe(true);

    writeFileSync(
      join(ws.root, 'editgate.config.json'),
      JSON.stringify({ policy: { rules: [{ action: 'allow' }] } }),
    );
    const again = await runCli(['edit', 'app.ts', '--old', 'a = 2', '--new', 'a = 3'], at);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('is not trusted');
  });

  it('in a terminal: asked once; y trusts it and the command goes on with the whole config', async () => {
    const ws = clonedRepository();
    const run = spawnCli(EDIT, { cwd: ws.root, stateDir: ws.stateDir });
    runs.push(run);
    await run.waitForText('[y/N]');
    expect(run.text()).toContain('runs before every change:');
    expect(run.text()).toContain('Trust it? [y/N]');
    run.write('y');
    expect(await run.exited()).toBe(0);
    expect(run.text()).toContain('Trusted.');
    expect(existsSync(ws.marker)).toBe(true);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 2;\n');
    // Trusted now: the next command asks nothing about the config.
    const next = await runCli(['edit', 'app.ts', '--old', 'a = 2', '--new', 'a = 3'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(next.code).toBe(0);
    expect(next.stderr).not.toContain('is not trusted');
  });

  it('in a terminal: n leaves it untrusted (the notice says how to trust it) and the change is asked about', async () => {
    const ws = clonedRepository();
    const run = spawnCli(EDIT, { cwd: ws.root, stateDir: ws.stateDir });
    runs.push(run);
    await run.waitForText('[y/N]');
    run.write('n');
    await run.waitForText('v view the whole diff');
    expect(run.text()).toContain(`editgate trust ${ws.root}`);
    run.write('n');
    expect(await run.exited()).toBe(3);
    expect(existsSync(ws.marker)).toBe(false);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });
});
