import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TYPING_PAUSE_MS } from '../../src/terminal/typing-guard.js';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { greenish, type PtyOptions, type PtyRun, reddish, spawnCli, spawnInPty } from './pty.js';
import { cliWorkspace } from './run-cli.js';

// The approval question as a person meets it: the built CLI in a real pseudo-terminal, its output read back
// from a headless xterm (text, colours, which screen buffer shows), keys typed into the terminal.

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

type Workspace = ReturnType<typeof cliWorkspace>;

function cli(args: string[], ws: Workspace, options: Partial<PtyOptions> = {}): PtyRun {
  const run = spawnCli(args, { cwd: ws.root, stateDir: ws.stateDir, ...options });
  runs.push(run);
  return run;
}

/** The file's bytes and modification time: "untouched" means both are as they were. */
function snapshot(path: string): { bytes: Buffer; mtimeMs: number } {
  return { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs };
}

const APP = 'const a = 1;\nconst b = 2;\nconst c = 3;\n';
const EDIT = ['edit', 'app.ts', '--old', 'b = 2', '--new', 'b = 22'];
/** The last row of the question: once it is on screen, keys answer it. */
const KEYS_SHOWN = 'v view the whole diff';

describe('editgate edit in a terminal', () => {
  it('shows the call, the coloured diff with line numbers, and the question with its keys', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = cli(EDIT, ws);
    await run.waitForText(KEYS_SHOWN);
    const screen = run.screen();
    expect(screen[0]).toBe('⚙ edit_file(path=app.ts)');
    expect(screen).toContain('app.ts  modified  +1 -1');
    expect(screen).toContain('@@ -1,3 +1,3 @@');
    // Old and new line numbers in the gutter: both for context, one side for a removed or added line.
    expect(screen).toContain('1 1   const a = 1;');
    expect(screen).toContain('2   - const b = 2;');
    expect(screen).toContain('  2 + const b = 22;');
    expect(screen).toContain('3 3   const c = 3;');
    expect(screen).toContain('Apply this edit to app.ts?');
    // One command, one change: no session grant is offered (it would end with the command).
    // And no agent reads a reason: the reason is only printed.
    expect(screen.join('\n')).toContain('y yes · n no · r no, with a reason');
    expect(screen.join('\n')).not.toContain('for the agent');
    expect(screen.join('\n')).not.toContain("don't ask again");

    const removed = run.find('- const b = 2;')!;
    const added = run.find('+ const b = 22;')!;
    // The marker in red / green, and the line's text on a red / green background.
    expect(run.cell(removed.row, removed.col)).toMatchObject({ char: '-' });
    expect(reddish(run.cell(removed.row, removed.col).fg)).toBe(true);
    expect(reddish(run.cell(removed.row, removed.col + 8).bg)).toBe(true);
    expect(run.cell(added.row, added.col)).toMatchObject({ char: '+' });
    expect(greenish(run.cell(added.row, added.col).fg)).toBe(true);
    expect(greenish(run.cell(added.row, added.col + 8).bg)).toBe(true);
    // Context is neither.
    const context = run.find('const a = 1;')!;
    expect(reddish(run.cell(context.row, context.col + 6).fg)).toBe(false);
    expect(greenish(run.cell(context.row, context.col + 6).fg)).toBe(false);
    expect(run.cell(context.row, context.col + 6).bg).toBeUndefined();
  });

  it('y writes the change (exit 0)', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = cli(EDIT, ws);
    await run.waitForText(KEYS_SHOWN);
    run.write('y');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 22;\nconst c = 3;\n');
    await run.waitForText('✓ Yes');
    await run.waitForText('Edited app.ts: 1 replacement, +1 -1 lines.');
  });

  it('a key pressed the instant the question appears answers it (only keys typed before it are dropped)', async () => {
    // Regression: the prompt used to write the question, then switch to raw mode and drop "type-ahead" a few
    // event-loop turns later, so a key that arrived in between (a quick person, a loaded machine) was
    // silently dropped and the prompt waited forever.
    for (let attempt = 0; attempt < 3; attempt++) {
      const ws = cliWorkspace({ 'app.ts': APP });
      const run = cli(EDIT, ws);
      await run.whenOutput('edit_file(path=app.ts)');
      run.write('y');
      expect(await run.exited()).toBe(0);
      expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toContain('const b = 22;');
    }
  });

  it('a key typed before the question appears does not answer it', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const path = join(ws.root, 'app.ts');
    const before = snapshot(path);
    const run = cli(EDIT, ws);
    run.write('y'); // while editgate is still starting: type-ahead, meant for something else
    await run.waitForText(KEYS_SHOWN);
    // The y waited in the terminal and was read just before the question was shown: a key right after the
    // question would be the same run of typing. A person looks first.
    await new Promise((resolve) => setTimeout(resolve, TYPING_PAUSE_MS + 150));
    run.write('n');
    expect(await run.exited()).toBe(3);
    expect(snapshot(path)).toEqual(before);
    await run.waitForText('✗ No');
  });

  it('n leaves the file byte for byte (exit 3)', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const path = join(ws.root, 'app.ts');
    const before = snapshot(path);
    const run = cli(EDIT, ws);
    await run.waitForText(KEYS_SHOWN);
    await run.answer('n');
    expect(await run.exited()).toBe(3);
    expect(snapshot(path)).toEqual(before);
    await run.waitForText('✗ No');
    // Said to the person who pressed n, not the model's "ask the user what they want instead".
    await run.waitFor(
      () => run.text().includes('DENIED_USER: you said no to the change to app.ts; nothing was changed.'),
      'the denial',
    );
    expect(run.text()).not.toContain('ask the user');
  });

  it.each([
    ['Ctrl-C', '\x03'],
    ['Esc', '\x1b'],
  ])('%s at the question means no (exit 3, file untouched)', async (_name, key) => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const path = join(ws.root, 'app.ts');
    const before = snapshot(path);
    const run = cli(EDIT, ws);
    await run.waitForText(KEYS_SHOWN);
    await run.answer(key);
    expect(await run.exited()).toBe(3);
    expect(snapshot(path)).toEqual(before);
    await run.waitForText('✗ No');
  });

  it('r asks for a reason; the denial printed after carries it (exit 3)', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const path = join(ws.root, 'app.ts');
    const before = snapshot(path);
    const run = cli(EDIT, ws);
    await run.waitForText(KEYS_SHOWN);
    await run.answer('r');
    await run.waitForText('Reason (Enter to send, Esc to go back):');
    run.write('keep b at two, tests depend on it');
    await run.waitForText('Reason (Enter to send, Esc to go back): keep b at two, tests depend on it');
    run.write('\r');
    expect(await run.exited()).toBe(3);
    expect(snapshot(path)).toEqual(before);
    await run.waitForText('✗ No: keep b at two, tests depend on it');
    // The result (standard error) gives the reason to whoever runs editgate: a person, or an agent.
    const denial = /^editgate edit: .*DENIED_USER.*keep b at two, tests depend on it$/m;
    await run.waitFor(() => denial.test(run.text()), 'the denial with the reason');
  });

  it('v opens the whole diff full screen (G reaches its end), q returns to the question, y finishes', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${String(i + 1).padStart(2, '0')}\n`).join('');
    const ws = cliWorkspace({ 'notes.txt': lines });
    const run = cli(['edit', 'notes.txt', '--old', lines, '--new', lines.toUpperCase()], ws);
    await run.waitForText(KEYS_SHOWN);
    // Too tall for the prompt: it says what is hidden, and the end of the diff is not on screen.
    expect(run.screen().some((row) => /… \d+ more lines\. Press v to view the whole diff\./.test(row))).toBe(
      true,
    );
    expect(run.screen().join('\n')).not.toContain('LINE 60');

    await run.answer('v');
    await run.waitFor(() => run.bufferType() === 'alternate', 'the alternate screen');
    await run.waitForText(/^lines 1-23 of \d+ \(\d+%\)/);
    run.write('G');
    await run.waitForText('+ LINE 60');
    await run.waitForText(/^lines \d+-(\d+) of \1 \(100%\)/);
    expect(run.bufferType()).toBe('alternate');

    run.write('q');
    await run.waitFor(() => run.bufferType() === 'normal', 'the normal screen');
    await run.waitForText(KEYS_SHOWN);
    expect(run.screen()).toContain('Apply this edit to notes.txt?');

    await run.answer('y');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(ws.root, 'notes.txt'), 'utf8')).toBe(lines.toUpperCase());
  });

  it('a narrow terminal wraps long lines without losing any text', async () => {
    const long = `const greek = "${'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma'}";`;
    const ws = cliWorkspace({ 'app.ts': `const a = 1;\n${long}\nconst c = 3;\n` });
    const run = cli(
      ['edit', 'app.ts', '--old', 'sigma', '--new', 'sigma tau upsilon phi chi psi omega'],
      ws,
      {
        cols: 40,
      },
    );
    await run.waitForText(KEYS_SHOWN);
    await run.answer('n');
    expect(await run.exited()).toBe(3);

    // The diff view wraps a line itself: the first row has the gutter, each next one the gutter's width
    // of blanks. Joining the rows after the gutter gives the whole line back.
    const rows = run.lines(false);
    const unwrap = (firstRow: RegExp) => {
      const start = rows.findIndex((row) => firstRow.test(row));
      expect(start, `no row matching ${firstRow}\n${rows.join('\n')}`).toBeGreaterThanOrEqual(0);
      let text = rows[start]!.slice(6);
      for (let i = start + 1; i < rows.length && rows[i]!.startsWith('      '); i++) {
        expect(rows[i]!.length).toBe(40);
        text += rows[i]!.slice(6);
      }
      return text.trimEnd();
    };
    expect(unwrap(/^2 {3}- /)).toBe(long);
    expect(unwrap(/^ {2}2 \+ /)).toBe(long.replace('sigma', 'sigma tau upsilon phi chi psi omega'));
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(40);
    // The question and every key are there too, however they wrap.
    const text = run.text();
    for (const key of ['y yes', 'n no', 'r no, with a reason', 'v view the whole diff']) {
      expect(text).toContain(key);
    }
  });

  it('NO_COLOR=1: no colour codes at all, in the prompt or the full-screen view', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const run = cli(EDIT, ws, { env: { NO_COLOR: '1' } });
    await run.waitForText(KEYS_SHOWN);
    expect(run.screen()).toContain('2   - const b = 2;');
    const removed = run.find('- const b = 2;')!;
    expect(run.cell(removed.row, removed.col)).toEqual({ char: '-', fg: undefined, bg: undefined });

    await run.answer('v');
    await run.waitFor(() => run.bufferType() === 'alternate', 'the alternate screen');
    await run.waitForText(/^lines 1-\d+ of \d+/);
    run.write('q');
    await run.waitFor(() => run.bufferType() === 'normal', 'the normal screen');
    await run.answer('n');
    expect(await run.exited()).toBe(3);

    // SGR sequences (colours, bold, reverse, resets) are forbidden; the full-screen view's cursor moves,
    // line clears and screen switches are not colour and may be there.
    const sgr = run.raw().match(/\x1b\[[0-9;:]*m/g);
    expect(sgr).toBeNull();
    expect(run.raw()).toContain('\x1b[?1049h');
  });

  it('write with its content on standard input still asks on the terminal (/dev/tty); y writes', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const content = 'export const answer = 42;\n';
    const run = spawnInPty('/bin/sh', ['-c', 'printf "%s" "$CONTENT" | "$NODE" "$MAIN" write app.ts'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      env: { CONTENT: content, NODE: process.execPath, MAIN },
    });
    runs.push(run);
    await run.waitForText(KEYS_SHOWN);
    expect(run.screen()).toContain('⚙ write_file(path=app.ts)');
    expect(run.screen().some((row) => row.includes('+ export const answer = 42;'))).toBe(true);
    await run.answer('y');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(content);
  });
});

describe('editgate apply in a terminal: one session for all its calls', () => {
  it('a (yes to this file) at the first edit: the second edit to it shows its diff with a note, no question', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const calls = join(dirname(ws.root), 'calls.jsonl');
    const call = (name: string, input: Record<string, unknown>) => JSON.stringify({ name, input });
    writeFileSync(
      calls,
      [
        call('read_file', { file_path: 'app.ts' }),
        call('edit_file', { file_path: 'app.ts', old_string: 'a = 1', new_string: 'a = 10' }),
        call('edit_file', { file_path: 'app.ts', old_string: 'c = 3', new_string: 'c = 30' }),
      ].join('\n'),
    );
    const run = cli(['apply', calls], ws);
    await run.waitForText(KEYS_SHOWN);
    expect(run.screen()).toContain('1   - const a = 1;');
    expect(run.screen()).toContain('Apply this edit to app.ts?');
    await run.answer('a');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe(
      'const a = 10;\nconst b = 2;\nconst c = 30;\n',
    );

    const text = run.text();
    expect(text).toContain('✓ Yes, and no more questions about app.ts this session');
    const second = text.slice(text.indexOf('edit_file app.ts', text.indexOf('✓ Yes, and no more questions')));
    expect(second).toContain('3   - const c = 3;');
    expect(second).toContain('  3 + const c = 30;');
    expect(second).toContain('Approved by your answer earlier in this session (yes to this file).');
    expect(second).not.toContain('Apply this edit');
    expect(text.split('Apply this edit to app.ts?')).toHaveLength(2);
  });
});

describe('editgate edit with no terminal at all', () => {
  it('refuses with how to approve (--yes or a policy rule), exit 3, file untouched', async () => {
    const ws = cliWorkspace({ 'app.ts': APP });
    const path = join(ws.root, 'app.ts');
    const before = snapshot(path);
    // A new session (detached) has no controlling terminal, so /dev/tty cannot be opened either.
    const child = spawn(process.execPath, [MAIN, ...EDIT], {
      cwd: ws.root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, EDITGATE_STATE_DIR: ws.stateDir },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    expect(code).toBe(3);
    expect(stderr).toContain('there is no terminal to ask');
    expect(stderr).toContain('--yes');
    expect(stderr).toContain('policy rule');
    expect(stdout).not.toContain('Apply this edit');
    expect(snapshot(path)).toEqual(before);
  });
});
