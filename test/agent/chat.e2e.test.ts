import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { type PtyRun, spawnCli } from '../cli/pty.js';
import { cliWorkspace } from '../cli/run-cli.js';
import { answerOnPage, LINK, listedChanges } from '../web/page-api.js';
import { deadServerURL, type FakeModelServer, startFakeModelServer } from './fake-model-server.js';

// editgate chat as a person meets it: the built CLI in a real pseudo-terminal (node-pty + headless xterm),
// talking to the fake model server, once per protocol family.

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const APP = 'export const a = 1;\nexport const b = 2;\n';
const READ = { name: 'read_file', input: { file_path: 'app.ts' } };
const EDIT_B = {
  name: 'edit_file',
  input: { file_path: 'app.ts', old_string: 'b = 2', new_string: 'b = 3' },
};
const EDIT_A = {
  name: 'edit_file',
  input: { file_path: 'app.ts', old_string: 'a = 1', new_string: 'a = 10' },
};
const PROMPT_READY = '/help for commands and keys';
const CARD_KEYS = 'Esc no, and stop the turn';

const FAMILIES = [
  { name: 'Anthropic Messages', provider: 'anthropic' },
  { name: 'OpenAI-compatible Chat Completions', provider: 'openai-compatible' },
] as const;

function workspace(files: Record<string, string> = { 'app.ts': APP }) {
  const ws = cliWorkspace(files);
  const config = join(ws.stateDir, '..', 'config');
  mkdirSync(config, { recursive: true });
  return { ...ws, config };
}

type Workspace = ReturnType<typeof workspace>;

function chat(
  ws: Workspace,
  server: FakeModelServer | string,
  provider: string,
  options: { args?: string[]; cols?: number; rows?: number } = {},
): PtyRun {
  const baseURL = typeof server === 'string' ? server : server.baseURL;
  const run = spawnCli(
    ['chat', '--model', `${provider}/fake`, '--base-url', baseURL, ...(options.args ?? [])],
    {
      cwd: ws.root,
      stateDir: ws.stateDir,
      cols: options.cols ?? 100,
      rows: options.rows ?? 40,
      env: { XDG_CONFIG_HOME: ws.config, ANTHROPIC_API_KEY: 'test-key' },
    },
  );
  runs.push(run);
  return run;
}

async function send(run: PtyRun, text: string): Promise<void> {
  await run.waitForText(PROMPT_READY);
  run.write(`${text}\r`);
}

/** Every text block of every message a request carried, flattened (both protocols). */
function said(server: FakeModelServer, n: number): string {
  return JSON.stringify(server.requests[n - 1]?.body.messages ?? []);
}

function rowOf(run: PtyRun, text: string): number {
  return run.lines().findIndex((line) => line.includes(text));
}

describe.each(FAMILIES)('editgate chat ($name)', ({ provider }) => {
  it('shows the diff segment before the card; y writes; the card leaves one line', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { text: 'Let me read it.', calls: [READ] },
      { calls: [EDIT_B] },
      { text: 'b is now 3.' },
    ]);
    const run = chat(ws, server, provider);
    await send(run, 'Set b to 3');
    await run.waitForText(CARD_KEYS);
    expect(rowOf(run, '⚙ read_file app.ts · 2 lines')).toBeGreaterThan(0);
    const diffRow = rowOf(run, '+ export const b = 3;');
    const cardRow = rowOf(run, 'Apply this edit to app.ts?');
    expect(diffRow).toBeGreaterThan(rowOf(run, '⚙ edit_file app.ts'));
    expect(cardRow).toBeGreaterThan(diffRow);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    await run.answer('y');
    await run.waitForText('b is now 3.');
    expect(run.text()).toContain('✓ applied (you: once)');
    expect(run.text()).not.toContain('Apply this edit to app.ts?');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
    expect(run.raw()).not.toContain('\x1b[3J');
  });

  it('r with a reason: nothing written, and the reason is in the next request', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { calls: [READ] },
      { calls: [EDIT_B] },
      { text: 'Understood.' },
    ]);
    const run = chat(ws, server, provider);
    await send(run, 'Set b to 3');
    await run.waitForText(CARD_KEYS);
    await run.answer('r');
    await run.waitForText('Reason (Enter to send');
    run.write('keep b, change a instead\r');
    await run.waitForText('Understood.');
    expect(run.text()).toContain('✗ denied (you): keep b, change a instead');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    expect(said(server, 3)).toContain('The user denied this edit: keep b, change a instead');
  });

  it('A, then a later edit: its diff and what approved it, no card', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { calls: [READ] },
      { calls: [EDIT_B] },
      { calls: [EDIT_A] },
      { text: 'Both done.' },
    ]);
    const run = chat(ws, server, provider);
    await send(run, 'Change a and b');
    await run.waitForText(CARD_KEYS);
    await run.answer('A');
    await run.waitForText('Both done.');
    const text = run.text();
    expect(text).toContain('✓ applied (you: all edits this session)');
    expect(text).toContain('+ export const a = 10;');
    expect(text).toContain('✓ applied (allowed earlier this session)');
    expect(text.match(/Apply this edit/g)).toBeNull();
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('export const a = 10;\nexport const b = 3;\n');
  });

  it('/undo restores every file the last turn changed, byte for byte', async () => {
    const original = 'export const a = 1;\r\nexport const b = 2;\r\n';
    const ws = workspace({ 'app.ts': original, 'notes.txt': 'keep\n' });
    const bash = { name: 'bash', input: { command: 'printf "gone\\n" > notes.txt && echo made > new.txt' } };
    const server = await startFakeModelServer([
      { calls: [READ] },
      { calls: [EDIT_B, bash] },
      { text: 'Done.' },
    ]);
    const run = chat(ws, server, provider, { args: ['--yes'] });
    await send(run, 'Do it');
    await run.waitForText('Done.');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(
      'export const a = 1;\r\nexport const b = 3;\r\n',
    );
    expect(readFileSync(join(ws.root, 'notes.txt'), 'utf8')).toBe('gone\n');
    expect(run.text()).toContain('+ made');
    run.write('/undo\r');
    await run.waitForText('↶ Restored');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(original);
    expect(readFileSync(join(ws.root, 'notes.txt'), 'utf8')).toBe('keep\n');
    expect(() => readFileSync(join(ws.root, 'new.txt'))).toThrow();
  });
});

