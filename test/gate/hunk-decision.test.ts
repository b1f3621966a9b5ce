// Part of a change, hunk by hunk (#30): the gate writes exactly the accepted hunks, byte for byte, tells the
// model what landed and what did not with the person's reasons, and refuses a choice it cannot follow.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/diff.js';
import { applySomeHunks } from '../../src/core/diff-hunks.js';
import { splitLines } from '../../src/core/lines.js';
import type { ApprovalRequest, Decision } from '../../src/gate/approval.js';
import type { ChangeRequest, Screening } from '../../src/gate/gate.js';
import { hunkChoiceProblem } from '../../src/gate/hunk-decision.js';
import type { Proposal } from '../../src/gate/proposal.js';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

/** Twenty lines, "line 1" to "line 20", with `eol` and a final terminator or not. */
function numbered(eol: string, final = true): string {
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  return lines.join(eol) + (final ? eol : '');
}

/** Three far-apart changes: line 2, line 10 and line 19 (three hunks). */
function threeChanges(text: string): string {
  return text
    .replace('line 2', 'line two')
    .replace('line 10', 'line ten')
    .replace('line 19', 'line nineteen');
}

async function proposeThree(eol: string, final: boolean, decision: Decision) {
  const before = numbered(eol, final);
  const ws = await makeWorkspace({ 'a.txt': before });
  const previews: Array<[Proposal, Screening]> = [];
  const { approver, asked } = scriptedApprover(decision);
  const tools = ws.tools({
    approve: approver,
    onPreview: (proposal, screening) => {
      previews.push([proposal, screening]);
    },
  });
  await readAll(tools, 'a.txt');
  const result = await tools.execute('write_file', { file_path: 'a.txt', content: threeChanges(before) });
  return { ws, result, asked, previews, before };
}

