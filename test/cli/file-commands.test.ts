import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { cliWorkspace, runCli } from './run-cli.js';

// editgate edit / write / lines / undo as a script or CI job runs them: no terminal, so changes need --yes
// or a policy rule, and every outcome has its documented exit code. (The interactive prompt is tested in a
// real pseudo-terminal in terminal.e2e.test.ts.)

beforeAll(ensureBuilt, 120_000);

const APP = 'const a = 1;\nconst b = 2;\n';

describe('editgate edit', () => {
  it('--yes writes the change and shows its diff on standard output', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = await runCli(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 42', '--yes'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 42;\nconst b = 2;\n');
    const lines = run.stdout.split('\n');
    expect(lines).toContain('⚙ edit_file(path=app.ts)');
    expect(lines).toContain('-const a = 1;');
    expect(lines).toContain('+const a = 42;');
    expect(run.stdout).toContain('Approved by --yes.');
    expect(run.stdout).not.toContain('\x1b[');
    // After the diff, one line says what happened; the model's copy of the changed region would repeat it.
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('Edited app.ts: 1 replacement, +1 -1 lines.');
    expect(run.stdout).not.toContain('changed region');
  });

  it('without a terminal and without --yes, refuses with how to approve (exit 3), file untouched', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const before = statSync(join(ws.root, 'app.ts')).mtimeMs;
    const run = await runCli(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 42'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('there is no terminal to ask');
    expect(run.stderr).toContain('--yes');
    expect(run.stderr).toContain('policy rule');
    // No one was asked, so no one said no: its own code, and the refused diff on stderr for a CI log.
    expect(run.stderr).toContain('DENIED_NO_APPROVER');
    expect(run.stderr).not.toContain('DENIED_USER');
    expect(run.stderr).toContain('editgate: refused (no terminal to ask), this change:');
    expect(run.stderr).toContain('-const a = 1;');
    expect(run.stderr).toContain('+const a = 42;');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    expect(statSync(join(ws.root, 'app.ts')).mtimeMs).toBe(before);
  });

  it('a policy rule in editgate.config.json approves without --yes, and says so', async () => {
    const config = { policy: { rules: [{ tool: 'edit_file', path: '**/*.ts', action: 'allow' }] } };
    const ws = cliWorkspace({ 'app.ts': APP, 'editgate.config.json': JSON.stringify(config) });
    const run = await runCli(['edit', 'app.ts', '--old', 'b = 2', '--new', 'b = 3'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Approved by the policy rule edit_file on **/*.ts → allow (editgate.config.json).',
    );
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('a deny rule is exit 3; text not found and ambiguous text are exit 1 with the count', async () => {
    const config = { policy: { rules: [{ path: 'locked.ts', action: 'deny' }] } };
    const ws = cliWorkspace({
      'app.ts': 'x();\nx();\n',
      'locked.ts': APP,
      'editgate.config.json': JSON.stringify(config),
    });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const denied = await runCli(['edit', 'locked.ts', '--old', 'a', '--new', 'z', '-y'], at);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('DENIED_POLICY');
    const ambiguous = await runCli(['edit', 'app.ts', '--old', 'x();', '--new', 'y();', '-y'], at);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/AMBIGUOUS.*2/s);
    // The next step in the command's own words, not the tool's parameter names.
    expect(ambiguous.stderr).toContain('hint: give more of the surrounding text in --old');
    expect(ambiguous.stderr).toContain('add --replace-all to replace all 2');
    const missing = await runCli(['edit', 'app.ts', '--old', 'nowhere', '--new', 'y', '-y'], at);
    expect(missing.code).toBe(1);
    // --dry-run gets the exit code the change would get, with nothing written.
    const dryDenied = await runCli(['edit', 'locked.ts', '--old', 'a', '--new', 'z', '--dry-run'], at);
    expect(dryDenied.code).toBe(3);
    expect(dryDenied.stderr).toContain('DENIED_POLICY');
    const dryAmbiguous = await runCli(['edit', 'app.ts', '--old', 'x();', '--new', 'y();', '--dry-run'], at);
    expect(dryAmbiguous.code).toBe(1);
    expect(readFileSync(join(ws.root, 'locked.ts'), 'utf8')).toBe(APP);
    expect(missing.stderr).toContain('NOT_FOUND');
    expect(missing.stderr).toContain('hint: copy --old exactly from the file');
    const absent = await runCli(['edit', 'absent.ts', '--old', 'a', '--new', 'b', '-y'], at);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain('hint: to create the file: editgate write FILE');
    expect(existsSync(join(ws.root, 'absent.ts'))).toBe(false);
    const all = await runCli(['edit', 'app.ts', '--old', 'x();', '--new', 'y();', '--replace-all', '-y'], at);
    expect(all.code).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('y();\ny();\n');
  });

  it('--old-file and --new-file read long texts; "-" reads standard input', async () => {
    const ws = cliWorkspace({ 'app.ts': APP, 'old.txt': 'const b = 2;\n' });
    const run = await runCli(['edit', 'app.ts', '--old-file', 'old.txt', '--new-file', '-', '-y'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: 'const b = 20;\nconst c = 3;\n',
    });
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = 3;\n');
  });

  it('usage errors say what is wrong and point to --help (exit 2, nothing tried)', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const cases: Array<[string[], string]> = [
      [['edit', 'app.ts', '--new', 'x'], '--old TEXT'],
      [['edit', 'app.ts', '--old', 'a'], '--new TEXT'],
      [['edit', '--old', 'a', '--new', 'b'], 'give the FILE'],
      [['edit', 'a.ts', 'b.ts', '--old', 'a', '--new', 'b'], 'one FILE at a time'],
      [['edit', 'app.ts', '--old', 'a', '--old-file', 'x', '--new', 'b'], 'not both'],
      [['edit', 'app.ts', '--old', 'a', '--new', 'b', '--matching', 'fuzzy'], 'exact or tolerant'],
      [['edit', 'app.ts', '--old', 'a', '--new', 'b', '--theme', 'pink'], 'dark, light or auto'],
      [['edit', 'app.ts', '--bogus'], 'unknown option --bogus'],
      [['edit', 'app.ts', '--old-file', 'nope.txt', '--new', 'b'], 'cannot read nope.txt'],
    ];
    for (const [args, expected] of cases) {
      const run = await runCli(args, at);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain(expected);
      expect(run.stderr).toContain('--help');
    }
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });

  it('a file outside the root is refused (exit 1), and a broken config is a usage error (exit 2)', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const outside = join(ws.root, '..', 'outside.ts');
    writeFileSync(outside, APP);
    const run = await runCli(['edit', outside, '--old', 'a = 1', '--new', 'a = 2', '-y'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('OUTSIDE_ROOT');
    expect(readFileSync(outside, 'utf8')).toBe(APP);

    writeFileSync(join(ws.root, 'editgate.config.json'), '{ "policy": ');
    const broken = await runCli(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '-y'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('not valid JSON');
  });

  it('--root given before the command, with the file relative to the current folder', async () => {
    const ws = cliWorkspace({ 'src/app.ts': APP });
    const run = await runCli(
      ['--root', ws.root, 'edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 5', '--yes'],
      {
        cwd: join(ws.root, 'src'),
        stateDir: ws.stateDir,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('edit_file(path=src/app.ts)');
    expect(readFileSync(join(ws.root, 'src/app.ts'), 'utf8')).toContain('a = 5');
  });
});

describe('editgate write, lines and undo', () => {
  it('write creates from standard input and keeps CRLF and BOM when replacing', async () => {
    const ws = cliWorkspace({ 'win.txt': Buffer.from('\ufeffone\r\ntwo\r\n', 'utf8') });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const created = await runCli(['write', 'new.txt', '-y'], { ...at, stdin: 'hello\n' });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('--- /dev/null');
    expect(readFileSync(join(ws.root, 'new.txt'), 'utf8')).toBe('hello\n');
    const replaced = await runCli(['write', 'win.txt', '--content', 'one\nTWO\n', '-y'], at);
    expect(replaced.code).toBe(0);
    expect(readFileSync(join(ws.root, 'win.txt'))).toEqual(Buffer.from('\ufeffone\r\nTWO\r\n', 'utf8'));
  });

  it('write --content keeps a final newline the shell argument left out; standard input is taken as is', async () => {
    const ws = cliWorkspace({ 'a.txt': 'old\n', 'win.txt': 'one\r\n' });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const typed = await runCli(['write', 'a.txt', '--content', 'new', '-y'], at);
    expect(typed.code).toBe(0);
    expect(readFileSync(join(ws.root, 'a.txt'), 'utf8')).toBe('new\n');
    expect(typed.stdout).not.toContain('No newline at end of file');
    expect((await runCli(['write', 'win.txt', '--content', 'two', '-y'], at)).code).toBe(0);
    expect(readFileSync(join(ws.root, 'win.txt'), 'utf8')).toBe('two\r\n');
    expect((await runCli(['write', 'empty.txt', '--content', '', '-y'], at)).code).toBe(0);
    expect(readFileSync(join(ws.root, 'empty.txt'), 'utf8')).toBe('');
    const piped = await runCli(['write', 'a.txt', '-y'], { ...at, stdin: 'bare' });
    expect(piped.code).toBe(0);
    expect(readFileSync(join(ws.root, 'a.txt'), 'utf8')).toBe('bare');
    expect(piped.stdout).toContain('\\ No newline at end of file');
  });

  it('lines replaces by number with edit_lines rules; a bad range is a usage error', async () => {
    const ws = cliWorkspace({ 'list.txt': 'a\nb\nc\nd\n' });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const run = await runCli(['lines', 'list.txt', '--range', '2:4', '--with', 'B\nC', '-y'], at);
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws.root, 'list.txt'), 'utf8')).toBe('a\nB\nC\nd\n');
    const single = await runCli(['lines', 'list.txt', '--range', '1', '--with', '', '-y'], at);
    expect(single.code).toBe(0);
    expect(readFileSync(join(ws.root, 'list.txt'), 'utf8')).toBe('B\nC\nd\n');
    const bad = await runCli(['lines', 'list.txt', '--range', 'two-four', '--with', 'x', '-y'], at);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('START:END');
    const beyond = await runCli(['lines', 'list.txt', '--range', '9:12', '--with', 'x', '-y'], at);
    expect(beyond.code).toBe(2);
    expect(beyond.stderr).toContain('INVALID_RANGE');
    expect(beyond.stderr).toContain('hint: --range START:END counts lines from 1 and leaves END out');
    expect(readFileSync(join(ws.root, 'list.txt'), 'utf8')).toBe('B\nC\nd\n');
  });

  it('undo in a later process puts back the content before the last change, step by step', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    expect((await runCli(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '-y'], at)).code).toBe(0);
    expect((await runCli(['edit', 'app.ts', '--old', 'b = 2', '--new', 'b = 3', '-y'], at)).code).toBe(0);
    const first = await runCli(['undo', 'app.ts', '-y', '--json'], at);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ tool: 'undo_edit', ok: true });
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 2;\nconst b = 2;\n');
    expect((await runCli(['undo', 'app.ts', '-y'], at)).code).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    const nothing = await runCli(['undo', 'app.ts', '-y'], at);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('NOTHING_TO_UNDO');
  });

  it('refusals are told to the person: the code and what happened, no advice meant for a model', async () => {
    const config = { policy: { rules: [{ path: 'locked.ts', action: 'deny' }] } };
    const ws = cliWorkspace({
      'app.ts': 'x();\nx();\n',
      'locked.ts': APP,
      'near.ts': APP,
      '.git/config': 'k\n',
      'editgate.config.json': JSON.stringify(config),
    });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const runs = {
      denied: await runCli(['edit', 'locked.ts', '--old', 'a', '--new', 'z', '-y'], at),
      missing: await runCli(['edit', 'app.ts', '--old', 'nowhere', '--new', 'y', '-y'], at),
      near: await runCli(['edit', 'near.ts', '--old', 'const b = 3;', '--new', 'y', '-y'], at),
      ambiguous: await runCli(['edit', 'app.ts', '--old', 'x();', '--new', 'y();', '-y'], at),
      git: await runCli(['write', '.git/config', '--content', 'z', '-y'], at),
      absent: await runCli(['read', 'absent.ts'], at),
    };
    expect(Object.values(runs).map((run) => run.code)).toEqual([3, 1, 1, 1, 1, 1]);
    expect(runs.denied.stderr).toContain(
      'editgate edit: DENIED_POLICY: Policy does not allow the change to locked.ts (rule: every tool on locked.ts → deny)',
    );
    expect(runs.missing.stderr).toContain('editgate edit: NOT_FOUND: The text to replace was not found');
    // The closest text's line, as the README promises (#27): what happened, kept whole.
    expect(runs.near.stderr).toMatch(
      /NOT_FOUND: The text to replace was not found[^\n]*The closest text is at line 2 /,
    );
    expect(runs.near.stderr).toContain('hint: copy --old exactly from the file');
    expect(runs.ambiguous.stderr).toContain('editgate edit: AMBIGUOUS: The text to replace matches 2 places');
    expect(runs.git.stderr).toContain(
      "editgate write: OUTSIDE_ROOT: '.git/config' is denied by workspace rule",
    );
    expect(runs.absent.stderr).toContain('editgate read: FILE_NOT_FOUND: absent.ts does not exist.');
    for (const run of Object.values(runs)) {
      expect(run.stderr).not.toMatch(
        /read_file|write_file|old_string|replace_all|the user|Do not retry|failed \(/,
      );
    }
  });

  it('--json prints one JSON object per result and nothing else on standard output', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const ok = await runCli(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '-y', '--json'], at);
    expect(ok.code).toBe(0);
    const result = JSON.parse(ok.stdout);
    // --yes approved it, not a person: the result and the audit say so (issue #14).
    expect(result).toMatchObject({
      tool: 'edit_file',
      ok: true,
      details: { path: 'app.ts', decision: 'once', decidedBy: 'auto', auto: '--yes' },
    });
    expect(result.details.unifiedDiff).toContain('+const a = 2;');
    const failed = await runCli(['edit', 'app.ts', '--old', 'zzz', '--new', 'y', '-y', '--json'], at);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ tool: 'edit_file', ok: false, code: 'NOT_FOUND' });
  });
});

describe('editgate --help', () => {
  it('documents every command, the global options, the config file and the exit codes', async () => {
    const ws = cliWorkspace();
    const run = await runCli(['--help'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(run.code).toBe(0);
    for (const word of [
      'edit',
      'write',
      'lines',
      'undo',
      'apply',
      'diff',
      'mcp',
      '--root',
      '--yes',
      '--json',
    ]) {
      expect(run.stdout).toContain(word);
    }
    expect(run.stdout).toContain('editgate.config.json');
    expect(run.stdout).toContain('Exit codes');
    // .git and the config are protected whatever the list says, and a config needs trust (issue #13).
    expect(run.stdout).toContain('.git and editgate.config.json always');
    expect(run.stdout).not.toContain('which a list of your own replaces');
    expect(run.stdout).toContain('editgate trust ROOT');
    for (const command of ['edit', 'write', 'lines', 'undo']) {
      const help = await runCli([command, '--help'], { cwd: ws.root, stateDir: ws.stateDir });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: editgate ${command}`);
      expect(help.stdout).toContain('Exit codes');
    }
  });

  it('an unknown command says how to see the commands (exit 2)', async () => {
    const ws = cliWorkspace();
    const run = await runCli(['frobnicate'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('editgate --help');
  });
});
