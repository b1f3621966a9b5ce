import { describe, expect, it } from 'vitest';
import { adapter, installer } from '../../src/hooks/agents/claude-code.js';
import { applyClaudeEdits } from '../../src/hooks/agents/claude-code-edits.js';
import type { HookCommand } from '../../src/hooks/install.js';

// Claude Code's hook protocol as editgate reads and answers it, on events shaped as Claude Code 2.1.332
// sends them (the real binary runs in test/agents/hooks-claude-code.test.ts).

const event = (phase: string, tool: string, input: Record<string, unknown>) => ({
  session_id: 's',
  transcript_path: '/t',
  cwd: '/work/project',
  permission_mode: 'default',
  hook_event_name: phase,
  tool_name: tool,
  tool_input: input,
  tool_use_id: 'toolu_1',
});

describe("Claude Code's events", () => {
  it('reads Edit, MultiEdit and Write as writes of the file, relative paths from cwd', () => {
    for (const tool of ['Edit', 'MultiEdit', 'Write']) {
      const read = adapter.parse(
        event('PreToolUse', tool, {
          file_path: 'a.txt',
          old_string: 'x',
          new_string: 'y',
          edits: [],
          content: '',
        }),
      );
      expect(read).toMatchObject({
        phase: 'pre',
        read: { kind: 'write', tool, key: { session: 's', call: 'toolu_1' } },
      });
      if (read.phase === 'pre' && read.read.kind === 'write')
        expect(read.read.files[0]!.path).toBe('/work/project/a.txt');
    }
    expect(adapter.parse(event('PostToolUse', 'Edit', { file_path: '/x/a.txt' }))).toMatchObject({
      phase: 'post',
      read: { kind: 'settle', tool: 'Edit', paths: ['/x/a.txt'] },
    });
  });

  it('passes tools that do not write and refuses NotebookEdit with what to do instead', () => {
    expect(adapter.parse(event('PreToolUse', 'Bash', { command: 'ls' }))).toMatchObject({
      read: { kind: 'pass' },
    });
    const notebook = adapter.parse(
      event('PreToolUse', 'NotebookEdit', { notebook_path: '/x/n.ipynb', new_source: '' }),
    );
    expect(notebook).toMatchObject({ read: { kind: 'refuse' } });
    if (notebook.phase === 'pre' && notebook.read.kind === 'refuse')
      expect(notebook.read.reason).toContain('Edit instead');
    expect(adapter.parse({ hook_event_name: 'Stop', cwd: '/x' })).toMatchObject({ phase: 'other' });
  });

  it('answers in its protocol: allow, deny and ask with a reason, updatedInput, PostToolUse block', () => {
    expect(adapter.pre({ kind: 'pass' })).toEqual({ stdout: '', exitCode: 0 });
    const allow = JSON.parse(
      adapter.pre({ kind: 'allow', updatedInput: { a: 1 }, context: 'changed' }).stdout,
    );
    expect(allow.hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { a: 1 },
      additionalContext: 'changed',
    });
    for (const kind of ['deny', 'ask'] as const) {
      const out = JSON.parse(adapter.pre({ kind, reason: 'why' }).stdout);
      expect(out.hookSpecificOutput).toMatchObject({
        permissionDecision: kind,
        permissionDecisionReason: 'why',
      });
    }
    expect(JSON.parse(adapter.failed('crashed').stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const post = JSON.parse(adapter.post({ matches: false, message: 'differs' }).stdout);
    expect(post).toMatchObject({ decision: 'block', reason: 'differs', systemMessage: 'differs' });
  });

  it("carries the person's version as one unique replacement (Edit), or the whole text (Write)", () => {
    const files = [{ path: '/x/a.txt', before: 'a\nb\na\n', proposed: 'a\nB\na\n', approved: 'a\nBee\na\n' }];
    expect(adapter.revise!({ file_path: '/x/a.txt', old_string: 'b', new_string: 'B' }, files)).toEqual({
      file_path: '/x/a.txt',
      old_string: 'b\n',
      new_string: 'Bee\n',
    });
    // A changed line that occurs twice takes the line before it along, until the old text occurs once.
    const twice = [{ path: '/x/a.txt', before: 'x\ny\nx\n', proposed: '', approved: 'x\ny\nX\n' }];
    expect(adapter.revise!({ file_path: '/x/a.txt', old_string: 'x', new_string: 'X' }, twice)).toMatchObject(
      {
        old_string: 'y\nx\n',
        new_string: 'y\nX\n',
      },
    );
    expect(adapter.revise!({ file_path: '/x/a.txt', content: 'a\nB\na\n' }, files)).toEqual({
      file_path: '/x/a.txt',
      content: 'a\nBee\na\n',
    });
  });
});

describe("Claude Code's Edit, as editgate works it out", () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  it('replaces once, or every one with replace_all, and writes CRLF back', () => {
    expect(applyClaudeEdits('a', bytes('x\ny\n'), [{ old_string: 'y', new_string: 'z' }]).toString()).toBe(
      'x\nz\n',
    );
    expect(
      applyClaudeEdits('a', bytes('y\ny\n'), [
        { old_string: 'y', new_string: 'z', replace_all: true },
      ]).toString(),
    ).toBe('z\nz\n');
    expect(
      applyClaudeEdits('a', bytes('x\r\ny\r\n'), [{ old_string: 'x\ny', new_string: 'q' }]).toString(),
    ).toBe('q\r\n');
    expect(applyClaudeEdits('a', null, [{ old_string: '', new_string: 'new\n' }]).toString()).toBe('new\n');
  });

  it('refuses what Claude Code refuses, and what it would match only by guessing', () => {
    expect(() => applyClaudeEdits('a', bytes('y\ny\n'), [{ old_string: 'y', new_string: 'z' }])).toThrow(
      /occurs 2 times/,
    );
    expect(() => applyClaudeEdits('a', bytes('it’s\n'), [{ old_string: "it's", new_string: 'x' }])).toThrow(
      /not found/,
    );
    expect(() => applyClaudeEdits('a', bytes('a\r\nb\n'), [{ old_string: 'a', new_string: 'x' }])).toThrow(
      /mixes line endings/,
    );
    expect(() => applyClaudeEdits('a', bytes('\ufeffa\n'), [{ old_string: 'a', new_string: 'x' }])).toThrow(
      /byte-order mark/,
    );
    expect(() => applyClaudeEdits('a', bytes('text\n'), [{ old_string: '', new_string: 'x' }])).toThrow(
      /already exists/,
    );
  });
});