describe('a decision hunk by hunk', () => {
  it('3 hunks, hunk 2 rejected: writes hunks 1 and 3 only, and the model reads the reason', async () => {
    const { ws, result, asked, previews } = await proposeThree('\n', true, {
      allow: 'once',
      hunks: {
        'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'line 10 is referenced by the docs' }] },
      },
    });
    expect(asked[0]!.diff.hunks).toHaveLength(3);
    expect(asked[0]!.wholeOnly).toBeUndefined();
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text('a.txt')).toBe(
      numbered('\n').replace('line 2', 'line two').replace('line 19', 'line nineteen'),
    );
    // Shown again: the diff of what is written, only the accepted hunks.
    expect(previews).toHaveLength(2);
    expect(previews[1]![1]).toEqual({ ask: false, approvedBy: 'user', hunks: true });
    expect(previews[1]![0].unifiedDiff).toContain('+line two');
    expect(previews[1]![0].unifiedDiff).not.toContain('line ten');
    expect(result.message).toMatchInlineSnapshot(`
      "Edited a.txt: +2 -2 lines.
      The user accepted only part of your change; the rest was NOT written.
      Written: a.txt: 2 of 3 hunks: hunk 1 (now line 2), hunk 3 (now line 19).
      Not written (the file keeps its old text there; line numbers are of the file as it is now):
      - a.txt hunk 2 of 3 (line 10 as it is now): the user's reason: line 10 is referenced by the docs
          -line 10
          +line ten
      Build on the files as they are now. Do not write the rejected hunks again as they were: where a change is still needed there, follow the user's reason, or ask them.
      The changed region now reads:
           1	line 1
           2	line two
           3	line 3
           4	line 4
           5	line 5
         ...
          16	line 16
          17	line 17
          18	line 18
          19	line nineteen
          20	line 20"
    `);
    expect(result.details).toMatchObject({
      decision: 'once',
      decidedBy: 'user',
      written: true,
      hunks: {
        'a.txt': { written: [0, 2], rejected: [{ hunk: 1, reason: 'line 10 is referenced by the docs' }] },
      },
    });
  });

  it('keeps CRLF and a missing final newline byte for byte', async () => {
    const { ws, result, before } = await proposeThree('\r\n', false, {
      allow: 'once',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1 }] } },
    });
    expect(result.ok, result.message).toBe(true);
    const expected = before.replace('line 2', 'line two').replace('line 19', 'line nineteen');
    expect((await ws.bytes('a.txt')).toString('hex')).toBe(Buffer.from(expected).toString('hex'));
    expect(result.message).toContain('a.txt hunk 2 of 3 (line 10 as it is now): no reason given');
  });

  it('keeps a byte-order mark and a UTF-16 encoding', async () => {
    for (const [encoding, bom] of [
      ['utf8', Buffer.from([0xef, 0xbb, 0xbf])],
      ['utf16le', Buffer.from([0xff, 0xfe])],
    ] as const) {
      const text = numbered('\r\n');
      const ws = await makeWorkspace({ 'a.txt': Buffer.concat([bom, Buffer.from(text, encoding)]) });
      const tools = ws.tools({
        approve: scriptedApprover({ allow: 'once', hunks: { 'a.txt': { accept: [2] } } }).approver,
      });
      await readAll(tools, 'a.txt');
      const result = await tools.execute('write_file', { file_path: 'a.txt', content: threeChanges(text) });
      expect(result.ok, result.message).toBe(true);
      const expected = Buffer.concat([bom, Buffer.from(text.replace('line 19', 'line nineteen'), encoding)]);
      expect((await ws.bytes('a.txt')).toString('hex')).toBe(expected.toString('hex'));
    }
  });

  it('a hunk neither accepted nor rejected is not written (rejected, no reason)', async () => {
    const { ws, result } = await proposeThree('\n', true, {
      allow: 'once',
      hunks: { 'a.txt': { accept: [1] } },
    });
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text('a.txt')).toBe(numbered('\n').replace('line 10', 'line ten'));
    expect(result.details.hunks).toEqual({ 'a.txt': { written: [1], rejected: [{ hunk: 0 }, { hunk: 2 }] } });
  });

  it('every hunk accepted is the proposal as it was, a plain approval', async () => {
    const { ws, result, before, previews } = await proposeThree('\n', true, {
      allow: 'once',
      hunks: { 'a.txt': { accept: [2, 0, 1] } },
    });
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text('a.txt')).toBe(threeChanges(before));
    expect(result.message).not.toContain('part of your change');
    expect(result.details.hunks).toBeUndefined();
    expect(previews).toHaveLength(1);
  });

  it('every hunk rejected is a refusal with the reasons; the file is unchanged', async () => {
    const { ws, result, before } = await proposeThree('\n', true, {
      allow: 'all',
      hunks: { 'a.txt': { accept: [], reject: [{ hunk: 0, reason: 'keep line 2' }, { hunk: 2 }] } },
    });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(result.message).toContain('they rejected every hunk of it, so nothing was written');
    expect(result.message).toContain(
      "a.txt hunk 1 of 3 (line 2 as it is now): the user's reason: keep line 2",
    );
    expect(result.message).toContain('a.txt hunk 2 of 3 (line 10 as it is now): no reason given');
    expect(await ws.text('a.txt')).toBe(before);
  });

  it('every hunk rejected without a reason is a plain no, and grants nothing', async () => {
    const before = numbered('\n');
    const ws = await makeWorkspace({ 'a.txt': before });
    const { approver, asked } = scriptedApprover(
      { allow: 'all', hunks: { 'a.txt': { accept: [] } } },
      'once',
    );
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: threeChanges(before) });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(result.message).toContain('Do not retry it as is');
    expect(await ws.text('a.txt')).toBe(before);
    // Asked again: the rejected change gave no "all" grant.
    expect((await tools.execute('write_file', { file_path: 'a.txt', content: 'x\n' })).ok).toBe(true);
    expect(asked).toHaveLength(2);
  });

  it.each([
    [{ 'a.txt': { accept: [0, 3] } }, 'a.txt has no hunk 3 (its diff has 3, numbered 0 to 2)'],
    [{ 'a.txt': { accept: [-1] } }, 'a.txt has no hunk -1'],
    [{ 'a.txt': { accept: [0.5] } }, 'a.txt has no hunk 0.5'],
    [{ 'a.txt': { accept: [1], reject: [{ hunk: 1 }] } }, 'hunk 1 of a.txt is both accepted and rejected'],
    [{ 'a.txt': { accept: [1, 1] } }, 'hunk 1 of a.txt is accepted twice'],
    [{ 'b.txt': { accept: [0] } }, 'it names b.txt, which this change does not touch (its files: a.txt)'],
    [{ 'a.txt': { accept: [0], rejects: [] } }, 'hunks["a.txt"] has rejects, which is not accept or reject'],
    [{ 'a.txt': { reject: [{ hunk: 0 }] } }, 'hunks["a.txt"].accept must be a list of hunk numbers'],
    [
      { 'a.txt': { accept: [0], reject: [{ hunk: 1, why: 'x' }] } },
      'reject has why, which is not hunk or reason',
    ],
    [
      { 'a.txt': { accept: [0], reject: [{ hunk: 1, reason: 7 }] } },
      'the reason for hunk 1 of a.txt must be text',
    ],
    [['a.txt'], '`hunks` must be an object'],
  ])('a choice it cannot follow is refused, nothing written: %j', async (hunks, why) => {
    const { ws, result, before } = await proposeThree('\n', true, {
      allow: 'once',
      hunks,
    } as unknown as Decision);
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(result.message).toContain("the approval's choice of hunks cannot be used");
    expect(result.message).toContain(why);
    expect(result.message).toContain('nothing was written');
    expect(await ws.text('a.txt')).toBe(before);
  });

  it('a front end can check a choice before answering, with the same words', async () => {
    const { asked } = await proposeThree('\n', true, 'deny');
    const request: ApprovalRequest = asked[0]!;
    expect(hunkChoiceProblem(request, { 'a.txt': { accept: [0] } })).toBeNull();
    expect(hunkChoiceProblem(request, { 'a.txt': { accept: [9] } })).toContain('a.txt has no hunk 9');
  });

  it('a change of many hunks: the first rejected ones in full, the rest by number, every reason kept', async () => {
    const before = Array.from({ length: 400 }, (_, i) => `line ${i + 1}\n`).join('');
    const after = before.replace(/^line (\d*0)$/gm, 'LINE $1');
    const ws = await makeWorkspace({ 'a.txt': before });
    const { approver, asked } = scriptedApprover({
      allow: 'once',
      hunks: { 'a.txt': { accept: [0], reject: [{ hunk: 39, reason: 'not the last one' }] } },
    });
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: after });
    expect(asked[0]!.diff.hunks).toHaveLength(40);
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text('a.txt')).toBe(before.replace('line 10\n', 'LINE 10\n'));
    expect(result.message).toContain('- a.txt hunk 31 of 40 (line 310 as it is now): no reason given\n');
    expect(result.message).not.toContain('hunk 32 of 40');
    expect(result.message).toContain(
      '- a.txt, also not written, hunks 32 (line 320 as it is now), 33 (line 330 as it is now)',
    );
    expect(result.message).toContain('40 (line 400 as it is now; reason: not the last one)');
    expect(result.message.length).toBeLessThan(4000);
  });

  it('a change of many hunks: the first written ones by place, the rest counted', async () => {
    const before = Array.from({ length: 400 }, (_, i) => `line ${i + 1}\n`).join('');
    const after = before.replace(/^line (\d*0)$/gm, 'LINE $1');
    const ws = await makeWorkspace({ 'a.txt': before });
    const accept = [...Array(39).keys()];
    const tools = ws.tools({
      approve: scriptedApprover({ allow: 'once', hunks: { 'a.txt': { accept } } }).approver,
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: after });
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text('a.txt')).toBe(after.replace('LINE 400', 'line 400'));
    expect(result.message).toContain(
      'Written: a.txt: 39 of 40 hunks: hunk 1 (now line 10), hunk 2 (now line 20), ',
    );
    expect(result.message).toContain('hunk 30 (now line 300), 9 more.\n');
    expect(result.message).toContain('- a.txt hunk 40 of 40 (line 400 as it is now): no reason given\n');
  });

  it('a file changed while the person chose: STALE, nothing written', async () => {
    const before = numbered('\n');
    const ws = await makeWorkspace({ 'a.txt': before });
    const tools = ws.tools({
      approve: async () => {
        await ws.put('a.txt', `${before}more\n`);
        return { allow: 'once', hunks: { 'a.txt': { accept: [0] } } };
      },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: threeChanges(before) });
    expect(result).toMatchObject({ ok: false, code: 'STALE' });
    expect(await ws.text('a.txt')).toBe(`${before}more\n`);
  });

  it('a new file has one hunk: accepted it is created, rejected it is not', async () => {
    const ws = await makeWorkspace();
    const { approver, asked } = scriptedApprover(
      { allow: 'once', hunks: { 'n.md': { accept: [0] } } },
      { allow: 'once', hunks: { 'm.md': { accept: [], reject: [{ hunk: 0, reason: 'no new files' }] } } },
    );
    const tools = ws.tools({ approve: approver });
    expect((await tools.execute('write_file', { file_path: 'n.md', content: '# N\n\ntext\n' })).ok).toBe(
      true,
    );
    expect(asked[0]!.diff.hunks).toHaveLength(1);
    expect(await ws.text('n.md')).toBe('# N\n\ntext\n');
    const refused = await tools.execute('write_file', { file_path: 'm.md', content: '# M\n' });
    expect(refused).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(refused.message).toContain("the user's reason: no new files");
    await expect(ws.text('m.md')).rejects.toThrow();
  });

  it('an undo and a deletion are taken whole: a part of one is refused', async () => {
    const before = numbered('\n');
    const ws = await makeWorkspace({ 'a.txt': before });
    const { approver, asked } = scriptedApprover('once', {
      allow: 'once',
      hunks: { 'a.txt': { accept: [0] } },
    });
    const tools = ws.tools({ approve: approver });
    await readAll(tools, 'a.txt');
    expect(
      (await tools.execute('write_file', { file_path: 'a.txt', content: threeChanges(before) })).ok,
    ).toBe(true);
    const undone = await tools.execute('undo_edit', { file_path: 'a.txt' });
    expect(asked[1]!.wholeOnly).toBe("a.txt's change is an undo, which puts back the earlier version whole");
    expect(undone).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(undone.message).toContain(
      'an undo, which puts back the earlier version whole; accept all of its hunks or none',
    );
    expect(await ws.text('a.txt')).toBe(threeChanges(before));
  });

  it('a huge streamed file is taken whole: a part is refused, all of it is written', async () => {
    const big = 'line\n'.repeat(500);
    const ws = await makeWorkspace({ 'big.txt': big });
    const { approver, asked } = scriptedApprover(
      { allow: 'once', hunks: { 'big.txt': { accept: [0], reject: [{ hunk: 1 }] } } },
      { allow: 'once', hunks: { 'big.txt': { accept: [0, 1] } } },
    );
    const tools = ws.tools({ approve: approver, streamThreshold: 100 });
    await readAll(tools, 'big.txt');
    const edit = {
      file_path: 'big.txt',
      edits: [
        { range: [1, 1], replacement: 'first\n' },
        { range: [400, 400], replacement: 'later\n' },
      ],
    };
    const part = await tools.execute('edit_lines', edit);
    expect(asked[0]!.diff.hunks).toHaveLength(2);
    expect(asked[0]!.wholeOnly).toBe(
      'big.txt is too large to hold in memory, so its change is accepted or rejected whole',
    );
    expect(part).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(part.message).toContain('accept all of its hunks or none');
    expect(await ws.text('big.txt')).toBe(big);
    const whole = await tools.execute('edit_lines', edit);
    expect(whole.ok, whole.message).toBe(true);
    // Exactly what a plain yes writes.
    const plain = await makeWorkspace({ 'big.txt': big });
    const yes = plain.tools({ streamThreshold: 100 });
    await readAll(yes, 'big.txt');
    expect((await yes.execute('edit_lines', edit)).ok).toBe(true);
    expect(await ws.text('big.txt')).toBe(await plain.text('big.txt'));
    expect(await ws.text('big.txt')).toContain('later');
  });

  it('hunks with an edited version or a note that is not text is no documented decision: a denial', async () => {
    for (const answer of [
      { allow: 'once', hunks: { 'a.txt': { accept: [0] } }, edited: { 'a.txt': 'x\n' } },
      { allow: 'once', hunks: { 'a.txt': { accept: [0] } }, reason: 42 },
      { allow: 'sometimes', hunks: { 'a.txt': { accept: [0] } } },
    ]) {
      const { ws, result, before } = await proposeThree('\n', true, answer as unknown as Decision);
      expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
      expect(result.message).toContain('the approver gave an unknown decision');
      expect(await ws.text('a.txt')).toBe(before);
    }
  });
});

