import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editInEditor } from '../../src/terminal/edit-in-editor.js';
import { standInEditor } from './stand-in-editor.js';
import { fakeInput, fakeOutput } from './streams.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function setup(action: Parameters<typeof standInEditor>[1]) {
  const folder = mkdtempSync(join(tmpdir(), 'editgate-editor-test-'));
  folders.push(folder);
  const stand = standInEditor(folder, action);
  const terminal = { input: fakeInput(false), output: fakeOutput().output };
  return { stand, terminal, env: { ...process.env, ...stand.env } };
}

function ourTempFolders(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('editgate-edit-'));
}

describe('editInEditor', () => {
  it("returns what the editor saved, from a private file named with the file's extension", () => {
    const { stand, terminal, env } = setup({ from: 'two', to: 'deux' });
    const before = ourTempFolders();
    expect(editInEditor('one\ntwo\n', 'src/app.ts', terminal, env)).toEqual({
      kind: 'edited',
      text: 'one\ndeux\n',
    });
    expect(stand.runs()).toMatchObject([{ name: 'proposed.ts', mode: 0o600, dirMode: 0o700 }]);
    // The folder is gone afterwards.
    expect(ourTempFolders()).toEqual(before);
  });

  it('takes only a plain extension from a path a model named; the name is never part of the command', () => {
    const { stand, terminal, env } = setup('keep');
    expect(editInEditor('x', 'notes.t$(touch PWNED)', terminal, env)).toEqual({ kind: 'unchanged' });
    expect(editInEditor('x', 'Makefile', terminal, env)).toEqual({ kind: 'unchanged' });
    expect(stand.runs().map((run) => run.name)).toEqual(['proposed.txt', 'proposed.txt']);
  });

  it('an editor that exits non-zero, or cannot be found, gives nothing', () => {
    const { terminal, env } = setup('fail');
    expect(editInEditor('x', 'a.ts', terminal, env)).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('exited with code 1'),
    });
    const missing = editInEditor('x', 'a.ts', terminal, { ...env, EDITOR: 'no-such-editor-here' });
    expect(missing.kind).toBe('failed');
  });

  it('prefers $VISUAL to $EDITOR', () => {
    const { terminal, env } = setup({ from: 'x', to: 'y' });
    const visual = editInEditor('x', 'a.ts', terminal, { ...env, VISUAL: env.EDITOR!, EDITOR: 'false' });
    expect(visual).toEqual({ kind: 'edited', text: 'y' });
  });
});
