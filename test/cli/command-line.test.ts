import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GLOBAL_OPTIONS } from '../../src/cli/usage.js';
import { ensureBuilt, REPO } from '../built-cli.js';
import { cliWorkspace, runCli } from './run-cli.js';

// The command line itself, as a script meets it: what no command, an unknown option, an option the
// command does not take, or a missing value do, each with editgate's own message and exit 2.

beforeAll(ensureBuilt, 120_000);

const APP = 'const a = 1;\nconst b = 2;\n';

/** An error line of editgate's own: its prefix, no quote left open, and the way to the command's help. */
function expectOwnUsageError(stderr: string, command: string): void {
  expect(stderr).toMatch(
    new RegExp(`^editgate ${command}: .+ Run editgate ${command} --help for its options\\.\\n$`),
  );
  expect(stderr).not.toContain("'");
  expect((stderr.match(/"/g) ?? []).length % 2).toBe(0);
}

describe('editgate with no command', () => {
  it('prints the usage on standard error and exits 2, nothing on standard output', async () => {
    const ws = cliWorkspace();
    for (const args of [[], ['--json'], ['--root', ws.root]]) {
      const run = await runCli(args, { cwd: ws.root, stateDir: ws.stateDir });
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('no command given');
      expect(run.stderr).toContain('Usage: editgate <command>');
      expect(run.stderr).toContain('editgate --help');
    }
  });

  it('--version and -v print the version of package.json; help COMMAND is COMMAND --help', async () => {
    const ws = cliWorkspace();
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const run = await runCli([flag], at);
      expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
    }
    const help = await runCli(['help', 'lines'], at);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await runCli(['lines', '--help'], at)).stdout);
    expect(help.stdout).toContain('Usage: editgate lines');
  });
});

describe('a wrong option', () => {
  it('is refused in editgate’s own words (exit 2), with the file untouched', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const cases: Array<[string[], string]> = [
      [['edit', 'app.ts', '--bogus'], 'unknown option --bogus'],
      [['edit', 'app.ts', '-q', '--old', 'a', '--new', 'b'], 'unknown option -q'],
      [['edit', 'app.ts', '--old'], '--old needs a value'],
      [['edit', 'app.ts', '--old', 'a', '--old', 'b', '--new', 'c'], '--old is given more than once'],
      [['edit', 'app.ts', '--old', '--new', 'x'], '--old is followed by --new, not a value'],
      [['edit', 'app.ts', '--old', 'a', '--new', 'b', '--json=yes'], '--json takes no value'],
      [['--bogus', 'edit', 'app.ts', '--old', 'a', '--new', 'b'], 'unknown option --bogus'],
    ];
    for (const [args, expected] of cases) {
      const run = await runCli(args, at);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain(expected);
      expectOwnUsageError(run.stderr, 'edit');
    }
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });

  it('a value that starts with "-" is taken when written --flag=value', async () => {
    const ws = cliWorkspace({ 'opts.txt': 'run -x now\n' });
    const run = await runCli(['edit', 'opts.txt', '--old=-x', '--new=-y', '-y'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws.root, 'opts.txt'), 'utf8')).toBe('run -y now\n');
  });

  it('an option a command would ignore is refused, before or after the command', async () => {
    const ws = cliWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'app.ts': APP });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const cases: Array<[string, string[]]> = [
      ['diff', ['diff', 'a.txt', 'b.txt', '--json']],
      ['diff', ['--yes', 'diff', 'a.txt', 'b.txt']],
      ['diff', ['diff', 'a.txt', 'b.txt', '--root', ws.root]],
      ['write', ['write', 'app.ts', '--content', 'x', '--matching', 'exact', '-y']],
      ['lines', ['lines', 'app.ts', '--range', '1', '--with', 'x', '--matching', 'exact', '-y']],
      ['undo', ['undo', 'app.ts', '--matching', 'exact']],
      ['read', ['read', 'app.ts', '--theme', 'dark']],
      ['read', ['read', 'app.ts', '--dry-run']],
      ['apply', ['apply', '--dry-run']],
      ['mcp', ['mcp', '--json']],
    ];
    for (const [command, args] of cases) {
      const run = await runCli(args, at);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(/does not apply to this command|unknown option/);
      if (command !== 'mcp') expectOwnUsageError(run.stderr, command);
    }
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });

  it('every global option that takes a value may come before the command', async () => {
    // main.ts keeps its own list of these (so that --help loads nothing else): a value-taking option it
    // does not know would be taken for the command.
    const ws = cliWorkspace({ 'app.ts': APP, 'p.json': '{}' });
    const sample: Record<string, string> = {
      root: ws.root,
      matching: 'exact',
      theme: 'dark',
      config: 'p.json',
      approve: 'terminal',
    };
    const before: string[] = [];
    for (const [name, spec] of Object.entries(GLOBAL_OPTIONS)) {
      if (spec.type !== 'string') continue;
      expect(sample[name], `a sample value for --${name}`).toBeDefined();
      before.push(`--${name}`, sample[name]!);
    }
    const run = await runCli([...before, 'edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '--dry-run'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe('exit codes', () => {
  it('a --range past the end and a malformed --range are both input errors (exit 2)', async () => {
    const ws = cliWorkspace({ 'list.txt': 'a\nb\n' });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const malformed = await runCli(['lines', 'list.txt', '--range', 'two', '--with', 'x', '-y'], at);
    const beyond = await runCli(['lines', 'list.txt', '--range', '5:6', '--with', 'x', '-y'], at);
    expect([malformed.code, beyond.code]).toEqual([2, 2]);
    expect(beyond.stderr).toContain('INVALID_RANGE');
    expect(readFileSync(join(ws.root, 'list.txt'), 'utf8')).toBe('a\nb\n');
  });
});