describe('editgate chat', () => {
  it('Esc mid-stream: the partial reply stays, and the next request carries the "did not run" result', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { text: 'I will change b now.', calls: [EDIT_B], hold: true },
      { text: 'Stopped, as you asked.' },
    ]);
    const run = chat(ws, server, 'anthropic');
    await send(run, 'Set b to 3');
    await run.waitForText('I will change b now.');
    run.write('\x1b');
    await run.waitForText('Interrupted');
    expect(run.text()).toContain('⎋ interrupted');
    run.write('go on\r');
    await run.waitForText('Stopped, as you asked.');
    const next = said(server, 2);
    expect(next).toContain('This tool call did not run: the user interrupted the turn.');
    expect(next).toContain('I will change b now.');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
  });

  it('the scrollback keeps every earlier line after a resize mid-stream; no ESC[3J is ever written', async () => {
    const ws = workspace();
    const lines = Array.from(
      { length: 60 },
      (_, i) => `line ${i} of the reply, long enough to wrap when the terminal gets narrow`,
    );
    const server = await startFakeModelServer([{ text: `${lines.slice(0, 30).join('\n')}\n`, hold: true }]);
    const run = chat(ws, server, 'openai-compatible', { cols: 100, rows: 20 });
    await send(run, 'Talk');
    await run.waitForText('line 29 of the reply');
    run.resize(60, 20);
    run.resize(90, 15);
    run.write('\x1b');
    await run.waitForText('Interrupted');
    const text = run.text();
    for (let i = 0; i < 30; i++) expect(text).toContain(lines[i]);
    expect(text).toContain('› Talk');
    expect(run.raw()).not.toContain('\x1b[3J');
    expect(run.raw()).not.toContain('\x1b[2J');
  });

  it('a dead server is a clear message naming the URL; the chat stays open', async () => {
    const ws = workspace();
    const dead = await deadServerURL();
    const run = chat(ws, dead, 'openai-compatible');
    await send(run, 'hello');
    await run.waitForText('Cannot reach the model server');
    expect(run.text()).toContain(`Cannot reach the model server at ${dead} (connection refused).`);
    run.write('\x04');
    expect(await run.exited()).toBe(0);
  });

  it('a missing key names the variable before anything starts', async () => {
    const ws = workspace();
    const run = spawnCli(['chat', '--model', 'anthropic/claude-x'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      env: { XDG_CONFIG_HOME: ws.config, ANTHROPIC_API_KEY: undefined },
    });
    runs.push(run);
    expect(await run.exited()).toBe(2);
    expect(run.text()).toContain('ANTHROPIC_API_KEY is not set');
  });

  it('a file changed on disk while the card is open is refused as STALE, and the model is told to read it again', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { calls: [READ] },
      { calls: [EDIT_B] },
      { text: 'I will read it again.' },
    ]);
    const run = chat(ws, server, 'openai-compatible');
    await send(run, 'Set b to 3');
    await run.waitForText(CARD_KEYS);
    writeFileSync(join(ws.root, 'app.ts'), 'export const a = 1;\nexport const b = 2; // by hand\n');
    await run.answer('y');
    await run.waitForText('I will read it again.');
    expect(run.text()).toContain('not applied: the file changed on disk');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(
      'export const a = 1;\nexport const b = 2; // by hand\n',
    );
    expect(said(server, 3)).toMatch(/STALE/);
  });
});

