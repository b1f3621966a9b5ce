/**
 * Qwen Code's hooks (0.24.4): the bytes its edit and write_file leave, worked out as its source does; its
 * Claude-style events read; editgate's answers in its protocol; its settings.json entries.
 */
import { describe, expect, it } from 'vitest';
import { adapter, installer } from '../../src/hooks/agents/qwen-code.js';
import { applyQwenEdit, applyQwenWriteFile } from '../../src/hooks/agents/qwen-code-edits.js';

const P = '/p/notes.txt';
const b = (text: string) => Buffer.from(text, 'utf8');
const edit = (current: string | null, old_string: string, new_string: string, replace_all?: boolean) =>
  applyQwenEdit(P, current === null ? null : b(current), {
    old_string,
    new_string,
    ...(replace_all ? { replace_all } : {}),
  }).toString('utf8');

describe("Qwen Code's edit, worked out as it writes", () => {
  it('replaces the one occurrence literally', () => {
    expect(edit('alpha\nbeta\n', 'beta', '$&!')).toBe('alpha\n$&!\n');
  });

  it('deleting a line takes its line break too (maybeAugmentOldStringForDeletion)', () => {
    expect(edit('a\nb\nc\n', 'b', '')).toBe('a\nc\n');
  });

  it('replace_all replaces every one; several without it are refused', () => {
    expect(edit('x x\n', 'x', 'y', true)).toBe('y y\n');
    expect(() => edit('x x\n', 'x', 'y')).toThrow(/occurs 2 times.*replace_all/);
  });

  it('writes every line break as CRLF in a file that had any, and keeps a byte-order mark', () => {
    expect(edit('a\r\nb\r\n', 'a\nb', 'A\nB')).toBe('A\r\nB\r\n');
    expect(applyQwenEdit(P, b('\uFEFFa\n'), { old_string: 'a', new_string: 'b' })).toEqual(b('\uFEFFb\n'));
  });

  it('refuses rather than guess where Qwen Code would match loosely (trailing spaces)', () => {
    expect(() => edit('a  \nb\n', 'a\nb', 'c')).toThrow(/not found.*exactly/);
  });

  it('creates a missing file only with an empty old_string; refuses no-ops', () => {
    expect(edit(null, '', 'n\n')).toBe('n\n');
    expect(() => edit(null, 'x', 'y')).toThrow(/does not exist/);
    expect(() => edit('a\n', 'a', 'a')).toThrow(/same/);
  });
});

describe("Qwen Code's write_file", () => {
  it('writes the content, with CRLF and a byte-order mark kept from the file it overwrites', () => {
    expect(applyQwenWriteFile(P, null, 'a\n')).toEqual(b('a\n'));
    expect(applyQwenWriteFile(P, b('\uFEFFx\r\n'), 'a\nb\n')).toEqual(b('\uFEFFa\r\nb\r\n'));
  });
});

describe("Qwen Code's events and editgate's answers", () => {
  const event = (name: string, tool: string, input: Record<string, unknown>) => ({
    session_id: 's',
    cwd: '/p',
    hook_event_name: name,
    tool_name: tool,
    tool_input: input,
    tool_use_id: 'toolu_1',
  });

  it('reads PreToolUse edit as a write keyed by session and tool_use_id, PostToolUse as its settle', () => {
    const read = adapter.parse(
      event('PreToolUse', 'edit', { file_path: '/p/a', old_string: 'a', new_string: 'b' }),
    );
    expect(read).toMatchObject({
      phase: 'pre',
      read: { kind: 'write', tool: 'edit', key: { session: 's', call: 'toolu_1' } },
    });
    expect(adapter.parse(event('PostToolUse', 'edit', { file_path: '/p/a' }))).toMatchObject({
      phase: 'post',
      read: { kind: 'settle', paths: ['/p/a'] },
    });
    expect(adapter.parse(event('PreToolUse', 'read_file', { file_path: '/p/a' }))).toMatchObject({
      read: { kind: 'pass' },
    });
  });

  it('answers with permissionDecision and its reason', () => {
    expect(JSON.parse(adapter.pre({ kind: 'deny', reason: 'no' }).stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'no',
      },
    });
    expect(adapter.pre({ kind: 'pass' }).stdout).toBe('');
  });

  it("has no way to carry the person's version (Qwen Code reads no changed input), so the runner refuses", () => {
    expect(adapter.revise).toBeUndefined();
  });

  it('fails closed with exit code 2 and the reason on standard error', () => {
    expect(adapter.failed('broken')).toEqual({ stdout: '', stderr: 'broken\n', exitCode: 2 });
  });

  it('tells the model after the write through additionalContext', () => {
    expect(JSON.parse(adapter.post({ matches: false, message: 'm' }).stdout)).toEqual({
      systemMessage: 'm',
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'm' },
    });
  });
});

describe("editgate's entries in Qwen Code's settings.json", () => {
  const command = {
    argv: ['editgate', 'hook', 'qwen-code', '--approve', 'agent'],
    line: 'editgate hook qwen-code --approve agent',
    timeoutSeconds: 600,
  };
  it('adds PreToolUse and PostToolUse groups with the timeout in seconds, and removes only them', () => {
    const text = installer.add(undefined, command as never);
    const settings = JSON.parse(text);
    expect(Object.keys(settings.hooks)).toEqual(['PreToolUse', 'PostToolUse', 'UserPromptSubmit']);
    expect(settings.hooks.UserPromptSubmit[0]).toEqual({
      hooks: [
        {
          name: 'editgate-review-notes',
          type: 'command',
          command: 'editgate hook qwen-code --approve agent --fail-open',
          timeout: 30,
        },
      ],
    });
    expect(settings.hooks.PreToolUse[0].hooks[0]).toMatchObject({
      command: 'editgate hook qwen-code --approve agent',
      timeout: 600,
    });
    expect(installer.file('user', { root: '/r', home: '/h', env: {} })).toBe('/h/.qwen/settings.json');
    expect(JSON.parse(installer.remove(text)!)).toEqual({});
  });
});
