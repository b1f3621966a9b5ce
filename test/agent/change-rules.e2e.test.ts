/**
 * Rules on what a change does and secrets (#32) in `editgate chat -p`: the built CLI against the fake model
 * server, no terminal. --yes does not answer a change rule (no one to ask: refused, the rule named, to the
 * model too); a deny rule refuses with the rule named; a secret is masked in everything shown and in
 * everything sent back to the model.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { cliWorkspace, runCli } from '../cli/run-cli.js';
import { fakeGithubToken } from '../secret-fixtures.js';
import { startFakeModelServer } from './fake-model-server.js';

beforeAll(ensureBuilt, 300_000);

const BIG = 'a\nb\nc\nd\n';
const CONFIG = JSON.stringify({
  policy: {
    rules: [
      { path: '**', action: 'allow' },
      { change: { removedOver: 2 }, action: 'ask', name: 'big deletion' },
      { change: { lockfile: true }, action: 'deny' },
    ],
  },
});

function workspace(files: Record<string, string>) {
  const ws = cliWorkspace({ ...files, 'editgate.config.json': CONFIG });
  const config = join(ws.stateDir, '..', 'config');
  mkdirSync(config, { recursive: true });
  return { ...ws, env: { XDG_CONFIG_HOME: config, ANTHROPIC_API_KEY: 'test-key' } };
}

async function chat(
  ws: ReturnType<typeof workspace>,
  call: { name: string; input: Record<string, unknown> },
) {
  const server = await startFakeModelServer([
    { text: 'Reading.', calls: [{ name: 'read_file', input: { file_path: call.input.file_path } }] },
    { calls: [call] },
    { text: 'Done.' },
  ]);
  const result = await runCli(
    ['chat', '--model', 'openai-compatible/fake', '--base-url', server.baseURL, '--yes', '-p', 'Do it'],
    { cwd: ws.root, stateDir: ws.stateDir, env: ws.env },
  );
  // What editgate sent back to the model: every tool result (Chat Completions' "tool" messages).
  const toolResults = server.requests
    .flatMap((request) => (request.body as { messages: { role: string; content: unknown }[] }).messages)
    .filter((message) => message.role === 'tool');
  return { result, sentToModel: JSON.stringify(toolResults) };
}

describe('editgate chat -p and change rules', () => {
  it('--yes does not answer a change rule: refused with the rule named, on screen and to the model', async () => {
    const ws = workspace({ 'big.txt': BIG });
    const { result, sentToModel } = await chat(ws, {
      name: 'write_file',
      input: { file_path: 'big.txt', content: 'x\n' },
    });
    expect(result.stderr).toContain('Asked by rule:big deletion');
    expect(sentToModel).toContain('rule:big deletion asks a person');
    expect(readFileSync(join(ws.root, 'big.txt'), 'utf8')).toBe(BIG);
  });

  it('a deny rule refuses with the rule named', async () => {
    const ws = workspace({ 'package-lock.json': '{}\n' });
    const { sentToModel } = await chat(ws, {
      name: 'write_file',
      input: { file_path: 'package-lock.json', content: '{"a":1}\n' },
    });
    expect(sentToModel).toContain('(rule:lockfile)');
    expect(readFileSync(join(ws.root, 'package-lock.json'), 'utf8')).toBe('{}\n');
  });

  it('a secret is stopped and masked: its value is on no output and goes back to the model nowhere', async () => {
    const token = fakeGithubToken();
    const ws = workspace({ 'app.ts': 'const a = 1;\n' });
    const { result, sentToModel } = await chat(ws, {
      name: 'edit_file',
      input: { file_path: 'app.ts', old_string: 'a = 1', new_string: `a = "${token}"` },
    });
    expect(result.stderr).toContain('app.ts:1: Github token (ghp_****');
    expect(result.stderr).not.toContain(token);
    expect(result.stdout).not.toContain(token);
    // The model's own call holds the token (it wrote it); no tool result does.
    expect(sentToModel).not.toContain(token);
    expect(sentToModel).toContain('app.ts:1: Github token');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 1;\n');
  });
});