/** A change set appending a line to the end of every file and one near its top. */
function twoPlaces(paths: string[]): Omit<ChangeRequest, 'signal'> {
  const file = (path: string) => ({
    path,
    requireRead: false,
    prepare: ((workspace, resolved, options) =>
      workspace.edit(
        resolved,
        { compute: (base) => ({ text: `top\n${base.text}end\n` }) },
        options,
      )) as ChangeRequest['prepare'],
  });
  const [first, ...rest] = paths.map(file);
  return { tool: 'apply_patch', input: { paths }, ...first!, more: rest };
}

describe('a change set decided hunk by hunk', () => {
  it('one file rejected whole, one in part, one whole: the set is written as chosen', async () => {
    const body = numbered('\n');
    const ws = await makeWorkspace({ 'a.txt': body, 'b.txt': body, 'c.txt': body });
    const { approver, asked } = scriptedApprover(
      {
        allow: 'file',
        hunks: {
          'a.txt': {
            accept: [],
            reject: [
              { hunk: 0, reason: 'no top' },
              { hunk: 1, reason: 'no end' },
            ],
          },
          'b.txt': { accept: [1], reject: [{ hunk: 0, reason: 'no top in b' }] },
        },
      },
      'once',
    );
    const tools = ws.tools({ approve: approver });
    const gate = await tools.gate();
    const outcome = await gate.change(twoPlaces(['a.txt', 'b.txt', 'c.txt']));
    expect(asked[0]!.files?.map((file) => file.diff.hunks.length)).toEqual([2, 2, 2]);
    expect(await ws.text('a.txt')).toBe(body);
    expect(await ws.text('b.txt')).toBe(`${body}end\n`);
    expect(await ws.text('c.txt')).toBe(`top\n${body}end\n`);
    expect(outcome.proposal.files.map((file) => file.path)).toEqual(['b.txt', 'c.txt']);
    const { changeMessage } = await import('../../src/tools/messages.js');
    expect(changeMessage(outcome)).toMatchInlineSnapshot(`
      "Changed 2 files as one change (all written together):
      - Edited b.txt (+1 -0 lines)
      - Edited c.txt (+2 -0 lines)
      The user accepted only part of your change; the rest was NOT written.
      Written: b.txt: 1 of 2 hunks: hunk 2 (now line 21); c.txt: all of it.
      Not changed at all: a.txt.
      Not written (the file keeps its old text there; line numbers are of the file as it is now):
      - a.txt hunk 1 of 2 (proposed before line 1): the user's reason: no top
          +top
      - a.txt hunk 2 of 2 (proposed before line 21): the user's reason: no end
          +end
      - b.txt hunk 1 of 2 (proposed before line 1): the user's reason: no top in b
          +top
      Build on the files as they are now. Do not write the rejected hunks again as they were: where a change is still needed there, follow the user's reason, or ask them.
      The user allowed further edits to this file for this session."
    `);
    // The grant for "these files" covers the files something was taken from, not the one rejected whole.
    await gate.change(twoPlaces(['b.txt', 'c.txt']));
    expect(asked).toHaveLength(1);
    await gate.change(twoPlaces(['a.txt']));
    expect(asked).toHaveLength(2);
  });

  it('a caller that writes the change whole (the proxy) gets no part of it', async () => {
    const body = numbered('\n');
    const ws = await makeWorkspace({ 'a.txt': body });
    const { approver, asked } = scriptedApprover(
      { allow: 'once', hunks: { 'a.txt': { accept: [1] } } },
      { allow: 'once', hunks: { 'a.txt': { accept: [0, 1] } } },
    );
    const gate = await ws.tools({ approve: approver }).gate();
    const proposal = await gate.propose(twoPlaces(['a.txt']));
    const wholeOnly = 'a.txt is written by the proxied server, which takes the call whole';
    await expect(gate.decide(proposal, undefined, { wholeOnly })).rejects.toMatchObject({
      code: 'DENIED_USER',
      message: expect.stringContaining(`${wholeOnly}; accept all of its hunks or none`),
    });
    expect(asked[0]!.wholeOnly).toBe(wholeOnly);
    const approval = await gate.decide(proposal, undefined, { wholeOnly });
    expect(approval.hunks).toBeUndefined();
    expect(approval.decision).toBe('once');
    await gate.discard(proposal);
    expect(await ws.text('a.txt')).toBe(body);
  });

  it('a set that deletes a file is taken whole or not at all', async () => {
    const ws = await makeWorkspace({ 'old.txt': 'one\ntwo\n', 'keep.txt': 'k\n' });
    const { approver, asked } = scriptedApprover({
      allow: 'once',
      hunks: { 'old.txt': { accept: [] } },
    });
    const tools = ws.tools({ approve: approver });
    const result = await tools.execute('apply_patch', {
      patch:
        '*** Begin Patch\n*** Update File: old.txt\n*** Move to: new.txt\n@@\n one\n-two\n+2\n*** End Patch\n',
    });
    expect(asked[0]!.files?.map((file) => file.wholeOnly)).toEqual([
      'old.txt is being deleted: a deletion is accepted or rejected whole',
      'this change deletes old.txt, whose text may move into another of its files: its files are accepted or rejected together, whole',
    ]);
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(result.message).toContain('accept all of it or none');
    expect(await ws.text('old.txt')).toBe('one\ntwo\n');
    await expect(ws.text('new.txt')).rejects.toThrow();
  });
});

