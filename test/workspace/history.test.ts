/**
 * Undo history, through the path every undo takes: the workspace computes the undo from the history
 * entry's reverse patch (workspace.undo), and the one commit writes it (workspace.commit), which steps
 * history back.
 */
import { appendFile, readdir, readFile, realpath, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import { Guard } from '../../src/workspace/guard.js';
import { History } from '../../src/workspace/history.js';
import { Streamer } from '../../src/workspace/stream/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { tempDir } from './helpers.js';

let dir: string;
let state: string;
beforeEach(async () => {
  dir = await realpath(await tempDir());
  state = await tempDir('editgate-state-');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(state, { recursive: true, force: true });
});

async function workspaceOf(history: History): Promise<Workspace> {
  return new Workspace({ guard: await Guard.create({ roots: [dir] }), history, streamer: new Streamer() });
}

/** What the gate does for a write: compute the change, then commit it (history records it). */
async function change(workspace: Workspace, file: string, text: string) {
  const resolved = await workspace.guard.resolve(file);
  const computed = await workspace.edit(resolved, { compute: () => ({ text }) }, { requireRead: false });
  return workspace.commit(computed, { tool: 'write_file' });
}

/** undo_edit's path: the undo computed from history, committed (history steps back). */
async function undo(workspace: Workspace, file: string) {
  const resolved = await workspace.guard.resolve(file);
  return workspace.commit(await workspace.undo(resolved), { tool: 'undo_edit' });
}

async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isEditgateError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('History', () => {
  it('several undos in a row walk back through the changes', async () => {
    const workspace = await workspaceOf(new History());
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\r\n');
    for (const v of ['v1\r\n', 'v2\r\n', 'v3\r\n']) await change(workspace, file, v);
    for (const v of ['v2\r\n', 'v1\r\n', 'v0\r\n']) {
      await undo(workspace, file);
      expect(await readFile(file, 'utf8')).toBe(v);
    }
    expect(await codeOf(undo(workspace, file))).toBe('NOTHING_TO_UNDO');
  });

  it('keeps the replaced bytes, not a copy of the file', async () => {
    const history = new History();
    const workspace = await workspaceOf(history);
    const file = join(dir, 'f.txt');
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join('');
    await writeFile(file, lines);
    await change(workspace, file, lines.replace('line 1000\n', 'line one thousand\n'));
    const entry = await history.peek(file);
    expect(entry?.reverse).toMatchObject({ kind: 'memory', spans: [{ old: Buffer.from('1000') }] });
    await undo(workspace, file);
    expect(await readFile(file, 'utf8')).toBe(lines);
  });

  it('undo of a creation deletes the file', async () => {
    const history = new History();
    const workspace = await workspaceOf(history);
    const file = join(dir, 'new.txt');
    await change(workspace, file, 'created\n');
    expect((await history.peek(file))?.created).toBe(true);
    const { fingerprint } = await undo(workspace, file);
    expect(fingerprint).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  it('STALE when the file changed after editgate wrote it; nothing written, entry kept', async () => {
    const history = new History();
    const workspace = await workspaceOf(history);
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\n');
    await change(workspace, file, 'v1\n');
    await writeFile(file, 'someone else\n');
    expect(await codeOf(undo(workspace, file))).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe('someone else\n');
    expect(await history.peek(file)).toBeDefined();
    await rm(file);
    expect(await codeOf(undo(workspace, file))).toBe('STALE');
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps at most maxEntriesPerFile changes', async () => {
    const workspace = await workspaceOf(new History({ maxEntriesPerFile: 2 }));
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\n');
    for (const v of ['v1\n', 'v2\n', 'v3\n']) await change(workspace, file, v);
    await undo(workspace, file);
    await undo(workspace, file);
    expect(await readFile(file, 'utf8')).toBe('v1\n');
    expect(await codeOf(undo(workspace, file))).toBe('NOTHING_TO_UNDO');
  });

  it('calls that are not awaited still run in order', async () => {
    const history = new History();
    const file = join(dir, 'f.txt');
    const after = { size: 1, mtimeMs: 1, hash: 'x' };
    const reverse = (old: string) => ({
      kind: 'memory' as const,
      spans: [{ newStart: 0, newLength: 1, oldStart: 0, old: Buffer.from(old) }],
    });
    void history.record(file, { created: false, reverse: reverse('a'), after });
    void history.record(file, { created: false, reverse: reverse('b'), after });
    void history.pop(file);
    expect((await history.peek(file))?.reverse).toEqual(reverse('a'));
  });

  it('persisted history can be undone from a fresh instance, then leaves no files behind', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\n');
    const first = await workspaceOf(new History({ stateDir: state }));
    await change(first, file, 'v1\n');
    await change(first, file, 'v2\n');
    const created = join(dir, 'sub', 'new.txt');
    await change(first, created, 'new\n');

    // Files are named by hash: no workspace path shows in the state folder.
    const stored = await readdir(join(state, 'history'));
    expect(stored.every((name) => /^[0-9a-f]{64}\./.test(name))).toBe(true);

    await undo(await workspaceOf(new History({ stateDir: state })), file);
    expect(await readFile(file, 'utf8')).toBe('v1\n');
    const third = await workspaceOf(new History({ stateDir: state }));
    await undo(third, file);
    expect(await readFile(file, 'utf8')).toBe('v0\n');
    expect(await codeOf(undo(third, file))).toBe('NOTHING_TO_UNDO');
    await undo(await workspaceOf(new History({ stateDir: state })), created);
    expect(await readdir(join(dir, 'sub'))).toEqual([]);
    expect(await readdir(join(state, 'history'))).toEqual([]);
  });

  it('reads history an older editgate kept (whole old content in a blob) and undoes it', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v1\n');
    const workspace = await workspaceOf(new History({ stateDir: state }));
    // What version 1 wrote after a change from 'v0\n' to 'v1\n': an index and the old bytes in a blob.
    const written = await change(workspace, file, 'v1 again\n');
    const { createHash } = await import('node:crypto');
    const key = createHash('sha256').update(file).digest('hex');
    const { mkdir } = await import('node:fs/promises');
    await rm(join(state, 'history'), { recursive: true, force: true });
    await mkdir(join(state, 'history'), { recursive: true });
    await writeFile(join(state, 'history', `${key}.old.bin`), 'v1\n');
    await writeFile(
      join(state, 'history', `${key}.json`),
      JSON.stringify({
        version: 1,
        path: file,
        entries: [{ id: 'old', existed: true, after: written.fingerprint, at: 1 }],
      }),
    );
    await undo(await workspaceOf(new History({ stateDir: state })), file);
    expect(await readFile(file, 'utf8')).toBe('v1\n');
    expect(await readdir(join(state, 'history'))).toEqual([]);
  });
});

/**
 * A history kept on disk is written without fsync (the change itself is fsynced): a crash may lose the last
 * lines of an index or cut a patch short. Undo must then refuse, with words that say what to do, and write
 * nothing; never apply a wrong patch. Each test makes the damage a crash could leave, then undoes from a
 * fresh instance, as the next process would.
 */
describe('History kept on disk, after a crash', () => {
  const historyFolder = () => join(state, 'history');
  async function patches() {
    return (await readdir(historyFolder())).filter((name) => name.endsWith('.patch'));
  }
  async function damageEachPatch(damage: (path: string) => Promise<void>) {
    for (const name of await patches()) await damage(join(historyFolder(), name));
  }
  async function indexFile() {
    const name = (await readdir(historyFolder())).find((entry) => entry.endsWith('.json'));
    return join(historyFolder(), name!);
  }
  async function refusal(promise: Promise<unknown>) {
    try {
      await promise;
    } catch (error) {
      if (isEditgateError(error)) return { code: error.code, message: error.message };
      throw error;
    }
    throw new Error('undo went ahead');
  }
  /** v0 -> v1 -> v2 (lines around, so a patch is a span of the file, not all of it). */
  async function twoChanges() {
    const file = join(dir, 'f.txt');
    // Each change replaces 5,000 bytes: more than an index line keeps inline, so a patch file holds them.
    const text = (v: string) => `first\n${v.repeat(2500)}\nlast\n`;
    await writeFile(file, text('v0'));
    const workspace = await workspaceOf(new History({ stateDir: state }));
    await change(workspace, file, text('v1'));
    await change(workspace, file, text('v2'));
    return { file, text };
  }
  const fresh = (onError?: (error: unknown) => void) =>
    workspaceOf(new History({ stateDir: state, onError: onError ?? (() => {}) }));

  it.each([
    // At a record boundary, which the patch's own structure cannot tell from a whole patch.
    [
      'cut short',
      /undo data for this file is damaged.*nothing was written.*by hand/,
      (path: string) => truncate(path, 8),
    ],
    [
      'of the right size but other bytes (zeros a crash left)',
      /damaged/,
      async (path: string) => writeFile(path, Buffer.alloc((await readFile(path)).length)),
    ],
    ['gone', /undo data for this file is gone.*nothing was written.*by hand/, (path: string) => rm(path)],
  ])('a patch %s makes undo refuse, say what to do, and write nothing', async (_, words, damage) => {
    const { file, text } = await twoChanges();
    expect(await patches()).toHaveLength(2);
    await damageEachPatch(damage);
    const refused = await refusal(undo(await fresh(), file));
    expect(refused.code).toBe('IO');
    expect(refused.message).toMatch(words);
    expect(await readFile(file, 'utf8')).toBe(text('v2'));
  });

  it("the index's last line lost: the entry below no longer describes the file, so undo refuses (STALE)", async () => {
    const { file, text } = await twoChanges();
    const index = await indexFile();
    const lines = (await readFile(index, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(3); // header, two changes
    await writeFile(index, `${lines.slice(0, -1).join('\n')}\n`);
    expect((await refusal(undo(await fresh(), file))).code).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe(text('v2'));
  });

  it("an undo's line lost: the undone entry is back, but its patch is gone and the file is not what it wrote", async () => {
    const { file, text } = await twoChanges();
    await undo(await fresh(), file);
    expect(await readFile(file, 'utf8')).toBe(text('v1'));
    const index = await indexFile();
    const lines = (await readFile(index, 'utf8')).trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toHaveProperty('pop');
    await writeFile(index, `${lines.slice(0, -1).join('\n')}\n`);
    expect((await refusal(undo(await fresh(), file))).code).toBe('STALE');
    expect(await readFile(file, 'utf8')).toBe(text('v1'));
  });

  it('garbage after the last line (a line cut short) is skipped and reported; the rest still undoes', async () => {
    const { file, text } = await twoChanges();
    await appendFile(await indexFile(), '{"add":{"id":"cut-sh');
    const errors: unknown[] = [];
    const workspace = await fresh((error) => errors.push(error));
    await undo(workspace, file);
    expect(await readFile(file, 'utf8')).toBe(text('v1'));
    expect(String(errors[0])).toMatch(/damaged line/);
    // The next write rewrites the index whole, so later lines are not glued to the garbage.
    await change(workspace, file, text('v3'));
    await undo(await fresh(), file);
    expect(await readFile(file, 'utf8')).toBe(text('v1'));
    await undo(await fresh(), file);
    expect(await readFile(file, 'utf8')).toBe(text('v0'));
  });

  it('an index emptied by a crash right after it was made means no history, and is written afresh', async () => {
    const { file, text } = await twoChanges();
    await writeFile(await indexFile(), '');
    expect((await refusal(undo(await fresh(), file))).code).toBe('NOTHING_TO_UNDO');
    const workspace = await fresh();
    await change(workspace, file, text('v3'));
    await undo(await fresh(), file);
    expect(await readFile(file, 'utf8')).toBe(text('v2'));
  });

  it('a small patch lives in its index line: no patch file, and a fresh instance undoes it', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'first\nv0\nlast\n');
    await change(await fresh(), file, 'first\nv1\nlast\n');
    expect(await patches()).toEqual([]);
    const [, added] = (await readFile(await indexFile(), 'utf8')).trimEnd().split('\n');
    expect(JSON.parse(added!).add.spans).toEqual([
      expect.objectContaining({ old: Buffer.from('0').toString('base64') }),
    ]);
    await undo(await fresh(), file);
    expect(await readFile(file, 'utf8')).toBe('first\nv0\nlast\n');
  });

  it('an inline patch that is not shaped as editgate writes it makes the whole index be ignored', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'first\nv0\nlast\n');
    await change(await fresh(), file, 'first\nv1\nlast\n');
    const index = await indexFile();
    const [header, added] = (await readFile(index, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    added.add.spans[0].newStart = -5;
    await writeFile(index, `${JSON.stringify(header)}\n${JSON.stringify(added)}\n`);
    const errors: unknown[] = [];
    expect((await refusal(undo(await fresh((error) => errors.push(error)), file))).code).toBe(
      'NOTHING_TO_UNDO',
    );
    expect(String(errors[0])).toMatch(/not one editgate wrote/);
    expect(await readFile(file, 'utf8')).toBe('first\nv1\nlast\n');
  });

  it('the log is rewritten when it grows, so it stays a few lines per entry kept', async () => {
    const file = join(dir, 'f.txt');
    await writeFile(file, 'v0\n');
    const workspace = await workspaceOf(new History({ stateDir: state, maxEntriesPerFile: 2 }));
    for (let v = 1; v <= 30; v++) await change(workspace, file, `v${v}\n`);
    const lines = (await readFile(await indexFile(), 'utf8')).trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(4 * 2 + 1);
    const next = await workspaceOf(new History({ stateDir: state, maxEntriesPerFile: 2 }));
    await undo(next, file);
    await undo(next, file);
    expect(await readFile(file, 'utf8')).toBe('v28\n');
    expect(await codeOf(undo(next, file))).toBe('NOTHING_TO_UNDO');
    expect(await patches()).toEqual([]);
  });
});
