/**
 * gate.settle: a write editgate did not make, recorded as its own are. Real files; the gate from
 * createEditTools, as every front end gets it.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Allowed } from '../../src/gate/gate.js';
import type { WrittenChange } from '../../src/gate/hooks.js';
import { createEditTools } from '../../src/tools/index.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function setUp(files: Record<string, string>) {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-settle-')));
  folders.push(top);
  const root = join(top, 'root');
  mkdirSync(root);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  const audit = join(top, 'audit.jsonl');
  const state = join(top, 'state');
  const hooked: WrittenChange[] = [];
  const tools = createEditTools({
    root,
    approve: 'allow',
    stateDir: state,
    auditLog: audit,
    hooks: { afterChange: (change) => void hooked.push(change) },
  });
  const lines = () =>
    existsSync(audit)
      ? readFileSync(audit, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  return { top, root, tools, hooked, lines, path: (name: string) => join(root, name) };
}

const BY_USER: Allowed = { decision: 'once', decidedBy: 'user' };

describe('gate.settle', () => {
  it('the approved bytes: matches, one audit line, the hook, and undo puts the old bytes back', async () => {
    const { tools, hooked, lines, path } = setUp({ 'a.txt': 'old\n' });
    const gate = await tools.gate();
    writeFileSync(path('a.txt'), 'new\n');
    const settled = await gate.settle({
      tool: 'save',
      writer: 'other-server',
      path: path('a.txt'),
      before: Buffer.from('old\n'),
      approved: { bytes: Buffer.from('new\n'), by: BY_USER },
    });
    expect(settled).toMatchObject({
      path: 'a.txt',
      kind: 'modify',
      matches: true,
      changed: true,
      undoable: true,
    });
    expect(settled.difference).toBeUndefined();
    expect(lines()).toEqual([
      expect.objectContaining({ tool: 'save', writer: 'other-server', asApproved: true, decidedBy: 'user' }),
    ]);
    expect(hooked.map((change) => change.unifiedDiff)).toEqual([expect.stringContaining('+new')]);
    expect(await tools.execute('undo_edit', { file_path: 'a.txt' })).toMatchObject({ ok: true });
    expect(readFileSync(path('a.txt'), 'utf8')).toBe('old\n');
  });

  it('other bytes than approved: says so (result, audit line) and keeps the old bytes for undo', async () => {
    const { tools, lines, path } = setUp({ 'a.txt': 'old\n' });
    const gate = await tools.gate();
    writeFileSync(path('a.txt'), 'something else\n');
    const settled = await gate.settle({
      tool: 'save',
      writer: 'other-server',
      path: path('a.txt'),
      before: Buffer.from('old\n'),
      approved: { bytes: Buffer.from('new\n'), by: BY_USER },
    });
    expect(settled.matches).toBe(false);
    expect(settled.difference).toContain('-new');
    expect(settled.difference).toContain('+something else');
    expect(lines()[0]).toMatchObject({
      asApproved: false,
      reason: expect.stringContaining('other-server left'),
    });
    expect(await tools.execute('undo_edit', { file_path: 'a.txt' })).toMatchObject({ ok: true });
    expect(readFileSync(path('a.txt'), 'utf8')).toBe('old\n');
  });

  it('a deletion and a creation nobody approved are recorded and undone', async () => {
    const { tools, lines, path } = setUp({ 'gone.txt': 'bytes\r\n\u00e9' });
    const gate = await tools.gate();
    rmSync(path('gone.txt'));
    writeFileSync(path('made.txt'), 'made\n');
    const gone = await gate.settle({
      tool: 'bash',
      writer: 'a command: x',
      path: path('gone.txt'),
      before: Buffer.from('bytes\r\n\u00e9'),
    });
    const made = await gate.settle({
      tool: 'bash',
      writer: 'a command: x',
      path: path('made.txt'),
      before: null,
    });
    expect([gone.kind, gone.matches, gone.undoable]).toEqual(['delete', null, true]);
    expect([made.kind, made.undoable]).toEqual(['create', true]);
    expect(lines().map((line) => [line.path, line.kind, line.decision])).toEqual([
      ['gone.txt', 'delete', 'unreviewed'],
      ['made.txt', 'create', 'unreviewed'],
    ]);
    expect(await tools.execute('undo_edit', { file_path: 'gone.txt' })).toMatchObject({ ok: true });
    expect(readFileSync(path('gone.txt'), 'utf8')).toBe('bytes\r\n\u00e9');
    expect(await tools.execute('undo_edit', { file_path: 'made.txt' })).toMatchObject({ ok: true });
    expect(existsSync(path('made.txt'))).toBe(false);
  });

  it('old bytes not known: audited and hooked, but nothing for undo (and the file is not read)', async () => {
    const { tools, hooked, lines, path } = setUp({ 'big.bin': 'x' });
    const gate = await tools.gate();
    const settled = await gate.settle({
      tool: 'bash',
      writer: 'a command: x',
      path: path('big.bin'),
      before: undefined,
    });
    expect(settled).toMatchObject({ kind: 'modify', undoable: false, matches: null });
    expect(lines()[0]).toMatchObject({ reason: expect.stringContaining('cannot be undone') });
    expect(hooked).toHaveLength(1);
    expect(await tools.execute('undo_edit', { file_path: 'big.bin' })).toMatchObject({
      ok: false,
      code: 'NOTHING_TO_UNDO',
    });
  });

  it('no change: no history, no hooks, an audit line that says noop', async () => {
    const { tools, hooked, lines, path } = setUp({ 'a.txt': 'same\n' });
    const gate = await tools.gate();
    const settled = await gate.settle({
      tool: 'bash',
      writer: 'a command: x',
      path: path('a.txt'),
      before: Buffer.from('same\n'),
    });
    expect(settled).toMatchObject({ kind: 'noop', changed: false, undoable: false });
    expect(hooked).toEqual([]);
    expect(lines()[0]).toMatchObject({ kind: 'noop' });
  });

  it('a file the writer replaced with a link to another file is refused: that file gets no history', async () => {
    const { tools, lines, path } = setUp({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const gate = await tools.gate();
    rmSync(path('a.txt'));
    symlinkSync(path('b.txt'), path('a.txt'));
    await expect(
      gate.settle({
        tool: 'save',
        writer: 'other-server',
        path: path('a.txt'),
        before: Buffer.from('a\n'),
        approved: { bytes: Buffer.from('A\n'), by: BY_USER },
      }),
    ).rejects.toMatchObject({ code: 'OUTSIDE_ROOT' });
    expect(lines()[0]).toMatchObject({ code: 'OUTSIDE_ROOT', writer: 'other-server' });
    // Had b.txt been given a.txt's history, its undo would write a.txt's old bytes into b.txt.
    expect(await tools.execute('undo_edit', { file_path: 'b.txt' })).toMatchObject({
      ok: false,
      code: 'NOTHING_TO_UNDO',
    });
    expect(readFileSync(path('b.txt'), 'utf8')).toBe('b\n');
  });

  it('a path that now leads out of the root through a link is refused (OUTSIDE_ROOT): nothing recorded', async () => {
    const { top, tools, path } = setUp({});
    const outside = join(top, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'x.txt'), 'outside\n');
    symlinkSync(outside, path('keys'));
    const gate = await tools.gate();
    await expect(
      gate.settle({ tool: 'bash', writer: 'a command: x', path: path('keys/x.txt'), before: null }),
    ).rejects.toMatchObject({ code: 'OUTSIDE_ROOT' });
    expect(await tools.execute('undo_edit', { file_path: 'keys/x.txt' })).toMatchObject({ ok: false });
    expect(readFileSync(join(outside, 'x.txt'), 'utf8')).toBe('outside\n');
  });
});
