import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { cliWorkspace, runCli } from '../cli/run-cli.js';
import { answerOnPage, LINK } from '../web/page-api.js';
import { deadServerURL, startFakeModelServer } from './fake-model-server.js';

// `editgate chat -p "TASK"`: the built CLI against the fake model server, no terminal at all.

beforeAll(ensureBuilt, 120_000);

const APP = 'export const a = 1;\nexport const b = 2;\n';

function workspace(files: Record<string, string> = { 'app.ts': APP }) {
  const ws = cliWorkspace(files);
  const config = join(ws.stateDir, '..', 'config');
  mkdirSync(config, { recursive: true });
  const env = { XDG_CONFIG_HOME: config, ANTHROPIC_API_KEY: 'test-key' };
  return { ...ws, env };
}

const EDIT_TURNS = [
  { text: 'Reading.', calls: [{ name: 'read_file', input: { file_path: 'app.ts' } }] },
  {
    calls: [{ name: 'edit_file', input: { file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' } }],
  },
  { text: 'Changed b to 3.' },
];

describe('editgate chat -p', () => {
  it('with --yes: runs the task, prints the reply on stdout and the diff on stderr (Chat Completions)', async () => {
    const ws = workspace();
    const server = await startFakeModelServer(EDIT_TURNS);
    const result = await runCli(
      [
        'chat',
        '--model',
        'openai-compatible/fake',
        '--base-url',
        server.baseURL,
        '--yes',
        '-p',
        'Set b to 3',
      ],
      {
        cwd: ws.root,
        stateDir: ws.stateDir,
        env: ws.env,
      },
    );
    expect(result.stderr).toContain('-export const b = 2;');
    expect(result.stderr).toContain('+export const b = 3;');
    expect(result.stderr).toContain('✓ applied (--yes)');
    expect(result.stdout).toBe('Reading.Changed b to 3.\n');
    expect(result.code).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
    expect(server.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Set b to 3' });
  });

  it('without --yes or a policy rule a change is refused, the model is told how to allow it, exit 3 (Anthropic)', async () => {
    const ws = workspace();
    const server = await startFakeModelServer(EDIT_TURNS);
    const result = await runCli(
      ['chat', '--model', 'anthropic/fake', '--base-url', server.baseURL, '-p', 'Set b to 3'],
      {
        cwd: ws.root,
        stateDir: ws.stateDir,
        env: ws.env,
      },
    );
    expect(result.code).toBe(3);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    const denial = JSON.stringify(server.requests[2]!.body.messages);
    expect(denial).toContain('run editgate chat -p with --yes, or add a policy rule');
    // No one was asked, so no one said no: DENIED_NO_APPROVER, in the CLI's words (issue #14).
    expect(denial).toContain('DENIED_NO_APPROVER');
    expect(denial).toContain('there is no terminal to ask, so nothing was changed');
    expect(denial).not.toContain('DENIED_USER');
    expect(result.stderr).toContain('✗ not applied (no one to ask: --yes or a policy rule allows it)');
    expect(result.stderr).not.toContain('denied (you)');
  });

  it("a command no one can approve is DENIED_NO_APPROVER, not the user's no (exit 3)", async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { calls: [{ name: 'bash', input: { command: 'touch made.txt' } }] },
      { text: 'Could not run it.' },
    ]);
    const result = await runCli(
      ['chat', '--model', 'anthropic/fake', '--base-url', server.baseURL, '--json', '-p', 'Make a file'],
      { cwd: ws.root, stateDir: ws.stateDir, env: ws.env },
    );
    expect(result.code).toBe(3);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.find((event) => event.type === 'tool')).toMatchObject({
      name: 'bash',
      ok: false,
      code: 'DENIED_NO_APPROVER',
    });
    const told = JSON.stringify(server.requests[1]!.body.messages);
    expect(told).toContain('editgate chat -p runs without a person to ask');
    expect(told).not.toContain('DENIED_USER');
    expect(() => readFileSync(join(ws.root, 'made.txt'))).toThrow();
  });

  it('--json prints every event as a JSON line', async () => {
    const ws = workspace();
    const server = await startFakeModelServer(EDIT_TURNS);
    const result = await runCli(
      [
        'chat',
        '--model',
        'openai-compatible/fake',
        '--base-url',
        server.baseURL,
        '--yes',
        '--json',
        '-p',
        'Set b to 3',
      ],
      { cwd: ws.root, stateDir: ws.stateDir, env: ws.env },
    );
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.map((event) => event.type)).toEqual([
      'text',
      'tool',
      'change',
      'tool',
      'text',
      'text',
      'text',
      'text',
      'done',
    ]);
    expect(events.find((event) => event.type === 'change')).toMatchObject({
      path: 'app.ts',
      kind: 'modify',
      approvedBy: 'yes',
    });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'done', exitCode: 0 });
    expect(result.stderr).toBe('');
  });

  it('a dead server and a missing key are one clear line each', async () => {
    const ws = workspace();
    const dead = await deadServerURL();
    const down = await runCli(['chat', '--model', 'openai-compatible/m', '--base-url', dead, '-p', 'hi'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      env: ws.env,
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`Cannot reach the model server at ${dead} (connection refused).`);
    expect(down.stderr).not.toMatch(/\n\s+at /);
    const nokey = await runCli(['chat', '--model', 'anthropic/claude-x', '-p', 'hi'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      env: { ...ws.env, ANTHROPIC_API_KEY: '' },
    });
    expect(nokey.code).toBe(2);
    expect(nokey.stderr).toBe(
      'editgate chat: ANTHROPIC_API_KEY is not set: anthropic needs an API key. Export it (export ANTHROPIC_API_KEY=...) and run again, or name another variable with --api-key-env NAME.\n',
    );
  });
});

describe('editgate chat -p with "approve": "web" in the project config', () => {
  it('prints the review page’s link on standard error and waits for its answer; what the page allows is written', async () => {
    const ws = workspace();
    writeFileSync(join(ws.root, 'editgate.config.json'), '{ "approve": "web" }\n');
    const server = await startFakeModelServer(EDIT_TURNS);
    const child = spawn(
      process.execPath,
      [MAIN, 'chat', '--model', 'anthropic/fake', '--base-url', server.baseURL, '-p', 'Set b to 3'],
      { cwd: ws.root, env: { ...process.env, ...ws.env, EDITGATE_STATE_DIR: ws.stateDir, NO_COLOR: '1' } },
    );
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const link = await new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = LINK.exec(stderr);
        if (match) resolve(match[0]);
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toContain(`Review changes in your browser: ${link}`);
    const { answer } = await answerOnPage(link, { decision: 'once' });
    expect(answer.status).toBe(200);
    expect(await exited).toBe(0);
    expect(stdout).toBe('Reading.Changed b to 3.\n');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
  });
});
