import { describe, expect, it } from 'vitest';
import { parsePatch } from '../../src/core/patch.js';
import { adapter, codexHookHash, installer } from '../../src/hooks/agents/codex.js';
import { agreedUpdate, codexUpdate } from '../../src/hooks/agents/codex-patch.js';
import type { HookCommand } from '../../src/hooks/install.js';

// Codex's hook protocol and apply_patch as editgate reads them (the real Codex 0.171.0 runs in
// test/agents/hooks-codex.test.ts, which also proves the trust hash: Codex runs the hook only when it matches).

const hunksOf = (patch: string) => {
  const [operation] = parsePatch(patch);
  if (operation?.type !== 'update') throw new Error('not an update');
  return operation.hunks;
};
const patch = (...lines: string[]) =>
  ['*** Begin Patch', '*** Update File: a.txt', ...lines, '*** End Patch'].join('\n');
const bytes = (text: string) => Buffer.from(text, 'utf8');

describe("Codex's apply_patch, first match against editgate's one place", () => {
  it('agrees on a hunk whose lines occur once, and ends the file with a line break', () => {
    const hunks = hunksOf(patch('@@', ' a', '-b', '+B'));
    expect(agreedUpdate('a.txt', bytes('a\nb\nc\n'), hunks).toString()).toBe('a\nB\nc\n');
  });

  it('refuses a hunk that occurs twice: Codex would take the first, editgate will not guess', () => {
    const hunks = hunksOf(patch('@@', '-x', '+y'));
    expect(codexUpdate('a.txt', bytes('x\nx\n'), hunks).toString()).toBe('y\nx\n');
    expect(() => agreedUpdate('a.txt', bytes('x\nx\n'), hunks)).toThrow(
      /Codex would apply it at the first place/,
    );
  });

  it('refuses where Codex would match only loosely, several @@ lines, CR line ends and a missing file', () => {
    expect(() => codexUpdate('a.txt', bytes('a  \n'), hunksOf(patch('@@', '-a', '+b')))).toThrow(
      /exactly as written/,
    );
    expect(() =>
      codexUpdate('a.txt', bytes('f\ng\nh\n'), hunksOf(patch('@@ f', '@@ g', '-h', '+H'))),
    ).toThrow(/"@@" lines in a row/);
    expect(() => codexUpdate('a.txt', bytes('a\r\n'), hunksOf(patch('@@', '-a', '+b')))).toThrow(
      /CR line ends/,
    );
    expect(() => agreedUpdate('a.txt', null, hunksOf(patch('@@', '-a', '+b')))).toThrow(/does not exist/);
  });

  it('refuses when the readings differ: a file without a final line break', () => {
    expect(() => agreedUpdate('a.txt', bytes('a\nb'), hunksOf(patch('@@', ' a', '-b', '+B')))).toThrow(
      /read it differently/,
    );
  });
});

