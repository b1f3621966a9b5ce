import { describe, expect, it } from 'vitest';
import { remoteApprover } from '../../src/web/remote-review.js';
import { startReviewServer } from '../../src/web/review-server.js';
import { changeListReply, decisionReply, decisionSchema, submitEventSchema } from '../../src/web/wire.js';
import { oneFileRequest } from '../one-file-request.js';
import { makeWorkspace } from '../tools/workspace-fixture.js';
import { type HttpAnswer, http, reviewWorkspace, signIn } from './review-fixture.js';
import { replySchemaFor, requestSchemaFor, wireProblem } from './wire-check.js';

// The web wire schema, checked both ways (#27): what the server sends and accepts, by one schema each.

const FILE = { 'app.ts': 'const a = 1;\n' };
const EDIT = { file_path: 'app.ts', old_string: 'a = 1', new_string: 'a = 2' };

function fits(path: string, answer: HttpAnswer) {
  expect(
    wireProblem(replySchemaFor(path, answer.status), answer.body, `${path} (${answer.status})`),
  ).toBeUndefined();
}

describe('allow with a note ({ allow, reason })', () => {
  it('through the JSON API: the note reaches the decision, the page and the model', async () => {
    const { server, propose, ws } = await reviewWorkspace(FILE);
    const change = await propose('edit_file', EDIT);
    const person = await signIn(server);
    const answer = await person.decide(change.id, {
      hash: change.hash,
      decision: 'file',
      reason: '  fine, but keep the constant  ',
    });
    expect(answer.status).toBe(200);
    expect(decisionReply.parse(answer.json()).text).toContain('allowed: fine, but keep the constant');
    const result = await change.result;
    expect(result.ok).toBe(true);
    expect(result.message).toContain(
      'The user approved this change with a note: fine, but keep the constant',
    );
    expect(await ws.text('app.ts')).toBe('const a = 2;\n');
    const listed = changeListReply.parse((await person.get('/api/changes')).json());
    expect(listed.changes[0]!.outcome).toEqual({
      by: 'in the browser',
      decision: { allow: 'file', reason: 'fine, but keep the constant' },
    });
  });

  it('a blank note is no note: the approval is the plain grant', async () => {
    const { server, propose } = await reviewWorkspace(FILE);
    const change = await propose('edit_file', EDIT);
    const person = await signIn(server);
    expect(
      (await person.decide(change.id, { hash: change.hash, decision: 'once', reason: '   ' })).status,
    ).toBe(200);
    expect(server.queue.get(change.id)!.outcome!.decision).toBe('once');
    expect((await change.result).message).not.toContain('with a note');
  });

  it('a note with your own version is refused, saying what to send instead; nothing is decided', async () => {
    const { server, propose, ws } = await reviewWorkspace(FILE);
    const change = await propose('edit_file', EDIT);
    const person = await signIn(server);
    const answer = await person.decide(change.id, {
      hash: change.hash,
      decision: 'once',
      reason: 'mine is better',
      edited: { 'app.ts': 'const a = 3;\n' },
    });
    expect(answer.status).toBe(400);
    expect(answer.json().error).toContain('send it without "reason"');
    expect(server.queue.get(change.id)!.status).toBe('pending');
    expect(await ws.text('app.ts')).toBe(FILE['app.ts']);
  });

  it('reaches another process that asked through editgate review, signed', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const server = await startReviewServer({ root: ws.root, acceptSubmissions: true });
    try {
      const target = {
        port: server.port,
        submitToken: server.submitToken!,
        serverKey: server.serverKey!,
        root: ws.root,
      };
      const queued = new Promise<string>((resolve) =>
        server.queue.subscribe((event) => event.type === 'added' && resolve(event.item.id)),
      );
      const decision = remoteApprover(
        target,
        'editgate edit (pid 7)',
      )(
        oneFileRequest({
          tool: 'write_file',
          path: 'a.txt',
          kind: 'modify',
          diff: { hunks: [], added: 1, removed: 1, identical: false },
          unifiedDiff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n',
          stats: { added: 1, removed: 1 },
        }),
      );
      const id = await queued;
      const person = await signIn(server);
      const hash = server.queue.get(id)!.hash;
      expect((await person.decide(id, { hash, decision: 'all', reason: 'go ahead' })).status).toBe(200);
      expect(await decision).toEqual({ allow: 'all', reason: 'go ahead' });
    } finally {
      await server.close();
    }
  });
});