describe('editgate chat: cards, the pager and the input', () => {
  it('a command is asked about with its own card; y runs it and its output and changed files are shown', async () => {
    const ws = workspace();
    const bash = {
      name: 'bash',
      input: { command: 'echo ran && echo new > made.txt', description: 'make a file' },
    };
    const server = await startFakeModelServer([{ calls: [bash] }, { text: 'Made it.' }]);
    const run = chat(ws, server, 'openai-compatible');
    await send(run, 'Make a file');
    await run.waitForText('Run this command?');
    expect(run.text()).toContain('$ echo ran && echo new > made.txt');
    expect(run.text()).toContain('make a file');
    expect(() => readFileSync(join(ws.root, 'made.txt'))).toThrow();
    await run.answer('y');
    await run.waitForText('Made it.');
    const text = run.text();
    expect(text).toContain('│ ran');
    expect(text).toContain('/dev/null → made.txt  created');
    expect(text).toContain('✓ exit 0 · 1 file changed');
    expect(readFileSync(join(ws.root, 'made.txt'), 'utf8')).toBe('new\n');
  });

  it('Esc on a card: no, and the turn stops; the calls left are answered "did not run"', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { calls: [READ] },
      { calls: [EDIT_B, EDIT_A] },
      { text: 'Stopped.' },
    ]);
    const run = chat(ws, server, 'anthropic');
    await send(run, 'Change both');
    await run.waitForText(CARD_KEYS);
    run.write('\x1b');
    await run.waitForText('Turn stopped');
    expect(run.text()).toContain('✗ denied (you)');
    expect(run.text()).toContain('⚙ edit_file app.ts · did not run');
    expect(server.requests).toHaveLength(2);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    run.write('ok\r');
    await run.waitForText('Stopped.');
    expect(said(server, 3)).toContain('This tool call did not run: the user stopped the turn.');
  });

  it('v opens the whole diff in the pager (the alternate screen); q comes back to the card', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([{ calls: [READ] }, { calls: [EDIT_B] }, { text: 'ok' }]);
    const run = chat(ws, server, 'openai-compatible');
    await send(run, 'Set b');
    await run.waitForText(CARD_KEYS);
    await run.answer('v');
    await run.waitFor(() => run.bufferType() === 'alternate', 'the pager');
    await run.waitForText('+ export const b = 3;');
    run.write('q');
    await run.waitFor(() => run.bufferType() === 'normal', 'the transcript again');
    await run.waitForText(CARD_KEYS);
    await run.answer('y');
    await run.waitForText('✓ applied (you: once)');
  });

  it('Ctrl-J adds a line, up recalls the last message, Ctrl-C clears, Ctrl-C twice exits', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([{ text: 'First.' }, { text: 'Second.' }]);
    const run = chat(ws, server, 'openai-compatible');
    await run.waitForText(PROMPT_READY);
    run.write('line one\nline two\r');
    await run.waitForText('First.');
    expect(server.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'line one\nline two' });
    await run.waitForText('Ctrl-J new line');
    // The input is the last rows of the screen (the transcript above also shows the message once).
    const input = () =>
      run
        .screen()
        .filter((line) => line !== '')
        .slice(-2)
        .join('\n');
    run.write('\x1b[A');
    await run.waitFor(() => input() === '› line one\n  line two', 'the recalled message');
    run.write('\x03');
    await run.waitFor(() => input().endsWith('\n›'), 'the cleared input');
    run.write('\x03');
    await run.waitForText('Press Ctrl-C again to exit');
    run.write('\x03');
    expect(await run.exited()).toBe(0);
    expect(run.raw()).not.toContain('\x1b[3J');
  });
});

describe('editgate chat --approve web', () => {
  it('the review page answers the card: the transcript says so, and the page’s answer is what is written', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([
      { calls: [READ] },
      { calls: [EDIT_B] },
      { text: 'b is now 3.' },
    ]);
    const run = chat(ws, server, 'anthropic', { cols: 200, args: ['--approve', 'web'] });
    await send(run, 'Set b to 3');
    await run.waitForText(CARD_KEYS);
    const link = LINK.exec(run.text().replace(/\s+/g, ' '))?.[0];
    expect(link, 'the link is in the transcript').toBeDefined();
    const { answer } = await answerOnPage(link!, { decision: 'deny', reason: 'not b, a' });
    expect(answer.status).toBe(200);
    await run.waitForText('(answered in the browser)');
    await run.waitForText('✗ denied (you): not b, a');
    expect(run.text()).toContain('✗ No: not b, a (answered in the browser)');
    expect(run.text()).not.toContain(CARD_KEYS);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP);
    await run.waitForText('b is now 3.');
    expect(said(server, 3)).toContain('The user denied this edit: not b, a');
  });

  it('answered in the chat, the page shows who answered', async () => {
    const ws = workspace();
    const server = await startFakeModelServer([{ calls: [READ] }, { calls: [EDIT_B] }, { text: 'Done.' }]);
    const run = chat(ws, server, 'anthropic', { cols: 200, args: ['--approve', 'web'] });
    await send(run, 'Set b to 3');
    await run.waitForText(CARD_KEYS);
    const link = LINK.exec(run.text().replace(/\s+/g, ' '))![0];
    await run.answer('y');
    await run.waitForText('Done.');
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(APP.replace('b = 2', 'b = 3'));
    const changes = await listedChanges(link);
    expect(changes[0]).toMatchObject({
      status: 'answered',
      outcome: { by: 'in the terminal', decision: 'once' },
    });
  });
});
