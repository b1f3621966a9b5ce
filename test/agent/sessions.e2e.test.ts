import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { type PtyRun, spawnCli } from '../cli/pty.js';
import { cliWorkspace } from '../cli/run-cli.js';
import { type FakeModelServer, startFakeModelServer } from './fake-model-server.js';

// Saved sessions, --continue / --resume, and the slash commands, in a real pty against the fake server.

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const APP = 'export const a = 1;\nexport const b = 2;\n';
const SECRET = 'sk-ant-test-secret-never-saved';
const IDLE = 'Ctrl-J new line';

function workspace() {
  const ws = cliWorkspace({ 'app.ts': APP });
  const config = join(ws.stateDir, '..', 'config');
  mkdirSync(config, { recursive: true });
  return { ...ws, config };
}

function chat(
  ws: ReturnType<typeof workspace>,
  server: FakeModelServer,
  args: string[] = [],
  model = 'anthropic/fake',
): PtyRun {
  const run = spawnCli(['chat', '--model', model, '--base-url', server.baseURL, ...args], {
    cwd: ws.root,
    stateDir: ws.stateDir,
    cols: 100,
    rows: 40,
    env: { XDG_CONFIG_HOME: ws.config, ANTHROPIC_API_KEY: SECRET },
  });
  runs.push(run);
  return run;
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('chat sessions', () => {
  it('are saved as JSON Lines without the key; --continue resumes and names the files changed since', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { calls: [{ name: 'read_file', input: { file_path: 'app.ts' } }] },
      { text: 'I read app.ts.' },
      { text: 'We talked about app.ts before.' },
    ]);
    const first = chat(ws, server);
    await first.waitForText(IDLE);
    first.write('Look at app.ts\r');
    await first.waitForText('I read app.ts.');
    await first.waitForText(IDLE);
    first.write('\x04');
    expect(await first.exited()).toBe(0);

    const saved = filesUnder(ws.stateDir).filter(
      (path) => path.endsWith('.jsonl') && path.includes('/sessions/'),
    );
    expect(saved).toHaveLength(1);
    const records = readFileSync(saved[0]!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records[0]).toMatchObject({ t: 'session', v: 1, model: 'anthropic/fake' });
    expect(records.filter((record) => record.t === 'message').map((record) => record.message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    for (const path of filesUnder(ws.stateDir)) expect(readFileSync(path, 'utf8')).not.toContain(SECRET);

    writeFileSync(join(ws.root, 'app.ts'), 'export const a = 100;\n');
    const second = chat(ws, server, ['--continue']);
    await second.waitForText('Resumed session');
    await second.waitForText('Changed since that session: app.ts');
    second.write('What did we do?\r');
    await second.waitForText('We talked about app.ts before.');
    const request = JSON.stringify(server.requests[2]!.body.messages);
    expect(request).toContain('Look at app.ts');
    expect(request).toContain('I read app.ts.');
    expect(request).toContain('resumed from a saved session');
  });

  it('--resume without an id lists the saved sessions', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([{ text: 'First answer.' }]);
    const first = chat(ws, server);
    await first.waitForText(IDLE);
    first.write('The first question\r');
    await first.waitForText('First answer.');
    await first.waitForText(IDLE);
    first.write('\x04');
    await first.exited();
    const second = chat(ws, server, ['--resume']);
    await second.waitForText('Saved sessions');
    expect(second.text()).toMatch(/ 1\. \d{8}-\d{6}-[0-9a-f]{6} {2}anthropic\/fake {2}The first question/);
  });
});

describe('slash commands', () => {
  it('/model lists the server models and switches; /usage, /grants and /help answer', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([{ text: 'From beta.' }], { models: ['alpha', 'beta'] });
    const run = chat(ws, server, [], 'openai-compatible/alpha');
    await run.waitForText(IDLE);
    run.write('/model\r');
    await run.waitForText('Models of openai-compatible');
    expect(run.text()).toContain('● alpha');
    run.write('/model beta\r');
    await run.waitForText('Now talking to openai-compatible/beta.');
    run.write('hi\r');
    await run.waitForText('From beta.');
    expect(server.requests[0]!.body.model).toBe('beta');
    run.write('/usage\r');
    await run.waitForText('input tokens');
    expect(run.text()).toContain('$0 (a local model)');
    run.write('/grants\r');
    await run.waitForText('No grants');
    run.write('/help\r');
    await run.waitForText('/compact');
    run.write('/nope\r');
    await run.waitForText('Unknown command /nope');
  });
});

describe('more slash commands', () => {
  it('/grants lists an "a" answer and revokes it; /diff shows the session changes in the pager; /compact replaces the conversation', async () => {
    const ws = workspace();
    const read = { name: 'read_file', input: { file_path: 'app.ts' } };
    const edit = {
      name: 'edit_file',
      input: { file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' },
    };
    const server = await startFakeModelServer([
      { calls: [read] },
      { calls: [edit] },
      { text: 'Edited.' },
      { text: 'SUMMARY: b was set to 3 in app.ts.' },
      { text: 'Continuing from the summary.' },
    ]);
    const run = chat(ws, server, [], 'openai-compatible/m');
    await run.waitForText(IDLE);
    run.write('Set b to 3\r');
    await run.waitForText('Esc no, and stop the turn');
    await run.answer('a');
    await run.waitForText('Edited.');
    await run.waitForText(IDLE);
    run.write('/grants\r');
    await run.waitForText('edits to app.ts (a)');
    run.write('/grants revoke app.ts\r');
    await run.waitForText('Revoked: app.ts is asked about again.');

    run.write('/diff\r');
    await run.waitFor(() => run.bufferType() === 'alternate', 'the pager');
    await run.waitForText('+ export const b = 3;');
    run.write('q');
    await run.waitFor(() => run.bufferType() === 'normal', 'the transcript again');

    run.write('/compact\r');
    await run.waitForText('Conversation summarised');
    run.write('go on\r');
    await run.waitForText('Continuing from the summary.');
    const last = server.requests[4]!.body;
    expect(last.messages.filter((message: { role: string }) => message.role !== 'system')).toEqual([
      { role: 'user', content: 'go on' },
    ]);
    expect(JSON.stringify(last.messages[0])).toContain('SUMMARY: b was set to 3 in app.ts.');
  });
});
