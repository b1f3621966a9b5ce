import { chmod, lstat, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoveryPath, findReview, publishReview } from '../../src/web/discovery.js';
import { pingReview, remoteApprover } from '../../src/web/remote-review.js';
import { startReviewServer } from '../../src/web/review-server.js';
import { openWebApproval } from '../../src/web/web-approval.js';
import { makeWorkspace } from '../tools/workspace-fixture.js';
import { http, signIn } from './review-fixture.js';

async function published() {
  const ws = await makeWorkspace({ 'a.txt': 'one\n' });
  const stateDir = join(ws.root, '.state');
  const info = {
    root: ws.root,
    pid: process.pid,
    port: 1234,
    submitToken: 't'.repeat(43),
    url: 'http://127.0.0.1:1234/?token=x',
  };
  const unpublish = await publishReview(stateDir, info);
  return { ws, stateDir, info, unpublish, path: await discoveryPath(stateDir, ws.root) };
}

describe('the discovery file', () => {
  it('is written for the user alone (0600 in a 0700 folder) and found again for the same root', async () => {
    const { stateDir, ws, path, info, unpublish } = await published();
    expect((await lstat(path)).mode & 0o777).toBe(0o600);
    expect((await lstat(join(stateDir, 'review'))).mode & 0o777).toBe(0o700);
    expect(await findReview(stateDir, ws.root)).toEqual({ found: { ...info, version: 1 } });
    // Another root has its own file.
    expect(await findReview(stateDir, join(ws.root, 'elsewhere'))).toEqual({ none: true });
    await unpublish();
    expect(await findReview(stateDir, ws.root)).toEqual({ none: true });
  });

  it('is ignored when others may read or write it, when it is a link, or when it belongs to someone else', async () => {
    const { stateDir, ws, path } = await published();
    await chmod(path, 0o644);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining('can be read or written by others (mode 644)'),
    });
    await chmod(path, 0o600);
    await chmod(join(stateDir, 'review'), 0o777);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining('folder others can write to'),
    });
    await chmod(join(stateDir, 'review'), 0o700);
    const owner = (await lstat(path)).uid;
    expect(await findReview(stateDir, ws.root, { uid: owner + 1 })).toEqual({
      refused: expect.stringContaining('not owned by you'),
    });
    const real = `${path}.real`;
    await writeFile(real, await readFile(path), { mode: 0o600 });
    await rm(path);
    await symlink(real, path);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining('not a regular file'),
    });
    await rm(path);
    await writeFile(path, '{"version": 1}', { mode: 0o600 });
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining('not a discovery file'),
    });
  });

  it('is removed by its server only while it is still that server’s', async () => {
    const { stateDir, ws, path, info, unpublish } = await published();
    await publishReview(stateDir, { ...info, port: 4321 });
    await unpublish();
    expect(await findReview(stateDir, ws.root)).toEqual({ found: expect.objectContaining({ port: 4321 }) });
    await rm(path);
    await mkdir(join(stateDir, 'review'), { recursive: true });
  });
});

