import { chmodSync, chownSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';
import { isRoot } from './helpers.js';

// The head start (workspace/early-write.ts): where nobody is asked, an edit's new bytes are written and
// fsynced beside the file while the gate decides; the commit renames them. What must hold: the file ends up
// exactly as without it, nothing is left beside it on any path, and nothing appears while a person decides.

/** Temp files editgate made in a folder. */
function temps(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.includes('.editgate-'));
}

const edit = { file_path: 'a.txt', old_string: 'alpha', new_string: 'beta' };

/** A before-change hook that notes the temp files beside the file at the moment of the decision, then does `then`. */
function noteTemps(root: string, then: () => { deny: string } | undefined = () => undefined) {
  const seen: string[][] = [];
  return {
    seen,
    beforeChange: () => {
      seen.push(temps(root));
      return then();
    },
  };
}

describe('early write', () => {
  it('is made while the change is decided, and renamed into place: same bytes, same mode, nothing left', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\r\nsecond\r\n' });
    chmodSync(ws.path('a.txt'), 0o640);
    const { seen, beforeChange } = noteTemps(ws.root);
    const tools = ws.tools({ hooks: { beforeChange } });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', edit);
    expect(result.ok).toBe(true);
    // The hook runs during the decision: the head start's temp file is already there.
    expect(seen).toHaveLength(1);
    expect(seen[0]).toHaveLength(1);
    expect(await ws.text('a.txt')).toBe('beta\r\nsecond\r\n');
    expect(statSync(ws.path('a.txt')).mode & 0o777).toBe(0o640);
    expect(temps(ws.root)).toEqual([]);
    // Undo still has what the change replaced (history recorded while the folder fsync ran).
    const undone = await tools.execute('undo_edit', { file_path: 'a.txt' });
    expect(undone.ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('alpha\r\nsecond\r\n');
  });

  it('is removed when a before-change hook refuses the change', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const { seen, beforeChange } = noteTemps(ws.root, () => ({ deny: 'frozen' }));
    const tools = ws.tools({ hooks: { beforeChange } });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', edit);
    expect(result).toMatchObject({ ok: false, code: 'DENIED_HOOK' });
    expect(seen.map((names) => names.length)).toEqual([1]);
    expect(await ws.text('a.txt')).toBe('alpha\n');
    expect(temps(ws.root)).toEqual([]);
  });

  it('is removed when the file changes before the commit (STALE), which keeps the other writer’s bytes', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const { seen, beforeChange } = noteTemps(ws.root, () => {
      writeFileSync(ws.path('a.txt'), 'someone else\n');
      return undefined;
    });
    const tools = ws.tools({ hooks: { beforeChange } });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', edit);
    expect(result).toMatchObject({ ok: false, code: 'STALE' });
    expect(seen.map((names) => names.length)).toEqual([1]);
    expect(await ws.text('a.txt')).toBe('someone else\n');
    expect(temps(ws.root)).toEqual([]);
  });

  it('takes the mode the file has at the commit, not the one it had when the head start began', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    chmodSync(ws.path('a.txt'), 0o644);
    const { seen, beforeChange } = noteTemps(ws.root, () => {
      chmodSync(ws.path('a.txt'), 0o600);
      return undefined;
    });
    const tools = ws.tools({ hooks: { beforeChange } });
    await readAll(tools, 'a.txt');
    expect((await tools.execute('edit_file', edit)).ok).toBe(true);
    // The head start was made with 0644 before the chmod: the commit copied the new mode and fsynced again.
    expect(seen.map((names) => names.length)).toEqual([1]);
    expect(await ws.text('a.txt')).toBe('beta\n');
    expect(statSync(ws.path('a.txt')).mode & 0o777).toBe(0o600);
    expect(temps(ws.root)).toEqual([]);
  });

  it('takes the owner the file has at the commit (as root, who can copy owners)', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    if (isRoot) chownSync(ws.path('a.txt'), 1234, 1234);
    const { seen, beforeChange } = noteTemps(ws.root, () => {
      // Another user's file now: the head start copied the owner it had before.
      if (isRoot) chownSync(ws.path('a.txt'), 4321, 4322);
      return undefined;
    });
    const tools = ws.tools({ hooks: { beforeChange } });
    await readAll(tools, 'a.txt');
    expect((await tools.execute('edit_file', edit)).ok).toBe(true);
    expect(seen.map((names) => names.length)).toEqual([1]);
    const stats = statSync(ws.path('a.txt'));
    // Without root no owner can be copied: the file stays the writer's own, as it was.
    expect([stats.uid, stats.gid]).toEqual(isRoot ? [4321, 4322] : [process.getuid!(), process.getgid!()]);
    expect(temps(ws.root)).toEqual([]);
  });

  it('is removed when the call is cancelled while the change is decided', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const controller = new AbortController();
    const { seen, beforeChange } = noteTemps(ws.root, () => {
      controller.abort();
      return undefined;
    });
    const tools = ws.tools({ hooks: { beforeChange } });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', edit, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, code: 'CANCELLED' });
    expect(seen.map((names) => names.length)).toEqual([1]);
    expect(await ws.text('a.txt')).toBe('alpha\n');
    expect(temps(ws.root)).toEqual([]);
  });

  it('is not made while a person is asked: nothing appears beside the file during the question', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const during: string[][] = [];
    const { approver } = scriptedApprover('once', { deny: 'no' });
    const tools = ws.tools({
      approve: (request) => {
        during.push(temps(ws.root));
        return approver(request);
      },
    });
    await readAll(tools, 'a.txt');
    expect((await tools.execute('edit_file', edit)).ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('beta\n');
    await readAll(tools, 'a.txt');
    const denied = await tools.execute('edit_file', { ...edit, old_string: 'beta', new_string: 'gamma' });
    expect(denied).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(during).toEqual([[], []]);
    expect(temps(ws.root)).toEqual([]);
  });

  it('is made where policy allows the change even though the approver would ask', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const { approver, asked } = scriptedApprover();
    const { seen, beforeChange } = noteTemps(ws.root);
    const tools = ws.tools({
      approve: approver,
      policy: { rules: [{ path: 'a.txt', action: 'allow' }] },
      hooks: { beforeChange },
    });
    await readAll(tools, 'a.txt');
    expect((await tools.execute('edit_file', edit)).ok).toBe(true);
    expect(asked).toHaveLength(0);
    expect(seen.map((names) => names.length)).toEqual([1]);
    expect(temps(ws.root)).toEqual([]);
  });

  it('is not made for a change kept for later (preview mode)', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const { seen, beforeChange } = noteTemps(ws.root);
    const tools = ws.tools({
      mode: 'preview',
      hooks: { beforeChange },
    });
    await readAll(tools, 'a.txt');
    const staged = await tools.execute('edit_file', edit);
    expect(staged.ok).toBe(true);
    expect(seen).toEqual([[]]);
    expect(temps(ws.root)).toEqual([]);
    expect(await ws.text('a.txt')).toBe('alpha\n');
  });

  it('leaves an encoding refusal to the commit, in its own words, with nothing beside the file', async () => {
    const ws = await makeWorkspace({ 'a.txt': Buffer.from('alpha caf\xe9\n', 'latin1') });
    const tools = ws.tools();
    await tools.execute('read_file', { file_path: 'a.txt', encoding: 'latin1' });
    const result = await tools.execute('edit_file', { ...edit, new_string: 'beta \u4e16' });
    expect(result).toMatchObject({ ok: false, code: 'ENCODING' });
    expect((await ws.bytes('a.txt')).toString('latin1')).toBe('alpha caf\xe9\n');
    expect(temps(ws.root)).toEqual([]);
  });
});
