import { spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../src/agent/tools/bash.js';
import { CommandPolicy } from '../../../src/agent/tools/command-policy.js';
import { FileChangeTracker } from '../../../src/agent/tools/file-changes.js';
import { WorkspaceScope } from '../../../src/agent/tools/scope.js';
import { readShellLine } from '../../../src/agent/tools/shell-syntax.js';
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

describe('what the policy allows is what bash runs (property, real bash)', () => {
  const policy = new CommandPolicy([
    { tool: 'bash', path: 'git status', action: 'allow' },
    { tool: 'bash', path: 'npm test', action: 'allow' },
  ]);
  // Shell's hard characters, often enough that some lines with them are allowed.
  const piece = fc.oneof(
    fc.stringMatching(/^[a-z0-9=.,:@%+^_-]{1,6}$/),
    fc.constantFrom(
      ' ',
      '\t',
      '\n',
      ';',
      '&',
      '|',
      '#',
      '"',
      "'",
      '\\',
      '$',
      '`',
      '(',
      ')',
      '<',
      '>',
      '{',
      '}',
      '*',
      '?',
      '~',
      '!',
      '[',
      ']',
      '"a b"',
      "'c d'",
      '"$x"',
      "$'\\''",
      '\u00a0',
      '\r',
      '==',
    ),
  );
  const line = fc
    .tuple(
      fc.constantFrom('git status', 'npm test', ' git status ', 'npm  test'),
      fc.array(piece, { maxLength: 8 }),
    )
    .map(([command, tail]) => `${command} ${tail.join('')}`);

  it('an allowed line runs one command, with the words the policy read', async () => {
    // git and npm are functions that print their words; PATH is empty, so nothing else can run.
    const shim = 'git() { printf \'%s\\0\' git "$@"; }\nnpm() { printf \'%s\\0\' npm "$@"; }\n';
    let allowed = 0;
    await fc.assert(
      fc.asyncProperty(line, async (command) => {
        if ((await policy.evaluate(command)).action !== 'allow') return;
        allowed++;
        const words = (await readShellLine(command)).simple!;
        // Standard input not a socket (Node's pipes are), or bash would read ~/.bashrc as if run by sshd.
        const run = spawnSync('/bin/bash', ['-c', shim + command], {
          env: { PATH: '' },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        expect({ out: run.stdout, err: run.stderr }).toEqual({ out: `${words.join('\0')}\0`, err: '' });
      }),
      { numRuns: 500 },
    );
    // Not vacuous: a good share of the lines are allowed, and each was run.
    expect(allowed).toBeGreaterThan(50);
  });
});

describe('a deny rule under an allow-all rule, against real bash (property)', () => {
  const policy = new CommandPolicy([
    { tool: 'bash', action: 'allow' },
    { tool: 'bash', path: 'rm', action: 'deny' },
  ]);
  const wrapper = fc.constantFrom(
    '',
    'X=1 ',
    'env ',
    'env -i ',
    'env -u HOME A=b ',
    'command ',
    'command -p ',
    'exec ',
    'nohup ',
    'nice ',
    'nice -n 1 ',
    'timeout 5 ',
    'time ',
    'stdbuf -o0 ',
    'setsid ',
    'echo victim | xargs ',
    'true && ',
    'true; ',
    '! ',
  );
  const name = fc.constantFrom(
    'rm',
    '"rm"',
    "'rm'",
    'r""m',
    'r\\m',
    '\\rm',
    '$R',
    '"$R"',
    '$' + '{R}',
    // Not rm: lines the policy allows, run to check that rm does not hide in them.
    'true',
    'cat',
    'r?',
    'r*',
  );
  const around = fc.constantFrom(
    ['', ''],
    ['(', ')'],
    ['{ ', '; }'],
    ['echo $(', ')'],
    ['echo "`', '`"'],
    ['f() { ', '; }; f'],
    ['if true; then ', '; fi'],
    ['for i in 1; do ', '; done'],
    ['cat <(', ')'],
    ['cat <<EOF\n$(', ')\nEOF'],
    ['cat <<EOF\n`', '`\nEOF'],
    ['R=rm; ', ''],
  );

  it('a line the policy allows never runs rm', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-deny-property-')));
    made.push(root);
    const bin = join(root, 'bin');
    const mark = join(root, 'RAN');
    await mkdir(bin);
    // rm records that it ran; the wrappers are the real programs; nothing else is on PATH.
    await writeFile(join(bin, 'rm'), `#!/bin/sh\n: > '${mark}'\n`, { mode: 0o755 });
    for (const program of [
      'env',
      'nohup',
      'nice',
      'timeout',
      'stdbuf',
      'setsid',
      'xargs',
      'true',
      'cat',
      'echo',
    ]) {
      const path = spawnSync('/bin/sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).stdout.trim();
      if (path.startsWith('/')) await symlink(path, join(bin, program));
    }
    let allowed = 0;
    let ranWhenRefused = 0;
    await fc.assert(
      fc.asyncProperty(around, wrapper, name, async ([open, close], wrap, command) => {
        const line = `${open}${wrap}${command} -f victim${close}`;
        const verdict = await policy.evaluate(line);
        await rm(mark, { force: true });
        spawnSync('/bin/bash', ['-c', line], {
          cwd: root,
          env: { PATH: bin, R: 'rm' },
          stdio: 'ignore',
          timeout: 10_000,
        });
        const ran = await access(mark).then(
          () => true,
          () => false,
        );
        if (verdict.action === 'allow') {
          allowed++;
          expect(ran, line).toBe(false);
        } else if (ran) ranWhenRefused++;
      }),
      { numRuns: 300 },
    );
    // Not vacuous: some lines are allowed (rm does not run in them), and many refused ones would run rm.
    expect(allowed).toBeGreaterThan(10);
    expect(ranWhenRefused).toBeGreaterThan(100);
  }, 120_000);
});
