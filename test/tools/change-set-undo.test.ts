// Undo of a change set that deleted or moved files (issue #16): undoing any file of the set puts every file
// back byte for byte (BOM, encoding, line endings, mode), moved files moved back; refused cleanly when a
// deleted path has been created again by someone else.
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/gate/approval.js';
import { makeWorkspace } from './workspace-fixture.js';

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
const BOM_CRLF = Buffer.from('\uFEFFfirst\r\nsecond\r\n', 'utf8');
const UTF16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('one\r\ntwo\r\n', 'utf16le')]);

const states: string[] = [];
afterEach(async () => {
  while (states.length > 0) await rm(states.pop()!, { recursive: true, force: true });
});
async function stateDir() {
  const dir = await mkdtemp(join(tmpdir(), 'editgate-set-undo-state-'));
  states.push(dir);
  return dir;
}

async function setWorkspace() {
  const ws = await makeWorkspace({
    'a.txt': 'a1\n',
    'gone.txt': BOM_CRLF,
    'wide.txt': UTF16,
  });
  await chmod(ws.path('gone.txt'), 0o640);
  await chmod(ws.path('wide.txt'), 0o600);
  return ws;
}

const setPatch = patch(
  '*** Update File: a.txt',
  '-a1',
  '+a2',
  '*** Delete File: gone.txt',
  '*** Update File: wide.txt',
  '*** Move to: moved/wide.txt',
  ' one',
  '-two',
  '+TWO',
);

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('undo of a change set that deleted and moved files', () => {
  for (const kept of ['in memory', 'on disk, by another process'] as const) {
    it(`puts every file back byte for byte, from any file of the set (history ${kept})`, async () => {
      const ws = await setWorkspace();
      const state = kept === 'in memory' ? undefined : await stateDir();
      const tools = ws.tools({ stateDir: state });
      const applied = await tools.execute('apply_patch', { patch: setPatch });
      expect(applied.ok, applied.message).toBe(true);
      await expect(ws.bytes('gone.txt')).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(ws.bytes('wide.txt')).rejects.toMatchObject({ code: 'ENOENT' });
      // The move kept the BOM, UTF-16 and CRLF.
      expect(await ws.bytes('moved/wide.txt')).toEqual(
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('one\r\nTWO\r\n', 'utf16le')]),
      );

      const undoer = state ? ws.tools({ stateDir: state }) : tools;
      // Undo named by the deleted file itself: the whole set goes back.
      const undone = await undoer.execute('undo_edit', { file_path: 'gone.txt' });
      expect(undone.ok, undone.message).toBe(true);
      expect(await ws.text('a.txt')).toBe('a1\n');
      expect(await ws.bytes('gone.txt')).toEqual(BOM_CRLF);
      expect(await mode(ws.path('gone.txt'))).toBe(0o640);
      expect(await ws.bytes('wide.txt')).toEqual(UTF16);
      expect(await mode(ws.path('wide.txt'))).toBe(0o600);
      await expect(ws.bytes('moved/wide.txt')).rejects.toMatchObject({ code: 'ENOENT' });

      // Nothing further to undo for any of them.
      const again = await undoer.execute('undo_edit', { file_path: 'a.txt' });
      expect(again).toMatchObject({ ok: false, code: 'NOTHING_TO_UNDO' });
    });
  }

  it('undo from a file the set changed shows the restored files in one approval', async () => {
    const ws = await setWorkspace();
    const asked: { path: string; kind: string }[][] = [];
    const tools = ws.tools({
      approve: (request) => {
        asked.push((request.files ?? [request]).map((file) => ({ path: file.path, kind: file.kind })));
        return 'once';
      },
    });
    expect((await tools.execute('apply_patch', { patch: setPatch })).ok).toBe(true);
    const undone = await tools.execute('undo_edit', { file_path: 'moved/wide.txt' });
    expect(undone.ok, undone.message).toBe(true);
    expect(asked[1]).toEqual(
      expect.arrayContaining([
        { path: 'moved/wide.txt', kind: 'delete' },
        { path: 'gone.txt', kind: 'create' },
        { path: 'wide.txt', kind: 'create' },
        { path: 'a.txt', kind: 'modify' },
      ]),
    );
    expect(await ws.bytes('gone.txt')).toEqual(BOM_CRLF);
    expect(await ws.bytes('wide.txt')).toEqual(UTF16);
  });

  it('refuses the whole undo when a deleted path has been created again by someone else', async () => {
    const ws = await setWorkspace();
    const tools = ws.tools();
    expect((await tools.execute('apply_patch', { patch: setPatch })).ok).toBe(true);
    await writeFile(ws.path('gone.txt'), 'someone else\n');
    const undone = await tools.execute('undo_edit', { file_path: 'a.txt' });
    expect(undone).toMatchObject({ ok: false, code: 'FILE_EXISTS' });
    expect(undone.message).toContain('gone.txt');
    expect(undone.message).toContain('Nothing was written');
    // Nothing of the set was touched, and the newcomer is kept.
    expect(await ws.text('a.txt')).toBe('a2\n');
    expect(await ws.text('gone.txt')).toBe('someone else\n');
    await expect(ws.bytes('wide.txt')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await ws.bytes('moved/wide.txt')).toBeDefined();
    // Once the newcomer is moved away, the undo goes ahead.
    await rm(ws.path('gone.txt'));
    const retried = await tools.execute('undo_edit', { file_path: 'a.txt' });
    expect(retried.ok, retried.message).toBe(true);
    expect(await ws.bytes('gone.txt')).toEqual(BOM_CRLF);
  });

  it('undoes a lone deletion, and a huge file deleted on the streaming path', async () => {
    const big = Buffer.from(`${'x'.repeat(99)}\r\n`.repeat(200));
    const ws = await makeWorkspace({ 'lone.txt': BOM_CRLF, 'big.log': big });
    const state = await stateDir();
    const tools = ws.tools({ streamThreshold: 4096, stateDir: state });
    const deleted = await tools.execute('apply_patch', {
      patch: patch('*** Delete File: lone.txt', '*** Delete File: big.log'),
    });
    expect(deleted.ok, deleted.message).toBe(true);
    await expect(ws.bytes('big.log')).rejects.toMatchObject({ code: 'ENOENT' });
    const undone = await ws.tools({ streamThreshold: 4096, stateDir: state }).execute('undo_edit', {
      file_path: 'big.log',
    });
    expect(undone.ok, undone.message).toBe(true);
    expect(await ws.bytes('big.log')).toEqual(big);
    expect(await ws.bytes('lone.txt')).toEqual(BOM_CRLF);

    const single = await tools.execute('apply_patch', { patch: patch('*** Delete File: lone.txt') });
    expect(single.ok, single.message).toBe(true);
    const back = await tools.execute('undo_edit', { file_path: 'lone.txt' });
    expect(back.ok, back.message).toBe(true);
    expect(await ws.bytes('lone.txt')).toEqual(BOM_CRLF);
  });
});