describe("Claude Code's settings.json", () => {
  const command: HookCommand = {
    argv: [],
    nodeArgv: [],
    line: '/usr/bin/node /opt/editgate/dist/cli/main.js hook claude-code --approve agent',
    timeoutSeconds: 600,
    approve: 'agent',
    failOpen: false,
  };
  const mine = JSON.stringify({
    model: 'opus',
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }] },
  });

  it("adds editgate's groups after the person's, once, and removes only them", () => {
    const added = installer.add(mine, command);
    const settings = JSON.parse(added);
    expect(settings.model).toBe('opus');
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse[1]).toEqual({
      matcher: 'Edit|MultiEdit|Write|NotebookEdit',
      hooks: [
        {
          type: 'command',
          command: command.line,
          timeout: 600,
          onFailure: 'block',
          statusMessage: 'editgate: checking the change',
        },
      ],
    });
    const open = JSON.parse(installer.add(undefined, { ...command, failOpen: true }));
    expect(open.hooks.PreToolUse[0].hooks[0].onFailure).toBeUndefined();
    expect(settings.hooks.PostToolUse).toHaveLength(1);
    // The session's start runs the command (it starts the hook server); its end lets the server stop.
    expect(settings.hooks.SessionStart).toEqual([
      { hooks: [{ type: 'command', command: command.line, timeout: 60 }] },
    ]);
    expect(settings.hooks.SessionEnd).toEqual(settings.hooks.SessionStart);
    // The prompt hook (a session review's reasons): every prompt, no matcher, never blocks the prompt.
    expect(settings.hooks.UserPromptSubmit).toEqual([
      { hooks: [{ type: 'command', command: `${command.line} --fail-open`, timeout: 30 }] },
    ]);
    expect(installer.add(added, command)).toBe(added);
    expect(installer.find(added)).toHaveLength(5);
    expect(installer.find(added)[4]).toMatch(/^UserPromptSubmit \(every prompt\): /);
    expect(installer.find(mine)).toEqual([]);
    expect(JSON.parse(installer.remove(added)!)).toEqual(JSON.parse(mine));
  });

  it('replaces an older entry of editgate (another mode) instead of adding a second', () => {
    const web = { ...command, line: command.line.replace('agent', 'web') };
    const twice = installer.add(installer.add(undefined, command), web);
    expect(installer.find(twice)).toEqual([
      ...Array(4).fill(expect.stringContaining('--approve web')),
      expect.stringContaining('--approve web --fail-open'),
    ]);
  });

  it("with the hook server's endpoint, the edit hooks are http hooks with the token, found and removed", () => {
    const token = 'c'.repeat(64);
    const http = { url: 'http://127.0.0.1:4321/hook/claude-code/agent', token };
    const added = installer.add(mine, { ...command, http });
    const settings = JSON.parse(added);
    expect(settings.hooks.PreToolUse[1]).toEqual({
      matcher: 'Edit|MultiEdit|Write|NotebookEdit',
      hooks: [
        {
          type: 'http',
          url: http.url,
          headers: { Authorization: `Bearer ${token}` },
          timeout: 600,
          onFailure: 'block',
          statusMessage: 'editgate: checking the change',
        },
      ],
    });
    expect(settings.hooks.PostToolUse[0].hooks[0].type).toBe('http');
    // The session's start and each prompt first prove who listens on the endpoint's port.
    expect(settings.hooks.SessionStart[0].hooks[0].command).toBe(`${command.line} --check-endpoint`);
    expect(settings.hooks.UserPromptSubmit[0].hooks[0].command).toBe(
      `${command.line} --fail-open --check-endpoint`,
    );
    // With command hooks (a --project install) there is no endpoint to check.
    const commands = JSON.parse(installer.add(undefined, command));
    expect(commands.hooks.SessionStart[0].hooks[0].command).toBe(command.line);
    const found = installer.find(added);
    expect(found).toContain(`PreToolUse (Edit|MultiEdit|Write|NotebookEdit): POST ${http.url}`);
    expect(found.join('\n')).not.toContain(token);
    // Back to command hooks (a --project install, say): the http entries are replaced, not kept beside.
    expect(installer.find(installer.add(added, command)).join('\n')).not.toContain('POST');
    expect(JSON.parse(installer.remove(added)!)).toEqual(JSON.parse(mine));
    const open = JSON.parse(installer.add(undefined, { ...command, http, failOpen: true }));
    expect(open.hooks.PreToolUse[0].hooks[0].onFailure).toBeUndefined();
    // Someone else's http hook on another address is not editgate's.
    const theirs = JSON.stringify({
      hooks: {
        PreToolUse: [{ hooks: [{ type: 'http', url: 'http://10.0.0.1:4321/hook/claude-code/agent' }] }],
      },
    });
    expect(installer.find(theirs)).toEqual([]);
  });

  it('refuses a settings file that is not a JSON object', () => {
    expect(() => installer.add('[1]', command)).toThrow(/not a JSON object/);
    expect(() => installer.add('{', command)).toThrow();
  });
});
