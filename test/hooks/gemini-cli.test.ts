/**
 * Gemini CLI's hooks (0.61.0): the bytes its replace and write_file leave, worked out as its source does;
 * its events read; editgate's answers in its protocol; its settings.json entries added and removed.
 */
import { describe, expect, it } from 'vitest';
import { adapter, installer } from '../../src/hooks/agents/gemini-cli.js';
import { applyGeminiReplace, applyGeminiWriteFile } from '../../src/hooks/agents/gemini-cli-edits.js';

const P = '/p/notes.txt';
const b = (text: string) => Buffer.from(text, 'utf8');
const replace = (current: string | null, old_string: string, new_string: string, allow_multiple?: boolean) =>
  applyGeminiReplace(P, current === null ? null : b(current), {
    old_string,
    new_string,
    ...(allow_multiple ? { allow_multiple } : {}),
  }).toString('utf8');

describe("Gemini CLI's replace, worked out as it writes", () => {
  it('replaces the one occurrence, literally ($ patterns stay as typed)', () => {
    expect(replace('alpha\nbeta\n', 'beta', 'B$&$1')).toBe('alpha\nB$&$1\n');
  });

  it('replaces every occurrence with allow_multiple, and refuses several without it', () => {
    expect(replace('x\nx\n', 'x', 'y', true)).toBe('y\ny\n');
    expect(() => replace('x\nx\n', 'x', 'y')).toThrow(/occurs 2 times.*allow_multiple/);
  });

  it('keeps CRLF line ends: LF in old and new text still matches, and every break is written as CRLF', () => {
    expect(replace('a\r\nb\r\n', 'a\nb', 'A\nB')).toBe('A\r\nB\r\n');
  });

  it('keeps whether the file ended in a line break (restoreTrailingNewline)', () => {
    expect(replace('a\nb', 'b', 'c\n')).toBe('a\nc');
    expect(replace('a\nb\n', 'b\n', 'c')).toBe('a\nc\n');
  });

  it('keeps a byte-order mark', () => {
    expect(applyGeminiReplace(P, b('\uFEFFa\n'), { old_string: 'a', new_string: 'b' })).toEqual(
      b('\uFEFFb\n'),
    );
  });

  it('creates a missing file only with an empty old_string', () => {
    expect(replace(null, '', 'new\n')).toBe('new\n');
    expect(() => replace(null, 'x', 'y')).toThrow(/does not exist/);
    expect(() => replace('x', '', 'y')).toThrow(/already exists/);
  });

  it('refuses rather than guess where Gemini CLI would match loosely (indentation ignored)', () => {
    expect(() => replace('  if (x) {\n    y();\n  }\n', 'if (x) {\ny();', 'z')).toThrow(/not found.*exactly/);
  });

  it('refuses an edit that changes nothing, and bytes that are not UTF-8', () => {
    expect(() => replace('a\n', 'a', 'a')).toThrow(/same/);
    expect(() =>
      applyGeminiReplace(P, Buffer.from([0xff, 0x61]), { old_string: 'a', new_string: 'b' }),
    ).toThrow(/not UTF-8/);
  });
});

describe("Gemini CLI's write_file", () => {
  it('writes the content as given, and as CRLF over a file that had any', () => {
    expect(applyGeminiWriteFile(null, 'a\nb\n')).toEqual(b('a\nb\n'));
    expect(applyGeminiWriteFile(b('x\r\n'), 'a\nb\n')).toEqual(b('a\r\nb\r\n'));
    expect(applyGeminiWriteFile(b(''), 'a\n')).toEqual(b('a\n'));
  });
});

describe("Gemini CLI's events", () => {
  const event = (name: string, tool: string, input: Record<string, unknown>, extra = {}) => ({
    session_id: 's1',
    cwd: '/p',
    hook_event_name: name,
    tool_name: tool,
    tool_input: input,
    ...extra,
  });

  it('reads a BeforeTool replace as a write of one file, keyed by session, tool and file', () => {
    const read = adapter.parse(
      event('BeforeTool', 'replace', {
        file_path: 'notes.txt',
        old_string: 'a',
        new_string: 'b',
        instruction: 'x',
      }),
    );
    expect(read.phase).toBe('pre');
    if (read.phase !== 'pre' || read.read.kind !== 'write') throw new Error('not a write');
    expect(read.read.files.map((file) => file.path)).toEqual(['/p/notes.txt']);
    expect(read.read.key).toEqual({ session: 's1', call: 'replace\0/p/notes.txt' });
    const after = adapter.parse(
      event(
        'AfterTool',
        'replace',
        { file_path: '/p/notes.txt', old_string: 'a', new_string: 'b' },
        { tool_response: {} },
      ),
    );
    expect(after.phase === 'post' && after.read.kind === 'settle' && after.read.key).toEqual(read.read.key);
  });

  it('passes every other tool, and says nothing to other events', () => {
    expect(adapter.parse(event('BeforeTool', 'read_file', { file_path: 'x' }))).toMatchObject({
      read: { kind: 'pass' },
    });
    expect(adapter.parse({ hook_event_name: 'SessionStart', cwd: '/p' })).toEqual({
      phase: 'other',
      cwd: '/p',
    });
  });

  it('throws a clear error for an event without a file path', () => {
    expect(() => adapter.parse(event('BeforeTool', 'replace', {}))).toThrow(/no file_path/);
  });
});