describe('a move onto an existing file', () => {
  it('replaces it as Codex does: its loss is in the diff and the note, one approval covers it, undo puts both back', async () => {
    const ws = await makeWorkspace({ 'src.txt': BOM_CRLF, 'dest.txt': 'kept line\nsecond kept line\n' });
    await chmod(ws.path('dest.txt'), 0o600);
    const asked: ApprovalRequest[] = [];
    const tools = ws.tools({
      approve: (request) => {
        asked.push(request);
        return 'once';
      },
    });
    const moved = await tools.execute('apply_patch', {
      patch: patch('*** Update File: src.txt', '*** Move to: dest.txt', ' first', '-second', '+SECOND'),
    });
    expect(moved.ok, moved.message).toBe(true);
    expect(asked).toHaveLength(1);
    const dest = asked[0]!.files!.find((file) => file.path === 'dest.txt')!;
    expect(dest.kind).toBe('modify');
    expect(dest.unifiedDiff).toContain('-kept line');
    expect(dest.unifiedDiff).toContain('-second kept line');
    expect(dest.note).toContain('dest.txt already exists');
    expect(dest.note).toContain('is lost');
    // The moved content keeps its BOM and CRLF over the file it replaced.
    expect(await ws.bytes('dest.txt')).toEqual(Buffer.from('\uFEFFfirst\r\nSECOND\r\n', 'utf8'));
    await expect(ws.bytes('src.txt')).rejects.toMatchObject({ code: 'ENOENT' });

    const undone = await tools.execute('undo_edit', { file_path: 'dest.txt' });
    expect(undone.ok, undone.message).toBe(true);
    expect(await ws.text('dest.txt')).toBe('kept line\nsecond kept line\n');
    expect(await mode(ws.path('dest.txt'))).toBe(0o600);
    expect(await ws.bytes('src.txt')).toEqual(BOM_CRLF);
  });

  it('a moved file keeps its mode; a refused move onto an existing file writes nothing', async () => {
    const ws = await makeWorkspace({ 'run.sh': '#!/bin/sh\necho hi\n', 'other.sh': 'old\n' });
    await chmod(ws.path('run.sh'), 0o750);
    const tools = ws.tools();
    const moved = await tools.execute('apply_patch', {
      patch: patch(
        '*** Update File: run.sh',
        '*** Move to: bin/run.sh',
        ' #!/bin/sh',
        '-echo hi',
        '+echo bye',
      ),
    });
    expect(moved.ok, moved.message).toBe(true);
    expect(await mode(ws.path('bin/run.sh'))).toBe(0o750);

    const denied = await ws.tools({ approve: 'deny' }).execute('apply_patch', {
      patch: patch('*** Update File: bin/run.sh', '*** Move to: other.sh', ' #!/bin/sh'),
    });
    expect(denied.ok).toBe(false);
    expect(await ws.text('other.sh')).toBe('old\n');
    expect(await ws.text('bin/run.sh')).toBe('#!/bin/sh\necho bye\n');
  });
});
