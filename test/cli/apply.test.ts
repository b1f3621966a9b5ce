import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { cliWorkspace, runCli } from './run-cli.js';

// editgate apply as a harness or a script runs it: calls as JSON on standard input or in a file, no
// terminal (so changes need --yes or a policy rule), one result per call, documented exit codes.

beforeAll(ensureBuilt, 120_000);

const APP = 'const a = 1;\nconst b = 2;\n';
const READ = { file_path: 'app.ts' };
const EDIT = { file_path: 'app.ts', old_string: 'a = 1', new_string: 'a = 42' };

const lines = (...values: unknown[]) => `${values.map((value) => JSON.stringify(value)).join('\n')}\n`;
const jsonLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('editgate apply', () => {
  it('runs read_file then edit_file from JSON Lines in one session (--yes), printing each call and result', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = await runCli(['apply', '--yes'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: lines({ name: 'read_file', input: READ }, { name: 'edit_file', input: EDIT }),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 42;\nconst b = 2;\n');
    const out = run.stdout.split('\n');
    expect(out[0]).toBe('[line 1] read_file app.ts');
    expect(out).toContain('     1\tconst a = 1;');
    expect(out).toContain('[line 2] edit_file app.ts');
    expect(out).toContain('+const a = 42;');
    expect(run.stdout).toContain('Approved by --yes.');
    expect(run.stdout).toMatch(/Edited app\.ts: 1 replacement/);
  });

  it("keeps the config's read-before-edit rule: an edit with no read first is refused (exit 1)", async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = await runCli(['apply', '-', '--yes'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: lines({ name: 'edit_file', input: EDIT }),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('NOT_READ');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });

  it('--json: one line per call with its id and the reply for each API form', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const anthropic = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading first.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: READ },
      ],
    };
    const openAIChat = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'edit_file', arguments: JSON.stringify(EDIT) } },
      ],
    };
    const responses = {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_2',
      name: 'edit_file',
      arguments: JSON.stringify({ file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' }),
    };
    const plain = { name: 'read_file', arguments: { file_path: 'app.ts' } };
    const run = await runCli(['apply', '--json', '--yes'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: lines(anthropic, openAIChat, responses, plain),
    });
    expect(run.code).toBe(0);
    const results = jsonLines(run.stdout);
    expect(results).toHaveLength(4);
    const [read, edit, edit2, plainRead] = results as Array<Record<string, unknown>>;
    expect(read).toMatchObject({ id: 'toolu_1', where: 'line 1, content[1]', tool: 'read_file', ok: true });
    expect(Object.keys(read!)).toEqual(['id', 'where', 'tool', 'ok', 'message', 'details', 'anthropic']);
    expect(read!.anthropic).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: read!.message,
      is_error: false,
    });
    expect(edit).toMatchObject({ id: 'call_1', tool: 'edit_file', ok: true });
    expect(edit!.openai).toEqual({ role: 'tool', tool_call_id: 'call_1', content: edit!.message });
    expect((edit!.details as { unifiedDiff: string }).unifiedDiff).toContain('+const a = 42;');
    expect(edit2).toMatchObject({ id: 'call_2', ok: true });
    expect(edit2!.openai).toEqual({
      type: 'function_call_output',
      call_id: 'call_2',
      output: edit2!.message,
    });
    expect(plainRead).toMatchObject({ id: null, where: 'line 4', tool: 'read_file', ok: true });
    expect(plainRead).not.toHaveProperty('anthropic');
    expect(plainRead).not.toHaveProperty('openai');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 42;\nconst b = 3;\n');
  });

  it('a failed Anthropic call: is_error true, code set, the message on the reply', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = await runCli(['apply', '--json', '--yes'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: lines({
        type: 'tool_use',
        id: 'toolu_9',
        name: 'read_file',
        input: { file_path: 'missing.ts' },
      }),
    });
    expect(run.code).toBe(1);
    const [result] = jsonLines(run.stdout);
    expect(result).toMatchObject({ id: 'toolu_9', ok: false, code: 'FILE_NOT_FOUND' });
    expect(result!.anthropic).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_9',
      content: result!.message,
      is_error: true,
    });
  });

  it('malformed JSON: exit 2, the line number and what to send; the lines after it still run', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const stdin = `${JSON.stringify({ name: 'read_file', input: READ })}\n{"name": "edit_file", input}\n${JSON.stringify({ name: 'edit_file', input: EDIT })}\n`;
    const run = await runCli(['apply', '--yes'], { cwd: ws.root, stateDir: ws.stateDir, stdin });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^editgate apply: line 2: not valid JSON \(.+\)\. Send each tool call as JSON, e\.g\. \{"name"/m,
    );
    expect(run.stderr).toContain('the next lines still run');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 42;\nconst b = 2;\n');

    const json = await runCli(['apply', '--json'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: 'read_file app.ts\n',
    });
    expect(json.code).toBe(2);
    expect(jsonLines(json.stdout)).toEqual([
      expect.objectContaining({ id: null, where: 'line 1', tool: null, ok: false, code: 'INVALID_INPUT' }),
    ]);
  });

  it('OpenAI arguments that are not JSON: exit 2, and the answer for that call id', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const call = {
      id: 'call_7',
      type: 'function',
      function: { name: 'read_file', arguments: '{"file_path": app.ts}' },
    };
    const run = await runCli(['apply', '--json'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: lines(call),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(2);
    const [result] = jsonLines(run.stdout);
    expect(result).toMatchObject({ id: 'call_7', tool: 'read_file', ok: false, code: 'INVALID_INPUT' });
    expect(result!.message).toMatch(/arguments are not valid JSON .* Call read_file again/);
    expect(result!.openai).toEqual({ role: 'tool', tool_call_id: 'call_7', content: result!.message });
  });

  it('an unknown tool: exit 2 and the list of tools, the other calls still run', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = await runCli(['apply'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: lines({ name: 'delete_file', input: READ }, { name: 'read_file', input: READ }),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('There is no tool named "delete_file"');
    expect(run.stderr).toContain(
      'read_file, write_file, edit_file, multi_edit, edit_lines, apply_patch, undo_edit',
    );
    expect(run.stdout).toContain('     1\tconst a = 1;');
  });

  it('a pretty-printed FILE of calls, relative to where the command runs, with --root', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const calls = [
      { name: 'read_file', input: READ },
      { type: 'tool_use', id: 't1', name: 'edit_file', input: EDIT },
    ];
    writeFileSync(join(ws.stateDir, '..', 'calls.json'), JSON.stringify(calls, null, 2));
    const run = await runCli(['apply', 'calls.json', '--root', ws.root, '--json', '-y'], {
      cwd: join(ws.stateDir, '..'),
      stateDir: ws.stateDir,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout).map((result) => [result.where, result.ok])).toEqual([
      ['lines 1-18, [0]', true],
      ['lines 1-18, [1]', true],
    ]);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 42;\nconst b = 2;\n');

    const missing = await runCli(['apply', 'nowhere.jsonl'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^editgate apply: cannot read nowhere\.jsonl: .*ENOENT.* Run editgate apply --help/,
    );
  });

  it('without --yes and without any terminal, the change is denied with how to approve (exit 3)', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const before = statSync(join(ws.root, 'app.ts')).mtimeMs;
    const run = await runCli(['apply'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: lines({ name: 'read_file', input: READ }, { name: 'edit_file', input: EDIT }),
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('there is no terminal to ask');
    expect(run.stderr).toContain('--yes');
    expect(run.stderr).toContain('policy rule');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    expect(statSync(join(ws.root, 'app.ts')).mtimeMs).toBe(before);
  });

  it('an input with no calls says so and succeeds; --help shows every form and the exit codes', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const empty = await runCli(['apply'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      stdin: lines({ role: 'assistant', content: [{ type: 'text', text: 'All done.' }] }),
    });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('no tool calls in the input');
    const help = await runCli(['apply', '--help'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(help.code).toBe(0);
    for (const form of [
      '"tool_use"',
      '"tool_calls"',
      '"function_call"',
      '"type": "function"',
      '"name": "read_file"',
    ]) {
      expect(help.stdout).toContain(form);
    }
    expect(help.stdout).toContain('JSON Lines');
    expect(help.stdout).toContain('Exit codes:');
    expect(help.stdout).toContain('--root DIR');
  });

  it('runs each line as it arrives: a harness waits for each result before sending the next call', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const child = spawn(process.execPath, [MAIN, 'apply', '--json', '--yes'], {
      cwd: ws.root,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, EDITGATE_STATE_DIR: ws.stateDir },
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const results = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => JSON.parse((await results.next()).value as string) as Record<string, unknown>;

    // The pipe stays open: a result can only come back if editgate does not wait for the end of its input.
    child.stdin.write(
      `${JSON.stringify({ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: READ })}\n`,
    );
    expect(await next()).toMatchObject({ id: 'toolu_1', ok: true });
    child.stdin.write(
      `${JSON.stringify({ type: 'tool_use', id: 'toolu_2', name: 'edit_file', input: EDIT })}\n`,
    );
    expect(await next()).toMatchObject({ id: 'toolu_2', ok: true });
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 42;\nconst b = 2;\n');
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});
