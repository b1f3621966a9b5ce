import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { trustConfig } from '../trusted-config.js';
import { cliWorkspace, runCli } from './run-cli.js';

// The options the change commands share beyond the basics: --dry-run (CI and review), --encoding (files
// that are not UTF-8), and --config FILE named wherever the CLI speaks of the config.

beforeAll(ensureBuilt, 120_000);

const APP = 'const a = 1;\nconst b = 2;\n';

/** The file's bytes and mtime, to show nothing at all was written. */
function stamp(path: string): { bytes: string; mtimeMs: number } {
  return { bytes: readFileSync(path, 'latin1'), mtimeMs: statSync(path).mtimeMs };
}

describe('--dry-run', () => {
  it('edit, write, lines and undo show the diff, write nothing and exit 0', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    // Something for undo to take back.
    expect((await runCli(['edit', 'app.ts', '--old', 'b = 2', '--new', 'b = 3', '-y'], at)).code).toBe(0);
    const file = join(ws.root, 'app.ts');
    const before = stamp(file);
    const cases: Array<[string[], string, string]> = [
      [['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 9'], '+const a = 9;', 'app.ts would be changed'],
      [['write', 'app.ts', '--content', 'x\n'], '+x', 'app.ts would be changed'],
      [['lines', 'app.ts', '--range', '1', '--with', 'first'], '+first', 'app.ts would be changed'],
      [['undo', 'app.ts'], '+const b = 2;', 'the last change to app.ts would be undone'],
      [['write', 'new.txt', '--content', 'hi\n'], '+hi', 'new.txt would be created'],
    ];
    for (const [args, diffLine, outcome] of cases) {
      // No --yes and no terminal: without --dry-run each of these would be refused (exit 3).
      const run = await runCli([...args, '--dry-run'], at);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(run.stdout.split('\n')).toContain(diffLine);
      expect(run.stdout).toContain('Dry run: this change is shown, not written.');
      const last = run.stdout.trimEnd().split('\n').at(-1)!;
      expect(last.startsWith(`Dry run: ${outcome} (`) && last.endsWith('); nothing was written.')).toBe(true);
    }
    expect(stamp(file)).toEqual(before);
    expect(() => statSync(join(ws.root, 'new.txt'))).toThrow();
    // The undo history is untouched too: a real undo still takes back the edit made above.
    expect((await runCli(['undo', 'app.ts', '-y'], at)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(APP);
  });

  it('--json: the result says dryRun and written: false, with the diff, and no change id', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = await runCli(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '--dry-run', '--json'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      tool: 'edit_file',
      ok: true,
      details: { dryRun: true, written: false, kind: 'modify', path: 'app.ts' },
    });
    expect(result.details.unifiedDiff).toContain('+const a = 2;');
    expect(result.details).not.toHaveProperty('changeId');
    expect(result.message).not.toContain('apply_change');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });
});

describe('--encoding', () => {
  it('edit, lines and write change a latin-1 file and keep it latin-1', async () => {
    const ws = cliWorkspace({ 'menu.txt': Buffer.from('café\ncrème\n', 'latin1') });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const file = join(ws.root, 'menu.txt');
    const refused = await runCli(['edit', 'menu.txt', '--old', 'crème', '--new', 'brûlée', '-y'], at);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('hint: the file is not UTF-8');
    expect(readFileSync(file, 'latin1')).toBe('café\ncrème\n');

    const edit = await runCli(
      ['edit', 'menu.txt', '--old', 'crème', '--new', 'brûlée', '--encoding', 'latin1', '-y'],
      at,
    );
    expect(edit.code).toBe(0);
    expect(readFileSync(file)).toEqual(Buffer.from('café\nbrûlée\n', 'latin1'));
    const lines = await runCli(
      ['lines', 'menu.txt', '--range', '1', '--with', 'thé', '--encoding', 'latin1', '-y'],
      at,
    );
    expect(lines.code).toBe(0);
    expect(readFileSync(file)).toEqual(Buffer.from('thé\nbrûlée\n', 'latin1'));
    const write = await runCli(
      ['write', 'menu.txt', '--content', 'crêpe\n', '--encoding', 'latin1', '-y'],
      at,
    );
    expect(write.code).toBe(0);
    expect(readFileSync(file)).toEqual(Buffer.from('crêpe\n', 'latin1'));
  });

  it('an unknown encoding is a usage error before anything is read', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = await runCli(['edit', 'app.ts', '--old', 'a', '--new', 'b', '--encoding', 'klingon', '-y'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown encoding "klingon"');
    expect(run.stderr).toContain('Run editgate edit --help');
  });
});

describe('--config FILE', () => {
  it('is the file named when a policy rule approves, refuses, or could approve', async () => {
    const rules = [
      { path: 'open.ts', action: 'allow' },
      { path: 'locked.ts', action: 'deny' },
    ];
    const ws = cliWorkspace({
      'open.ts': APP,
      'locked.ts': APP,
      'other.ts': APP,
      'ci/p.json': JSON.stringify({ policy: { rules } }),
    });
    trustConfig(join(ws.root, 'ci/p.json'), ws.stateDir, ws.root);
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const edit = (file: string) => [
      'edit',
      file,
      '--old',
      'a = 1',
      '--new',
      'a = 2',
      '--config',
      'ci/p.json',
    ];
    const approved = await runCli(edit('open.ts'), at);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(
      'Approved by the policy rule every tool on open.ts → allow (ci/p.json).',
    );
    const denied = await runCli(edit('locked.ts'), at);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('hint: a rule in ci/p.json refused the change');
    const unasked = await runCli(edit('other.ts'), at);
    expect(unasked.code).toBe(3);
    expect(unasked.stderr).toContain('add a policy rule in ci/p.json');
    for (const run of [approved, denied, unasked])
      expect(run.stdout + run.stderr).not.toContain('editgate.config.json');
  });
});