describe('sending changes to a running review page', () => {
  it('other processes submit with the bearer token; the answer comes back; a wrong token or a browser is refused', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const server = await startReviewServer({ root: ws.root, acceptSubmissions: true });
    try {
      const target = { port: server.port, submitToken: server.submitToken!, root: ws.root };

      expect(await pingReview(target)).toBe(true);
      expect(await pingReview({ ...target, submitToken: 'wrong' })).toBe(false);
      expect(await pingReview({ ...target, root: '/somewhere/else' })).toBe(false);
      const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${server.submitToken}` };
      const ping = { method: 'POST', path: '/api/submissions/ping', body: '{}' };
      expect(
        (await http(server.port, { ...ping, headers: { ...headers, Origin: 'https://evil.example' } }))
          .status,
      ).toBe(403);
      expect(
        (await http(server.port, { ...ping, headers: { ...headers, Authorization: 'Bearer nope' } })).status,
      ).toBe(401);
      expect(
        (await http(server.port, { ...ping, headers: { ...headers, 'Content-Type': 'text/plain' } })).status,
      ).toBe(415);
      const bad = await http(server.port, {
        method: 'POST',
        path: '/api/submit',
        headers,
        body: JSON.stringify({ request: { tool: 'x' }, source: 's' }),
      });
      expect(bad.status).toBe(400);

      const ask = remoteApprover(target, 'editgate edit (pid 7)');
      const request = {
        tool: 'write_file',
        path: 'a.txt',
        kind: 'modify' as const,
        diff: { hunks: [], added: 1, removed: 1, identical: false },
        unifiedDiff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n',
        stats: { added: 1, removed: 1 },
      };
      const answered = new Promise<string>((resolve) =>
        server.queue.subscribe((event) => event.type === 'added' && resolve(event.item.id)),
      );
      const decision = ask(request);
      const id = await answered;
      expect(server.queue.get(id)!.source).toBe('editgate edit (pid 7)');
      const person = await signIn(server);
      expect(
        (await person.decide(id, { hash: server.queue.get(id)!.hash, decision: 'deny', reason: 'not yet' }))
          .status,
      ).toBe(200);

      expect(await decision).toEqual({ deny: 'not yet' });

      // Answered in the asker's terminal first: the page says so, and the change can no longer be decided.
      const second = new Promise<string>((resolve) =>
        server.queue.subscribe((event) => event.type === 'added' && resolve(event.item.id)),
      );
      const controller = new AbortController();
      const pending = Promise.resolve(ask(request, { signal: controller.signal }));
      const secondId = await second;
      const updated = new Promise<void>((resolve) =>
        server.queue.subscribe(
          (event) => event.item.id === secondId && event.item.status === 'answered' && resolve(),
        ),
      );
      controller.abort({ by: 'in the terminal', decision: 'once' });
      await expect(pending).rejects.toEqual({ by: 'in the terminal', decision: 'once' });

      await updated;

      expect(server.queue.get(secondId)!.outcome).toMatchObject({ by: 'in the terminal', decision: 'once' });
      const late = await person.decide(secondId, {
        hash: server.queue.get(secondId)!.hash,
        decision: 'once',
      });
      expect(late.status).toBe(409);
      expect(late.json().error).toContain('already answered in the terminal');

      // The asker's process going away withdraws its change.
      const third = new Promise<string>((resolve) =>
        server.queue.subscribe((event) => event.type === 'added' && resolve(event.item.id)),
      );
      const gone = new AbortController();
      const abandoned = Promise.resolve(ask(request, { signal: gone.signal }));
      const thirdId = await third;
      const withdrawn = new Promise<void>((resolve) =>
        server.queue.subscribe(
          (event) => event.item.id === thirdId && event.item.status === 'withdrawn' && resolve(),
        ),
      );
      gone.abort(new Error('process ended'));
      await expect(abandoned).rejects.toThrow('process ended');
      await withdrawn;
    } finally {
      await server.close();
    }
  });
});

describe('openWebApproval', () => {
  it('uses the running editgate review of the root, and serves its own page when that one does not answer', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const stateDir = join(ws.root, '.state');
    const review = await startReviewServer({ root: ws.root, acceptSubmissions: true });
    const info = {
      root: ws.root,
      pid: process.pid,
      port: review.port,
      submitToken: review.submitToken!,
      url: review.url,
    };
    await publishReview(stateDir, info);
    const warnings: string[] = [];
    const shared = await openWebApproval({
      root: ws.root,
      stateDir,
      source: 'test',
      warn: (line) => warnings.push(line),
    });
    expect(shared).toMatchObject({ url: review.url, sharedWith: process.pid });
    await review.close();
    const own = await openWebApproval({
      root: ws.root,
      stateDir,
      source: 'test',
      warn: (line) => warnings.push(line),
    });
    try {
      expect(own.sharedWith).toBeUndefined();
      expect(own.url).not.toBe(review.url);
      expect(warnings).toEqual([
        `the review page published for this root (editgate review, pid ${process.pid}) does not answer; serving a page here`,
      ]);
    } finally {
      await own.close();
    }
  });
});