describe("editgate's answers in Gemini CLI's words", () => {
  it('deny: decision and reason (the model reads "Tool execution blocked: <reason>")', () => {
    expect(JSON.parse(adapter.pre({ kind: 'deny', reason: 'no' }).stdout)).toEqual({
      decision: 'deny',
      reason: 'no',
    });
  });

  it("allow with the person's version: the whole tool_input", () => {
    const reply = JSON.parse(
      adapter.pre({ kind: 'allow', updatedInput: { file_path: 'f', old_string: 'a', new_string: 'b' } })
        .stdout,
    );
    expect(reply).toEqual({
      decision: 'allow',
      hookSpecificOutput: { tool_input: { file_path: 'f', old_string: 'a', new_string: 'b' } },
    });
  });

  it('revise: write_file carries the whole text, replace one unique replacement with all its fields', () => {
    const file = { path: '/p/f', before: 'a\nb\nc\n', proposed: 'a\nB\nc\n', approved: 'a\nBB\nc\n' };
    expect(adapter.revise?.({ file_path: 'f', content: 'x' }, [file])).toEqual({
      file_path: 'f',
      content: 'a\nBB\nc\n',
    });
    expect(
      adapter.revise?.({ file_path: 'f', old_string: 'b', new_string: 'B', instruction: 'i' }, [file]),
    ).toEqual({
      file_path: 'f',
      instruction: 'i',
      old_string: 'b\n',
      new_string: 'BB\n',
    });
  });

  it('bytes that differ after the write: additionalContext for the model, systemMessage for the person', () => {
    const reply = JSON.parse(adapter.post({ matches: false, message: 'differs' }).stdout);
    expect(reply).toEqual({
      systemMessage: 'differs',
      hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: 'differs' },
    });
    expect(adapter.post({ matches: true }).stdout).toBe('');
  });

  it('a failed hook denies, with exit code 2 as well (Gemini CLI lets the tool run on exit 1)', () => {
    const reply = adapter.failed('broken');
    expect(reply.exitCode).toBe(2);
    expect(JSON.parse(reply.stdout)).toEqual({ decision: 'deny', reason: 'broken' });
  });
});

describe("editgate's entries in Gemini CLI's settings.json", () => {
  const command = {
    argv: ['editgate', 'hook', 'gemini-cli', '--approve', 'agent'],
    line: 'editgate hook gemini-cli --approve agent',
    timeoutSeconds: 600,
  };
  const place = { root: '/proj', home: '/home/me', env: {} };

  it('lives in .gemini/settings.json of the project or the home folder', () => {
    expect(installer.file('project', place)).toBe('/proj/.gemini/settings.json');
    expect(installer.file('user', place)).toBe('/home/me/.gemini/settings.json');
  });

  it('adds BeforeTool and AfterTool groups (timeout in ms), keeps the rest, and installs once however often run', () => {
    const mine = {
      model: { name: 'x' },
      hooks: {
        BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: 'mine.sh' }] }],
      },
    };
    const once = installer.add(JSON.stringify(mine), command as never);
    const settings = JSON.parse(once);
    expect(settings.model).toEqual({ name: 'x' });
    expect(settings.hooks.BeforeTool).toHaveLength(2);
    expect(settings.hooks.AfterTool[0]).toEqual({
      matcher: '^(replace|write_file)$',
      hooks: [
        expect.objectContaining({
          type: 'command',
          command: 'editgate hook gemini-cli --approve agent',
          timeout: 600_000,
        }),
      ],
    });
    // BeforeAgent (every prompt): a session review's reasons, never blocking the prompt.
    expect(settings.hooks.BeforeAgent).toEqual([
      {
        hooks: [
          expect.objectContaining({
            type: 'command',
            command: 'editgate hook gemini-cli --approve agent --fail-open',
            timeout: 30_000,
          }),
        ],
      },
    ]);
    expect(installer.add(once, command as never)).toBe(once);
    expect(installer.find(once)).toHaveLength(3);
    const removed = JSON.parse(installer.remove(once)!);
    expect(removed).toEqual(mine);
  });

  it('refuses a settings file that is not JSON, saying what to do', () => {
    expect(() => installer.add('{ nope', command as never)).toThrow(/not valid JSON.*fix it/);
  });
});
