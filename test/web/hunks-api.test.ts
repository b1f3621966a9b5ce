import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/gate/approval.js';
import { parseRequest } from '../../src/web/wire.js';
import { fileChange, NUMBERED, reviewWorkspace, signIn, THREE_HUNKS } from './review-fixture.js';
import { replySchemaFor, wireProblem } from './wire-check.js';

// Part of a change through the review page's JSON API (#30), as a script with curl would send it: `hunks`
// beside `decision`, 0-based as in the library's Decision; a bad choice is refused with what is wrong and
// nothing is written.

async function threeHunks() {
  const review = await reviewWorkspace({ 'a.txt': NUMBERED });
  const change = await review.propose('write_file', { file_path: 'a.txt', content: THREE_HUNKS });
  const person = await signIn(review.server);
  return { ...review, change, person };
}

describe('hunks through the JSON API', () => {
  it('a 3-hunk change with hunk 2 left out and a reason: hunks 1 and 3 are written byte for byte, the model reads the reason', async () => {
    const { ws, change, person } = await threeHunks();
    const detail = await person.get(`/api/changes/${change.id}`);
    expect(
      wireProblem(replySchemaFor(`/api/changes/${change.id}`, 200), detail.body, 'detail'),
    ).toBeUndefined();
    expect(detail.json().files).toMatchObject([{ path: 'a.txt', hunks: 3 }]);
    expect((detail.json().files as Array<Record<string, unknown>>)[0]).not.toHaveProperty('wholeOnly');

    const answer = await person.decide(change.id, {
      hash: change.hash,
      decision: 'once',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'line 10 is quoted in the docs' }] } },
    });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.json().text).toBe(
      'Answered in the browser: allowed in part: a.txt: hunks 1 and 3 written, hunk 2 not (line 10 is quoted in the docs).',
    );
    const result = await change.result;
    expect(result.ok, result.message).toBe(true);
    expect(
      (await ws.bytes('a.txt')).equals(
        Buffer.from(NUMBERED.replace('line 2\n', 'line two\n').replace('line 19\n', 'line nineteen\n')),
      ),
    ).toBe(true);
    expect(result.message).toContain(
      "a.txt hunk 2 of 3 (line 10 as it is now): the user's reason: line 10 is quoted in the docs",
    );
    expect(result.details).toMatchObject({
      hunks: {
        'a.txt': { written: [0, 2], rejected: [{ hunk: 1, reason: 'line 10 is quoted in the docs' }] },
      },
    });
  });

  it('a note goes with the hunks ("yes to these, and ..."): the model reads it beside the reasons, whatever the choice comes to', async () => {
    const { ws, change, person } = await threeHunks();
    const answer = await person.decide(change.id, {
      hash: change.hash,
      decision: 'once',
      reason: 'and add a test for it',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'not line 10' }] } },
    });
    expect(answer.status, answer.body).toBe(200);
    const result = await change.result;
    expect(result.ok, result.message).toBe(true);
    expect(result.message).toContain(
      "a.txt hunk 2 of 3 (line 10 as it is now): the user's reason: not line 10",
    );
    expect(result.message).toContain('The user approved this change with a note: and add a test for it');
    expect(await ws.text('a.txt')).toBe(
      NUMBERED.replace('line 2\n', 'line two\n').replace('line 19\n', 'line nineteen\n'),
    );

    // Every hunk left out: a denial, and the note is in it.
    const none = await threeHunks();
    expect(
      (
        await none.person.decide(none.change.id, {
          hash: none.change.hash,
          decision: 'once',
          reason: 'split it in two',
          hunks: { 'a.txt': { accept: [] } },
        })
      ).status,
    ).toBe(200);
    const denied = await none.change.result;
    expect(denied.ok).toBe(false);
    expect(denied.message).toContain('Their note: split it in two');
    expect(await none.ws.text('a.txt')).toBe(NUMBERED);
  });

  it('every hunk left out is a denial with the reasons, and nothing is written', async () => {
    const { ws, change, person } = await threeHunks();
    const answer = await person.decide(change.id, {
      hash: change.hash,
      decision: 'once',
      hunks: { 'a.txt': { accept: [], reject: [{ hunk: 0 }, { hunk: 1, reason: 'not now' }, { hunk: 2 }] } },
    });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.json().text).toBe(
      'Answered in the browser: allowed in part: a.txt: nothing written, hunks 1-3 not (not now).',
    );
    const result = await change.result;
    expect(result.ok).toBe(false);
    expect(result.message).toContain('not now');
    expect(await ws.text('a.txt')).toBe(NUMBERED);
  });

  it('refuses a choice it cannot follow, saying what is wrong; the change still waits and nothing is written', async () => {
    const { ws, change, person, server } = await threeHunks();
    const refusals: Array<[Record<string, unknown>, string]> = [
      [
        { decision: 'once', hunks: { 'b.txt': { accept: [0] } } },
        "The approval's choice of hunks cannot be used: it names b.txt, which this change does not touch (its files: a.txt); nothing was written.",
      ],
      [
        { decision: 'once', hunks: { 'a.txt': { accept: [0, 3] } } },
        'a.txt has no hunk 3 (its diff has 3, numbered 0 to 2)',
      ],
      [
        { decision: 'once', hunks: { 'a.txt': { accept: [0, 1], reject: [{ hunk: 1 }] } } },
        'hunk 1 of a.txt is both accepted and rejected',
      ],
      [{ decision: 'once', hunks: { 'a.txt': { accept: [1, 1] } } }, 'hunk 1 of a.txt is accepted twice'],
      [
        { decision: 'deny', hunks: { 'a.txt': { accept: [0] } } },
        '"hunks" goes with an approval ("once", "file" or "all"): to refuse the whole change, send "deny" without "hunks".',
      ],
      [
        { decision: 'once', edited: { 'a.txt': 'x\n' }, hunks: { 'a.txt': { accept: [0] } } },
        'Choose hunks of the proposed diff or send your own version ("edited"), not both',
      ],
      [
        { decision: 'once', hunks: { 'a.txt': { accept: '0,2' } } },
        'The request is not understood: hunks.a.txt.accept: Invalid input: expected array, received string.',
      ],
      [
        { decision: 'once', hunks: { 'a.txt': { accept: [0], reject: [{ hunk: 1, why: 'x' }] } } },
        'The request is not understood: hunks.a.txt.reject.0: Unrecognized key: "why".',
      ],
      [
        { decision: 'once', hunks: { 'a.txt': { accept: [-1] } } },
        'The request is not understood: hunks.a.txt.accept.0',
      ],
    ];
    for (const [body, error] of refusals) {
      const answer = await person.decide(change.id, { hash: change.hash, ...body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json().error).toContain(error);
    }
    expect(server.queue.get(change.id)!.status).toBe('pending');
    expect(await ws.text('a.txt')).toBe(NUMBERED);
    // The hash still binds the choice to the diff the person saw.
    const other = await person.decide(change.id, {
      hash: '0'.repeat(64),
      decision: 'once',
      hunks: { 'a.txt': { accept: [0] } },
    });
    expect(other.status).toBe(409);
    // And a good choice after all that is taken.
    const good = await person.decide(change.id, {
      hash: change.hash,
      decision: 'once',
      hunks: { 'a.txt': { accept: [2] } },
    });
    expect(good.status, good.body).toBe(200);
    expect((await change.result).ok).toBe(true);
    expect(await ws.text('a.txt')).toBe(NUMBERED.replace('line 19\n', 'line nineteen\n'));
  });

  it('a file that is taken whole says why in the API, and a choice that splits it is refused', async () => {
    const { server } = await reviewWorkspace();
    const person = await signIn(server);
    const files = [
      fileChange('a.txt', NUMBERED, THREE_HUNKS, 'modify'),
      fileChange('old.txt', 'gone\n', '', 'delete'),
    ].map((file) => ({
      ...file,
      wholeOnly:
        'this change deletes old.txt, whose text may move into another of its files: its files are accepted or rejected together, whole',
    }));
    const request: ApprovalRequest = { tool: 'apply_patch', ...files[0]!, files };
    const decision = server.ask(request);
    const id = server.queue.list()[0]!.id;
    const detail = (await person.get(`/api/changes/${id}`)).json();
    expect(detail.files).toMatchObject([
      { path: 'a.txt', hunks: 3, wholeOnly: expect.stringContaining('accepted or rejected together') },
      { path: 'old.txt', hunks: 1, wholeOnly: expect.stringContaining('accepted or rejected together') },
    ]);
    const split = await person.decide(id, {
      hash: detail.hash,
      decision: 'once',
      hunks: { 'a.txt': { accept: [0], reject: [{ hunk: 1 }, { hunk: 2 }] } },
    });
    expect(split.status).toBe(400);
    expect(split.json().error).toContain('accept all of its hunks or none');
    const whole = await person.decide(id, { hash: detail.hash, decision: 'once' });
    expect(whole.status).toBe(200);
    expect(await decision).toBe('once');
  });

  it('why a file is taken whole crosses the wire from another editgate process', () => {
    const file = { ...fileChange('a.txt', 'a\n', '', 'delete'), wholeOnly: 'a.txt is being deleted' };
    const parsed = parseRequest({ tool: 'delete_file', ...file, files: [file] });
    expect(parsed.files[0]!.wholeOnly).toBe('a.txt is being deleted');
  });
});