/** The accepted hunks spliced into the old text line by line, last first (independent of applySomeHunks). */
function oracle(before: string, diff: Diff, taken: ReadonlySet<number>): string {
  const lines = splitLines(before).map((line) => line.text + line.eol);
  for (let index = diff.hunks.length - 1; index >= 0; index--) {
    if (!taken.has(index)) continue;
    const hunk = diff.hunks[index]!;
    const first = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const added = hunk.lines.filter((line) => line.kind !== 'remove').map((line) => line.text + line.eol);
    lines.splice(first, hunk.oldLines, ...added);
  }
  return lines.join('');
}

describe('hunk decisions, property', () => {
  it('the written file is exactly the accepted hunks applied, for random texts and choices', async () => {
    const line = fc.constantFrom('a', 'b', 'c', '', 'return x;');
    const text = fc
      .tuple(fc.array(line, { minLength: 1, maxLength: 40 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
      .map(([lines, eol, final]) => lines.join(eol) + (final ? eol : ''));
    await fc.assert(
      fc.asyncProperty(
        text,
        text,
        fc.array(fc.boolean(), { maxLength: 12 }),
        async (before, after, picks) => {
          fc.pre(before !== after);
          const ws = await makeWorkspace({ 'f.txt': before });
          let asked: ApprovalRequest | undefined;
          let accept: number[] = [];
          const tools = ws.tools({
            approve: (request) => {
              asked = request;
              accept = request.diff.hunks.map((_, i) => i).filter((i) => picks[i] ?? false);
              return { allow: 'once', hunks: { 'f.txt': { accept } } };
            },
          });
          await readAll(tools, 'f.txt');
          const result = await tools.execute('write_file', { file_path: 'f.txt', content: after });
          // write_file gives the content the file's line endings, which may leave nothing to change.
          // (A property must not return the assertion: fast-check counts a returned false as a failure.)
          if (asked === undefined) {
            expect(result.details.written).toBe(false);
            return;
          }
          // The proposal's texts and diff are what was shown and chosen from.
          const proposed = asked.texts!;
          const written = await ws.text('f.txt');
          if (accept.length === 0) {
            expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
            expect(written).toBe(before);
          } else {
            expect(result.ok, result.message).toBe(true);
            const expected = applySomeHunks(proposed.before, asked!.diff, (i) => accept.includes(i)).text;
            expect(written).toBe(expected);
            expect(written).toBe(oracle(proposed.before, asked!.diff, new Set(accept)));
          }
          if (accept.length === asked!.diff.hunks.length) expect(written).toBe(proposed.after);
        },
      ),
      { numRuns: 40 },
    );
  });
});