describe('{ allow, hunks } (a decision taken hunk by hunk)', () => {
  it("answered in the asker's terminal, it reaches the page that was asked too", async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const server = await startReviewServer({ root: ws.root, acceptSubmissions: true });
    try {
      const target = {
        port: server.port,
        submitToken: server.submitToken!,
        serverKey: server.serverKey!,
        root: ws.root,
      };
      const queued = new Promise<string>((resolve) =>
        server.queue.subscribe((event) => event.type === 'added' && resolve(event.item.id)),
      );
      const controller = new AbortController();
      const asked = remoteApprover(target, 'editgate edit (pid 8)')(
        oneFileRequest({
          tool: 'write_file',
          path: 'a.txt',
          kind: 'modify',
          diff: { hunks: [], added: 1, removed: 1, identical: false },
          unifiedDiff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n',
          stats: { added: 1, removed: 1 },
        }),
        { signal: controller.signal },
      );
      const id = await queued;
      const decision = { allow: 'once', hunks: { 'a.txt': { accept: [0] } } };
      controller.abort({ by: 'in the terminal', decision });
      await expect(asked).rejects.toBeDefined();
      await expect.poll(() => server.queue.get(id)!.outcome?.decision).toEqual(decision);
      expect(server.queue.get(id)!.outcome!.by).toBe('in the terminal');
    } finally {
      await server.close();
    }
  });
});

describe('the schemas', () => {
  it('every form of the library Decision crosses the wire; malformed ones do not', () => {
    for (const decision of [
      'once',
      'file',
      'all',
      'deny',
      { deny: 'why' },
      { allow: 'once', edited: { 'a.ts': 'x' } },
      { allow: 'file', reason: 'a note' },
      { allow: 'once', hunks: { 'a.ts': { accept: [0], reject: [{ hunk: 1, reason: 'not this' }] } } },
      // A note for the model may go with a hunk-by-hunk decision (the session review's note).
      { allow: 'once', hunks: { 'a.ts': { accept: [0] } }, reason: 'a note' },
    ]) {
      expect(decisionSchema.safeParse(decision).success, JSON.stringify(decision)).toBe(true);
      const event = { type: 'decision', decision, proof: 'p' };
      expect(submitEventSchema.safeParse(event).success).toBe(true);
    }
    for (const decision of [
      'maybe',
      { allow: 'forever', reason: 'x' },
      { allow: 'once', reason: '' },
      { allow: 'once', reason: 'x', extra: 1 },
      { deny: 3 },
      { allow: 'once', hunks: { 'a.ts': { accept: [-1] } } },
      { allow: 'once', hunks: { 'a.ts': { accept: [0] } }, reason: '' },
      { allow: 'once', hunks: { 'a.ts': { accept: [0] } }, reason: 3 },
    ]) {
      expect(decisionSchema.safeParse(decision).success, JSON.stringify(decision)).toBe(false);
    }
    expect(submitEventSchema.safeParse({ type: 'surprise' }).success).toBe(false);
  });

  it("every JSON answer of the page's API fits the schema the server builds it by", async () => {
    const { server, propose } = await reviewWorkspace(FILE);
    const change = await propose('edit_file', EDIT);
    const person = await signIn(server);
    for (const path of [
      '/api/changes',
      `/api/changes/${change.id}`,
      `/api/changes/${change.id}/files/0`,
      `/api/changes/${change.id}/files/9`,
      '/api/changes/nothing-here',
    ]) {
      fits(path, await person.get(path));
    }
    const post = (path: string, body: unknown) =>
      http(server.port, {
        method: 'POST',
        path,
        headers: {
          Cookie: person.cookie,
          Origin: person.origin,
          'X-Editgate-Nonce': person.nonce,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    const preview = `/api/changes/${change.id}/edit-preview`;
    const edited = { edited: { 'app.ts': 'const a = 3;\n' } };
    expect(wireProblem(requestSchemaFor(preview), JSON.stringify(edited), preview)).toBeUndefined();
    const previewed = await post(preview, edited);
    expect(previewed.status).toBe(200);
    fits(preview, previewed);
    fits(preview, await post(preview, { edited: 3 }));
    const decide = `/api/changes/${change.id}/decision`;
    const body = { hash: change.hash, decision: 'once', reason: 'ok' };
    expect(wireProblem(requestSchemaFor(decide), JSON.stringify(body), decide)).toBeUndefined();
    const decided = await post(decide, body);
    expect(decided.status).toBe(200);
    fits(decide, decided);
    fits(decide, await post(decide, body));
    // A body the schema refuses is refused by the server, with the schema's words.
    expect(wireProblem(requestSchemaFor(decide), JSON.stringify({ hash: 'x' }), decide)).toBeDefined();
    const refused = await post(decide, { hash: change.hash, decision: 'perhaps' });
    expect(refused.status).toBe(400);
    expect(refused.json().error).toContain('decision');
  });
});