describe("Codex's events", () => {
  const event = (phase: string, command: string, tool = 'apply_patch') => ({
    session_id: 's',
    turn_id: 't',
    cwd: '/w',
    hook_event_name: phase,
    model: 'gpt-5.5',
    permission_mode: 'default',
    tool_name: tool,
    tool_input: { command },
    tool_use_id: 'call_1',
  });
  const add = '*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Delete File: old.txt\n*** End Patch\n';

  it('reads a patch as the files it writes, relative to cwd, in a heredoc too', () => {
    const read = adapter.parse(event('PreToolUse', `<<'EOF'\n${add}EOF\n`));
    expect(read).toMatchObject({ phase: 'pre', read: { kind: 'write', tool: 'apply_patch' } });
    if (read.phase === 'pre' && read.read.kind === 'write') {
      expect(read.read.files.map((file) => [file.path, 'delete' in file])).toEqual([
        ['/w/new.txt', false],
        ['/w/old.txt', true],
      ]);
    }
    expect(adapter.parse(event('PostToolUse', add))).toMatchObject({
      read: { kind: 'settle', paths: ['/w/new.txt', '/w/old.txt'] },
    });
    expect(adapter.parse(event('PreToolUse', 'ls', 'Bash'))).toMatchObject({ read: { kind: 'pass' } });
  });

  it('refuses a patch that does not parse, and a move onto its own path, with what to do', () => {
    expect(adapter.parse(event('PreToolUse', 'not a patch'))).toMatchObject({ read: { kind: 'refuse' } });
    const onto = adapter.parse(
      event('PreToolUse', '*** Begin Patch\n*** Update File: a\n*** Move to: /w/a\n*** End Patch'),
    );
    expect(onto).toMatchObject({ read: { kind: 'refuse', reason: expect.stringContaining('its own path') } });
  });

  it('reads a move as the deletion of the old path and a write of the new one, from the old bytes', () => {
    const read = adapter.parse(
      event('PreToolUse', '*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+X\n*** End Patch'),
    );
    if (read.phase !== 'pre' || read.read.kind !== 'write') throw new Error(JSON.stringify(read));
    const [from, to] = read.read.files;
    expect(from).toEqual({ path: '/w/a', delete: true });
    expect(to).toMatchObject({ path: '/w/b', movedFrom: '/w/a' });
    if (!to || !('moved' in to)) throw new Error('no move');
    expect(to.moved(bytes('x\ny\n')).toString()).toBe('X\ny\n');
    expect(() => to.moved(bytes('z\n'))).toThrow(/not in the file exactly as written/);
    expect(
      adapter.parse(
        event('PostToolUse', '*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch'),
      ),
    ).toMatchObject({
      read: { kind: 'settle', paths: ['/w/a', '/w/b'] },
    });
  });

  it('answers as Codex takes it: silence to allow, deny with a reason, no ask, allow only with a new patch', () => {
    expect(adapter.pre({ kind: 'allow' })).toEqual({ stdout: '', exitCode: 0 });
    const ask = JSON.parse(adapter.pre({ kind: 'ask', reason: 'no rule decides' }).stdout).hookSpecificOutput;
    expect(ask.permissionDecision).toBe('deny');
    expect(ask.permissionDecisionReason).toContain('--approve web');
    const updated = JSON.parse(
      adapter.pre({ kind: 'allow', updatedInput: { command: 'P' } }).stdout,
    ).hookSpecificOutput;
    expect(updated).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { command: 'P' },
    });
    expect(JSON.parse(adapter.failed('x').stdout).hookSpecificOutput.permissionDecisionReason).toBe('x');
  });

  it("writes the person's version as a patch Codex places at exactly one place", () => {
    const revised = adapter.revise!({ command: 'old' }, [
      { path: '/w/a.txt', before: 'a\nb\n', proposed: 'a\nB\n', approved: 'a\nBee\n' },
    ]);
    expect(revised).toEqual({
      command:
        '*** Begin Patch\n*** Update File: /w/a.txt\n@@\n-a\n-b\n+a\n+Bee\n*** End of File\n*** End Patch\n',
    });
    const hunks = hunksOf((revised as { command: string }).command);
    expect(agreedUpdate('a.txt', bytes('a\nb\n'), hunks).toString()).toBe('a\nBee\n');
  });
});

describe("Codex's hooks.json and the trust it needs", () => {
  const command: HookCommand = {
    argv: [],
    nodeArgv: [],
    line: '/usr/bin/node /opt/e/main.js hook codex --approve web',
    timeoutSeconds: 600,
    approve: 'web',
    failOpen: false,
  };
  const file = '/home/p/.codex/hooks.json';

  it("adds editgate's entries after the person's, once, with their trust; removes only them", () => {
    const mine = JSON.stringify({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard' }] }] },
    });
    const added = installer.add(mine, command);
    expect(JSON.parse(added).hooks.PreToolUse).toHaveLength(2);
    expect(installer.add(added, command)).toBe(added);
    const config = 'model = "gpt-5.5"\n';
    const trusted = installer.companion!.add(config, added, file)!;
    expect(trusted).toContain(`[hooks.state."${file}:pre_tool_use:1:0"]`);
    expect(trusted).toContain(
      `trusted_hash = "${codexHookHash('pre_tool_use', 'apply_patch', command.line, 600)}"`,
    );
    expect(trusted).toContain(`[hooks.state."${file}:post_tool_use:0:0"]`);
    // The prompt hook (a session review's reasons): no matcher, trusted by a hash without one.
    expect(JSON.parse(added).hooks.UserPromptSubmit).toEqual([
      { hooks: [{ type: 'command', command: `${command.line} --fail-open`, timeout: 30 }] },
    ]);
    expect(trusted).toContain(`[hooks.state."${file}:user_prompt_submit:0:0"]`);
    expect(trusted).toContain(
      `trusted_hash = "${codexHookHash('user_prompt_submit', undefined, `${command.line} --fail-open`, 30)}"`,
    );
    expect(installer.find(added)).toEqual([
      expect.stringMatching(/^PreToolUse \(apply_patch\)/),
      expect.stringMatching(/^PostToolUse \(apply_patch\)/),
      expect.stringMatching(/^UserPromptSubmit \(every prompt\)/),
    ]);
    expect(installer.companion!.add(trusted, added, file)).toBe(trusted);
    expect(installer.companion!.remove(trusted, file)).toBe(config);
    expect(JSON.parse(installer.remove(added)!)).toEqual(JSON.parse(mine));
  });

  it('hashes an entry as Codex does: its event, matcher and handler as sorted JSON, sha256', () => {
    expect(codexHookHash('pre_tool_use', 'apply_patch', 'x', 600)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(codexHookHash('pre_tool_use', 'apply_patch', 'x', 600)).not.toBe(
      codexHookHash('post_tool_use', 'apply_patch', 'x', 600),
    );
  });
});
