import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, Decision } from '../../src/gate/approval.js';
import { denyWithoutTerminal, noTerminalMessage } from '../../src/terminal/no-terminal.js';
import { showPreview } from '../../src/terminal/preview.js';
import {
  createTerminalApprover,
  STILL_TYPING_HINT,
  type TerminalApproverOptions,
} from '../../src/terminal/prompt.js';
import { ENTER_ALTERNATE_SCREEN, LEAVE_ALTERNATE_SCREEN } from '../../src/terminal/tty-modes.js';
import { TYPING_PAUSE_MS } from '../../src/terminal/typing-guard.js';
import { oneFileRequest } from '../one-file-request.js';
import { diffOf, hunk } from './fixtures.js';
import { fakeInput, fakeOutput } from './streams.js';

const fields = {
  tool: 'edit_file',
  path: 'src/app.ts',
  kind: 'modify' as const,
  diff: diffOf(hunk(1, 1, [' const a = 1;', '-const b = 2;', '+const b = 3;', ' const c = 4;'])),
  unifiedDiff:
    '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n const c = 4;\n',
  stats: { added: 1, removed: 1 },
  input: { file_path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' },
};
const request: ApprovalRequest = oneFileRequest(fields);

/** The request with some of its file's fields (or its tool, question or input) changed. */
function requestWith(changes: Partial<Parameters<typeof oneFileRequest>[0]>): ApprovalRequest {
  return oneFileRequest({ ...fields, ...changes });
}

function setup(options: Partial<TerminalApproverOptions> = {}, tty = false) {
  const input = fakeInput(tty);
  const out = fakeOutput();
  const approver = createTerminalApprover({
    input,
    output: out.output,
    color: 0,
    width: 80,
    height: 24,
    ...options,
  });
  return { input, approver, ...out };
}

/** Answers the question with `keys` (typed after it is shown) and returns the decision. */
async function answer(keys: string, options: Partial<TerminalApproverOptions> = {}): Promise<Decision> {
  const { input, approver } = setup(options);
  input.write(keys);
  return approver(request);
}

describe('createTerminalApprover', () => {
  it('shows the call, the diff and the question, line by line, then the answer', async () => {
    const { input, approver, text } = setup();
    input.write('y');
    expect(await approver(request)).toBe('once');
    expect(text().split('\n')).toEqual([
      '⚙ edit_file(path=src/app.ts)',
      'src/app.ts  modified  +1 -1',
      '@@ -1,3 +1,3 @@',
      '1 1   const a = 1;',
      '2   - const b = 2;',
      '  2 + const b = 3;',
      '3 3   const c = 4;',
      'Apply this edit to src/app.ts?',
      "  y yes · a yes, and don't ask again for this file",
      '  A yes to every edit this session · n no · r no, with a reason for the agent',
      '  v view the whole diff',
      '✓ Yes',
      '',
    ]);
  });

  it('shows every file of a change set, then one question about all of them', async () => {
    const { input, approver, text } = setup();
    const second = {
      path: 'README.md',
      kind: 'create' as const,
      diff: diffOf(hunk(0, 1, ['+# app'])),
      unifiedDiff: '--- /dev/null\n+++ b/README.md\n@@ -0,0 +1,1 @@\n+# app\n',
      stats: { added: 1, removed: 0 },
    };
    const first = {
      path: request.path,
      kind: request.kind as 'modify',
      diff: request.diff,
      unifiedDiff: request.unifiedDiff,
      stats: request.stats,
    };
    input.write('a');
    expect(await approver({ ...request, tool: 'apply_patch', files: [first, second] })).toBe('file');
    expect(text().split('\n')).toEqual([
      '⚙ apply_patch(path=src/app.ts)',
      'src/app.ts  modified  +1 -1',
      '@@ -1,3 +1,3 @@',
      '1 1   const a = 1;',
      '2   - const b = 2;',
      '  2 + const b = 3;',
      '3 3   const c = 4;',
      '/dev/null → README.md  created  +1 -0',
      '@@ -0,0 +1,1 @@',
      '1 + # app',
      'Apply this change to 2 files (src/app.ts, README.md)?',
      "  y yes · a yes, and don't ask again for these 2 files",
      '  A yes to every edit this session · n no · r no, with a reason for the agent',
      '  h hunk by hunk · v view the whole diff',
      '✓ Yes, and no more questions about these 2 files this session',
      '',
    ]);
  });

  it('shows the note and every file note before the diff', async () => {
    const { input, approver, text } = setup();
    input.write('n');
    const note = 'The file is 40 MB; its diff shows every changed place.';
    expect(await approver(requestWith({ note }))).toBe('deny');
    expect(text().split('\n')[1]).toBe(note);
    // In a change set, each note is named by its file.
    const several = setup();
    several.input.write('n');
    const [file] = request.files;
    const other = { ...file!, path: 'src/b.ts', note: 'one of two files' };
    expect(await several.approver({ ...request, files: [{ ...file!, note }, other] })).toBe('deny');
    expect(several.text().split('\n').slice(1, 3)).toEqual([
      `src/app.ts: ${note}`,
      'src/b.ts: one of two files',
    ]);
  });

  it('maps each key to its decision', async () => {
    expect(await answer('a')).toBe('file');
    expect(await answer('A')).toBe('all');
    expect(await answer('n')).toBe('deny');
    expect(await answer('\x1b')).toBe('deny');
    expect(await answer('\x03')).toBe('deny');
    // Other keys are ignored until a real answer.
    expect(await answer('xz?Y y')).toBe('once');
  });

  it('denies with a typed reason, edited with Backspace', async () => {
    expect(await answer('rtoo risky\r')).toEqual({ deny: 'too risky' });
    expect(await answer('rabx\x7fc\r')).toEqual({ deny: 'abc' });
    expect(await answer('r日本\x7f語\r')).toEqual({ deny: '日語' });
  });

  it('still denies when the reason is cancelled (Ctrl-C) or empty', async () => {
    expect(await answer('rabc\x03')).toBe('deny');
    expect(await answer('r   \r')).toBe('deny');
  });

  it('Esc in the reason goes back to the question, which any answer then ends', async () => {
    expect(await answer('rnever mind\x1by')).toBe('once');
    expect(await answer('r\x1bn')).toBe('deny');
    const { input, approver, text } = setup();
    input.write('rtypo\x1brreal reason\r');
    expect(await approver(request)).toEqual({ deny: 'real reason' });
    expect(text()).toContain('Back to the question.');
  });

  it('offers no session grants where the session is one change: a and A are not shown and do nothing', async () => {
    expect(await answer('aAy', { sessionGrants: false })).toBe('once');
    const { input, approver, text } = setup({ sessionGrants: false });
    input.write('n');
    await approver(request);
    expect(text()).not.toContain("don't ask again");
    expect(text()).not.toContain('every edit this session');
    expect(text()).toContain('y yes');
  });

  it('+ approves this change with a typed note; Esc goes back, Ctrl-C refuses, an empty note is a plain yes', async () => {
    const notes = { notes: true };
    expect(await answer('+bump the version too\r', notes)).toEqual({
      allow: 'once',
      reason: 'bump the version too',
    });
    expect(await answer('+   \r', notes)).toBe('once');
    expect(await answer('+oops\x1bn', notes)).toBe('deny');
    expect(await answer('+half\x03', notes)).toBe('deny');
    const { input, approver, text } = setup(notes);
    input.write('+keep it\r');
    await approver(request);
    expect(text()).toContain('+ yes, with a note for the agent');
    expect(text().endsWith('✓ Yes: keep it\n')).toBe(true);
  });

  it('offers no note where the face cannot carry it to the model (the default): + is not shown and does nothing', async () => {
    expect(await answer('+xz\ry')).toBe('once');
    const { input, approver, text } = setup();
    input.write('n');
    await approver(request);
    expect(text()).not.toContain('with a note');
    expect(await answer('+x\ry', { notes: true, sessionGrants: false })).toEqual({
      allow: 'once',
      reason: 'x',
    });
    // A read's result carries no note either.
    const reading = setup({ notes: true });
    reading.input.write('+xz\ry');
    expect(await reading.approver(requestWith({ kind: 'read' }))).toBe('once');
  });

  it('promises no agent a reason where none reads it (a plain CLI command)', async () => {
    const { input, approver, text } = setup({ sessionGrants: false, agentReadsReasons: false });
    input.write('n');
    await approver(request);
    expect(text()).toContain('r no, with a reason');
    expect(text()).not.toContain('for the agent');
  });

  it('asks an undo as an undo, not as an edit to apply', async () => {
    const undo: ApprovalRequest = requestWith({ tool: 'undo_edit', input: { file_path: 'src/app.ts' } });
    const { input, approver, text } = setup();
    input.write('n');
    await approver(undo);
    expect(text()).toContain('Undo the last change to src/app.ts?');
    expect(text()).not.toContain('Apply this edit');
    const created = setup();
    created.input.write('n');
    await created.approver(requestWith({ tool: 'undo_edit', kind: 'delete' }));
    expect(created.text()).toContain(
      'Undo the last change to src/app.ts (it created the file, so it is deleted)?',
    );
  });

  it('prints the reason in the answer line', async () => {
    const { input, approver, text } = setup();
    input.write('ruse the helper instead\r');
    await approver(request);
    expect(text()).toContain('Reason (Enter to send, Esc to go back): \n');
    expect(text().endsWith('✗ No: use the helper instead\n')).toBe(true);
  });

  it('denies when the input ends, never blocking', async () => {
    const { input, approver } = setup();
    input.end();
    expect(await approver(request)).toBe('deny');
  });

  it('opens the whole diff in the pager with v, and q comes back to the question', async () => {
    const { input, approver, text } = setup();
    input.write('vjqy');
    expect(await approver(request)).toBe('once');
    const written = text();
    const enter = written.indexOf(ENTER_ALTERNATE_SCREEN);
    const leave = written.indexOf(LEAVE_ALTERNATE_SCREEN);
    expect(enter).toBeGreaterThan(written.indexOf('v view the whole diff'));
    expect(leave).toBeGreaterThan(enter);
    const pager = written.slice(enter, leave);
    expect(pager).toContain('\x1b[1;1Hsrc/app.ts  modified  +1 -1');
    // Drawn twice: on opening and after j (the diff fits, so j does not move it).
    expect(pager.split('lines 1-6 of 6 (100%)')).toHaveLength(3);
    expect(written.slice(leave)).toContain('✓ Yes');
  });

  it('shows what fits of a tall diff and says how to see the rest', async () => {
    const tall = requestWith({
      diff: diffOf(
        hunk(
          1,
          1,
          Array.from({ length: 40 }, (_, i) => `+line ${i + 1}`),
        ),
      ),
    });
    const { input, approver, text } = setup({ height: 12 });
    input.write('n');
    await approver(tall);
    const lines = text().split('\n');
    // 12 rows: the call, 5 rows of diff, the hint, the question and its 3 rows of keys, the answer.
    expect(lines).toHaveLength(13);
    expect(lines.slice(0, 8)).toEqual([
      '⚙ edit_file(path=src/app.ts)',
      'src/app.ts  modified  +40 -0',
      '@@ -1,0 +1,40 @@',
      '    1 + line 1',
      '    2 + line 2',
      '    3 + line 3',
      '… 37 more lines. Press v to view the whole diff.',
      'Apply this edit to src/app.ts?',
    ]);
  });

  it('asks a read request with its own question, offering no diff view', async () => {
    const read = requestWith({
      kind: 'read',
      question: 'Read src/app.ts to preview the change?',
      diff: diffOf(),
    });
    const { input, approver, text } = setup();
    input.write('v y');
    expect(await approver(read)).toBe('once');
    expect(text()).toContain('\nRead src/app.ts to preview the change?\n');
    expect(text()).not.toContain('view the whole diff');
    expect(text()).not.toContain(ENTER_ALTERNATE_SCREEN);
  });

  it('puts a terminal in raw mode while asking, restores it, and ignores keys typed before the question', async () => {
    const { input, approver, waitFor, text } = setup({}, true);
    input.write('y'); // typed ahead, before the diff was shown: must not approve
    const decision = approver(request);
    await waitFor('view the whole diff');
    expect(input.rawCalls).toEqual([true]);
    // Still typing (less than a pause after the y): not an answer either, and the prompt says why.
    input.write('a');
    await waitFor(STILL_TYPING_HINT);
    await new Promise((resolve) => setTimeout(resolve, TYPING_PAUSE_MS + 50));
    input.write('n');
    expect(await decision).toBe('deny');
    expect(text()).toContain('✗ No');
    expect(text()).not.toContain('✓');
    expect(input.rawCalls).toEqual([true, false]);
    expect(input.isRaw).toBe(false);
    expect(input.isPaused()).toBe(true);
  });

  it('after the pager, keys of its run do not answer the question; after a pause one does', async () => {
    const { input, approver, waitFor, text } = setup({}, true);
    const decision = approver(request);
    await waitFor('view the whole diff');
    input.write('v');
    await waitFor(ENTER_ALTERNATE_SCREEN);
    input.write('q');
    await waitFor(LEAVE_ALTERNATE_SCREEN);
    input.write('y'); // fast after q: the pager's run, not an answer
    await waitFor(STILL_TYPING_HINT);
    await new Promise((resolve) => setTimeout(resolve, TYPING_PAUSE_MS + 50));
    input.write('n');
    expect(await decision).toBe('deny');
    expect(text()).not.toContain('✓');
  });

  it('asks one question at a time', async () => {
    const { input, approver, text } = setup();
    input.write('yn');
    const first = approver(request);
    const second = approver(requestWith({ path: 'src/other.ts' }));
    expect(await first).toBe('once');
    expect(await second).toBe('deny');
    const written = text();
    expect(written.indexOf('✓ Yes')).toBeLessThan(written.indexOf('⚙ edit_file(path=src/other.ts)'));
  });

  it('stops when the question is answered elsewhere, saying who answered and how', async () => {
    const { input, approver, waitFor, text } = setup({}, true);
    const controller = new AbortController();
    const decision = approver(request, { signal: controller.signal });
    await waitFor('view the whole diff');
    controller.abort({ by: 'in the browser', decision: { deny: 'use a constant' } });
    expect(await decision).toEqual({ deny: 'use a constant' });
    expect(text()).toContain('✗ No: use a constant (answered in the browser)\n');
    // The terminal is given back: raw mode off, input paused, keys left for whoever reads next.
    expect(input.rawCalls).toEqual([true, false]);
    expect(input.isPaused()).toBe(true);
  });

  it('closes the pager when answered elsewhere while it is open', async () => {
    const { input, approver, waitFor, text } = setup();
    const controller = new AbortController();
    const decision = approver(request, { signal: controller.signal });
    input.write('v');
    await waitFor('lines 1-6 of 6 (100%)');
    controller.abort({ by: 'in the browser', decision: 'once' });
    expect(await decision).toBe('once');
    const written = text();
    expect(written.lastIndexOf(LEAVE_ALTERNATE_SCREEN)).toBeGreaterThan(
      written.indexOf(ENTER_ALTERNATE_SCREEN),
    );
    expect(written.endsWith('✓ Yes (answered in the browser)\n')).toBe(true);
  });

  it('a question answered elsewhere while waiting its turn is never shown', async () => {
    const { input, approver, text } = setup();
    const controller = new AbortController();
    const first = approver(request);
    const second = approver(requestWith({ path: 'src/other.ts' }), { signal: controller.signal });
    controller.abort(new Error('answered in the browser'));
    input.write('y');
    expect(await first).toBe('once');
    await expect(second).rejects.toThrow('answered in the browser');
    expect(text()).not.toContain('src/other.ts');
  });

  it('an abort without an answer rejects with its reason, after giving the terminal back', async () => {
    const { input, approver, waitFor } = setup({}, true);
    const controller = new AbortController();
    const decision = approver(request, { signal: controller.signal });
    await waitFor('view the whole diff');
    controller.abort(new Error('the agent stopped'));
    await expect(decision).rejects.toThrow('the agent stopped');
    expect(input.isRaw).toBe(false);
  });

  it('colours the prompt when asked, and writes no escape code without colour', async () => {
    const plain = setup();
    plain.input.write('rwhy\r');
    await plain.approver(request);
    expect(plain.text()).not.toContain('\x1b');
    const colored = setup({ color: 3 });
    colored.input.write('y');
    await colored.approver(request);
    expect(colored.text()).toContain('\x1b[');
  });

  it('detects colour from the environment: NO_COLOR and a non-terminal output mean none', async () => {
    const { input, approver, text } = setup({
      color: undefined,
      env: { NO_COLOR: '1', FORCE_COLOR: undefined },
    });
    input.write('y');
    await approver(request);
    expect(text()).not.toContain('\x1b');
  });
});

describe('showPreview', () => {
  it('prints the call and the diff view without a question', async () => {
    const { output, text } = fakeOutput();
    await showPreview(request, {
      output,
      color: 0,
      width: 80,
      format: 'view',
      note: 'Approved for this session.',
    });
    expect(text().split('\n')).toEqual([
      '⚙ edit_file(path=src/app.ts)',
      'src/app.ts  modified  +1 -1',
      '@@ -1,3 +1,3 @@',
      '1 1   const a = 1;',
      '2   - const b = 2;',
      '  2 + const b = 3;',
      '3 3   const c = 4;',
      'Approved for this session.',
      '',
    ]);
  });

  it('prints plain unified text when the output is not a terminal', async () => {
    const { output, text } = fakeOutput();
    await showPreview(request, { output, env: {} });
    expect(text()).toBe(`⚙ edit_file(path=src/app.ts)\n${request.unifiedDiff}`);
  });
});

describe('denyWithoutTerminal', () => {
  it('refuses with DENIED_NO_APPROVER (no one was asked), saying how to approve', async () => {
    await expect(async () => denyWithoutTerminal()(request)).rejects.toMatchObject({
      code: 'DENIED_NO_APPROVER',
      message: noTerminalMessage(request),
    });
    const message = noTerminalMessage(request);
    expect(message).toContain('The edit to src/app.ts needs approval');
    expect(message).toContain('--yes');
    expect(message).toContain('editgate.config.json');
  });

  it('writes the refused diff where it is told, with invisible characters spelled out', async () => {
    let written = '';
    const sink = { write: (text: string) => (written += text) };
    const hidden = requestWith({ unifiedDiff: `${request.unifiedDiff}+\u202eevil\x1b[2J\n` });
    await expect(async () => denyWithoutTerminal('c.json', sink)(hidden)).rejects.toMatchObject({
      code: 'DENIED_NO_APPROVER',
    });
    expect(written).toContain('editgate: refused (no terminal to ask), this change:');
    expect(written).toContain(request.unifiedDiff.split('\n')[2]!);
    expect(written).not.toContain('\u202e');
    expect(written).not.toContain('\x1b');
  });
});
