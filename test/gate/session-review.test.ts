/**
 * The session log and its review (#30 item 4), through the library: every change a tool set's gate settles
 * is logged under its session; a review shows base -> what the session left, reverts the hunks the person
 * leaves out through the gate (byte for byte, CRLF kept), refuses a file changed since, and leaves the
 * reasons for the model once.
 */
import { readFile, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applySessionReview, openSessionReview } from '../../src/gate/session-review.js';
import {
  findSession,
  listSessions,
  readSession,
  sessionFolderName,
} from '../../src/workspace/session-log.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';

const ORIGINAL = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\r\n')}\r\n`;
const ALL_THREE = ORIGINAL.replace('line 3\r\n', 'line three\r\n')
  .replace('line 15\r\n', 'line fifteen\r\n')
  .replace('line 27\r\n', 'line twenty-seven\r\n');

async function loggedRun(files: Record<string, string> = { 'a.txt': ORIGINAL }) {
  const ws = await makeWorkspace(files);
  const stateDir = tempFolder('editgate-session-state-');
  const tools = ws.tools({ stateDir, sessionLog: { id: 'run-1', face: 'library', label: 'the test' } });
  return { ws, stateDir, tools, gate: await tools.gate() };
}

describe('the session log', () => {
  it('logs every settled write under the session, and lists it', async () => {
    const { tools, stateDir, ws } = await loggedRun();
    await readAll(tools, 'a.txt');
    expect((await tools.execute('write_file', { file_path: 'a.txt', content: ALL_THREE })).ok).toBe(true);
    expect((await tools.execute('write_file', { file_path: 'b.txt', content: 'new\n' })).ok).toBe(true);
    const [listed] = await listSessions(stateDir);
    expect(listed?.info).toMatchObject({ id: 'run-1', face: 'library', label: 'the test', roots: [ws.root] });
    expect(listed?.changes.map((change) => [change.path, change.kind, change.before === null])).toEqual([
      ['a.txt', 'modify', false],
      ['b.txt', 'create', true],
    ]);
    expect((await findSession(stateDir, 'last')).info.id).toBe('run-1');
    await expect(findSession(stateDir, 'nope')).rejects.toThrow(
      'There is no session "nope". Recent ones: run-1',
    );
  });

  it('a session id from anywhere becomes a safe folder name, distinct ids stay distinct', () => {
    expect(sessionFolderName('run-1')).toBe('run-1');
    expect(sessionFolderName('../../etc')).not.toContain('/');
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const [x, y] = [sessionFolderName(a), sessionFolderName(b)];
        expect(x).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
        if (a !== b) expect(x).not.toBe(y);
      }),
    );
  });
});

