import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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

    // No terminal to ask at: nothing is trusted without --yes (issue #26).
    const unasked = await runCli(['trust', ws.root], at);
    expect(unasked.code).toBe(1);
    expect(unasked.stdout).toContain('runs before every change:');
    expect(unasked.stderr).toContain(
      `there is no terminal to ask at, so nothing was trusted. Read what it would do (above), then run editgate trust ${ws.root} --yes`,
    );
    expect((await runCli(EDIT, at)).code).toBe(3);
    expect(existsSync(ws.marker)).toBe(false);

    const trusted = await runCli(['trust', ws.root, '--yes'], at);
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

  it('in a terminal: a y typed ahead, and the rest of its run across the question, does not trust it', async () => {
    const ws = clonedRepository();
    const run = spawnCli(EDIT, { cwd: ws.root, stateDir: ws.stateDir });
    runs.push(run);
    // Typed while editgate starts and on past the question, at typing speed: none of it is an answer.
    const asked = run.whenOutput('[y/N]');
    let typedAfter = 0;
    let seen = false;
    void asked.then(() => {
      seen = true;
    });
    for (const char of 'yes yes yes, you may trust it, yes') {
      run.write(char);
      if (seen) typedAfter++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await asked;
    expect(typedAfter).toBeGreaterThan(5);
    expect(run.text()).not.toContain('Trusted.');
    expect(existsSync(ws.marker)).toBe(false);
    await run.answer('n');
    await run.waitForText('v view the whole diff');
    await run.answer('n');
    expect(await run.exited()).toBe(3);
    expect(existsSync(ws.marker)).toBe(false);
    expect(run.text()).not.toContain('Trusted.');
  });

  it('in a terminal: n leaves it untrusted (the notice says how to trust it) and the change is asked about', async () => {
    const ws = clonedRepository();
    const run = spawnCli(EDIT, { cwd: ws.root, stateDir: ws.stateDir });
    runs.push(run);
    await run.waitForText('[y/N]');
    run.write('n');
    await run.waitForText('v view the whole diff');
    expect(run.text()).toContain(`editgate trust ${ws.root}`);
    await run.answer('n');
    expect(await run.exited()).toBe(3);
    expect(existsSync(ws.marker)).toBe(false);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });

  it('editgate trust in a terminal shows what the config does, then asks: n records nothing, y trusts; --revoke forgets it', async () => {
    const ws = clonedRepository();
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const no = spawnCli(['trust'], at);
    runs.push(no);
    await no.waitForText('Trust it? [y/N]');
    expect(no.text()).toContain('runs before every change:');
    no.write('n');
    expect(await no.exited()).toBe(3);
    expect(no.text()).toContain('Not trusted; nothing was recorded.');
    expect((await runCli(['trust', '--show'], at)).stdout).toContain('It is not trusted');

    const yes = spawnCli(['trust'], at);
    runs.push(yes);
    await yes.waitForText('Trust it? [y/N]');
    yes.write('y');
    expect(await yes.exited()).toBe(0);
    expect(yes.text()).toContain('Trusted (recorded in');
    expect(yes.text()).toContain('--revoke forgets it');
    expect((await runCli(EDIT, at)).code).toBe(0);
    expect(existsSync(ws.marker)).toBe(true);

    const revoked = await runCli(['trust', '--revoke'], at);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('is revoked');
    const after = await runCli(['edit', 'app.ts', '--old', 'a = 2', '--new', 'a = 3'], at);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('is not trusted');
    expect((await runCli(['trust', '--revoke'], at)).stdout).toContain('nothing to revoke');
  });

  it('a config that is a link to another project’s trusted config is refused with what to do', async () => {
    const trusted = cliWorkspace({ 'editgate.config.json': '{"policy":{"rules":[{"action":"allow"}]}}' });
    const clone = cliWorkspace({ 'app.ts': APP });
    symlinkSync(join(trusted.root, 'editgate.config.json'), join(clone.root, 'editgate.config.json'));
    const run = await runCli(EDIT, { cwd: clone.root, stateDir: trusted.stateDir });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('is a symbolic link');
    expect(run.stderr).toContain('cp --remove-destination');
    expect(readFileSync(join(clone.root, 'app.ts'), 'utf8')).toBe(APP);
  });
});