describe('reviewing a session', () => {
  it('reverts hunk 2 byte for byte (CRLF kept), audited, undoable; the note is taken once', async () => {
    const { tools, stateDir, gate, ws } = await loggedRun();
    await readAll(tools, 'a.txt');
    await tools.execute('write_file', { file_path: 'a.txt', content: ALL_THREE });
    const review = await openSessionReview((await readSession(stateDir, 'run-1'))!);
    expect(review.question?.files.map((file) => [file.path, file.diff.hunks.length])).toEqual([['a.txt', 3]]);
    const outcome = await applySessionReview(gate, review, {
      allow: 'once',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'keep the number' }] } },
    });
    expect(outcome.refused).toEqual([]);
    expect(
      (await ws.bytes('a.txt')).equals(Buffer.from(ALL_THREE.replace('line fifteen\r\n', 'line 15\r\n'))),
    ).toBe(true);
    expect(outcome.note).toContain(
      "a.txt hunk 2 of 3 (line 15 as it is now): the user's reason: keep the number",
    );
    expect(await gate.sessionLog?.takeNote()).toBe(outcome.note);
    expect(await gate.sessionLog?.takeNote()).toBeUndefined();
    // The revert is in history: undo puts the hunk back.
    expect((await tools.execute('undo_edit', { file_path: 'a.txt' })).ok).toBe(true);
    expect(await ws.bytes('a.txt')).toEqual(Buffer.from(ALL_THREE));
  });

  it('a denial reverts everything: a created file goes, a modified one is back as it was', async () => {
    const { tools, stateDir, gate, ws } = await loggedRun();
    await readAll(tools, 'a.txt');
    await tools.execute('write_file', { file_path: 'a.txt', content: ALL_THREE });
    await tools.execute('write_file', { file_path: 'b.txt', content: 'new\n' });
    const review = await openSessionReview((await readSession(stateDir, 'run-1'))!);
    expect(review.question?.files.find((file) => file.path === 'b.txt')?.wholeOnly).toContain(
      'created in the session',
    );
    const outcome = await applySessionReview(gate, review, { deny: 'start over' });
    expect(outcome.reverted.map((file) => file.path).sort()).toEqual(['a.txt', 'b.txt']);
    expect(await ws.bytes('a.txt')).toEqual(Buffer.from(ORIGINAL));
    await expect(readFile(ws.path('b.txt'))).rejects.toThrow(/ENOENT/);
    // Nothing is left: the session's changes add up to nothing.
    const again = await openSessionReview((await readSession(stateDir, 'run-1'))!);
    expect(again.question).toBeUndefined();
    expect(again.settled).toBe(2);
  });

  it('a file changed after the review was shown is refused for it alone; nothing lost', async () => {
    const { tools, stateDir, gate, ws } = await loggedRun();
    await readAll(tools, 'a.txt');
    await tools.execute('write_file', { file_path: 'a.txt', content: ALL_THREE });
    const review = await openSessionReview((await readSession(stateDir, 'run-1'))!);
    await writeFile(ws.path('a.txt'), `${ALL_THREE}mine\r\n`);
    const outcome = await applySessionReview(gate, review, 'deny');
    expect(outcome.refused).toEqual([
      {
        path: 'a.txt',
        why: 'a.txt changed since this review was shown (something else wrote it), so hunks 1, 2, 3 were not reverted and nothing was written. Review the session again to see it as it is now.',
      },
    ]);
    expect(await ws.text('a.txt')).toBe(`${ALL_THREE}mine\r\n`);
    // Shown again, the file is said to have changed since, and is not offered.
    const again = await openSessionReview((await readSession(stateDir, 'run-1'))!);
    expect(again.unreviewable[0]?.why).toContain('it was changed since the session left it');
  });

  it('a choice of hunks that does not fit is refused whole, nothing reverted', async () => {
    const { tools, stateDir, gate, ws } = await loggedRun();
    await readAll(tools, 'a.txt');
    await tools.execute('write_file', { file_path: 'a.txt', content: ALL_THREE });
    const review = await openSessionReview((await readSession(stateDir, 'run-1'))!);
    await expect(
      applySessionReview(gate, review, { allow: 'once', hunks: { 'a.txt': { accept: [0, 5] } } }),
    ).rejects.toThrow('a.txt has no hunk 5 (its diff has 3, numbered 0 to 2); nothing was reverted.');
    expect(await ws.text('a.txt')).toBe(ALL_THREE);
  });

  it('a write someone else made (settled through the gate) is in the session too', async () => {
    const { stateDir, gate, ws } = await loggedRun();
    await writeFile(ws.path('a.txt'), ALL_THREE);
    await gate.settle({
      tool: 'Edit',
      writer: 'claude-code',
      path: ws.path('a.txt'),
      before: Buffer.from(ORIGINAL),
    });
    const review = await openSessionReview((await readSession(stateDir, 'run-1'))!);
    expect(review.files[0]).toMatchObject({ path: 'a.txt', writers: ['claude-code'] });
    expect(review.question?.files[0]?.diff.hunks.length).toBe(3);
  });
});
