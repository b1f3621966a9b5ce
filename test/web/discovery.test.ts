import { spawnSync } from 'node:child_process';
import { chmod, chown, lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoveryPath, findReview, publishReview } from '../../src/web/discovery.js';
import { proveReview, remoteApprover, requestSignInLink } from '../../src/web/remote-review.js';
import { newSecret } from '../../src/web/request-guard.js';
import { startReviewServer } from '../../src/web/review-server.js';
import { serverProof } from '../../src/web/server-proof.js';
import { openWebApproval } from '../../src/web/web-approval.js';
import { ensureBuilt, REPO } from '../built-cli.js';
import { oneFileRequest } from '../one-file-request.js';
import { makeWorkspace } from '../tools/workspace-fixture.js';
import { http, signIn } from './review-fixture.js';

// The tests run as root (as the project's CI does), so "another user" is a real chown to another uid.
const OTHER_UID = 4242;

async function published(overrides: { pid?: number; port?: number } = {}) {
  const ws = await makeWorkspace({ 'a.txt': 'one\n' });
  const stateDir = join(ws.root, '.state');
  const info = {
    root: ws.root,
    pid: overrides.pid ?? process.pid,
    port: overrides.port ?? 1234,
    submitToken: newSecret(),
    serverKey: newSecret(),
  };
  const unpublish = await publishReview(stateDir, info);
  return { ws, stateDir, info, unpublish, path: await discoveryPath(stateDir, ws.root) };
}

interface Heard {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const squatters: Server[] = [];
afterEach(async () => {
  for (const server of squatters.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/**
 * A program of another user on 127.0.0.1 that does not know the review server's key: it records every
 * request and answers as a review page would, approving every change with text of its own. A test may
 * give it a way to answer the hello (`answer.helloProof`), as if it knew more than it should.
 */
async function squatter() {
  const answer: { helloProof?: (challenge: string) => string } = {};
  const heard: Heard[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      heard.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (req.url === '/api/submissions/hello') {
        const { challenge } = JSON.parse(body) as { challenge: string };
        res.end(JSON.stringify({ proof: answer.helloProof?.(challenge) ?? newSecret() }));
      } else if (req.url === '/api/submit') {
        res.end(
          `${JSON.stringify({ type: 'queued', id: 'x' })}\n${JSON.stringify({
            type: 'decision',
            decision: { allow: 'once', edited: { 'a.txt': 'SQUATTED\n' } },
            proof: newSecret(),
          })}\n`,
        );
      } else res.end(JSON.stringify({ url: 'http://127.0.0.1:1/?token=x' }));
    });
  });
  squatters.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { port: (server.address() as AddressInfo).port, heard, answer };
}

/** --approve web as a process of the root opens it: the page it uses, and what it said. */
async function openWeb(stateDir: string, root: string) {
  const warnings: string[] = [];
  const web = await openWebApproval({ root, stateDir, source: 'test', warn: (line) => warnings.push(line) });
  return { web, warnings };
}

const REQUEST = oneFileRequest({
  tool: 'write_file',
  path: 'a.txt',
  kind: 'modify',
  diff: { hunks: [], added: 1, removed: 1, identical: false },
  unifiedDiff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n',
  stats: { added: 1, removed: 1 },
  texts: { before: 'one\n', after: 'two\n' },
});

describe('the discovery file', () => {
  it('is written for the user alone (0600 in a 0700 folder) and found again for the same root', async () => {
    const { stateDir, ws, path, info, unpublish } = await published();
    expect((await lstat(path)).mode & 0o777).toBe(0o600);
    expect((await lstat(join(stateDir, 'review'))).mode & 0o777).toBe(0o700);
    expect(await findReview(stateDir, ws.root)).toEqual({ found: { ...info, version: 2 } });
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
    await chown(path, OTHER_UID, OTHER_UID);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining(`is not yours (owner uid ${OTHER_UID})`),
    });
    await chown(path, process.getuid!(), process.getgid!());
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

  it('is ignored in a folder someone else owns or can write, and each refusal says which folder and why', async () => {
    const { stateDir, ws } = await published();
    const folder = join(stateDir, 'review');
    await chmod(folder, 0o777);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining(`the folder ${folder} can be written by others (mode 777)`),
    });
    await chmod(folder, 0o700);
    await chown(folder, OTHER_UID, OTHER_UID);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining(`the folder ${folder} is not yours (owner uid ${OTHER_UID})`),
    });
    await chown(folder, process.getuid!(), process.getgid!());
    await chmod(stateDir, 0o770);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining(`the folder ${stateDir} can be written by others (mode 770)`),
    });
    await chmod(stateDir, 0o700);
    await chmod(ws.root, 0o777);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining(
        `the folder ${ws.root} above your state folder can be written by everyone`,
      ),
    });
    await chmod(ws.root, 0o700);
    await chown(ws.root, OTHER_UID, OTHER_UID);
    expect(await findReview(stateDir, ws.root)).toEqual({
      refused: expect.stringContaining(
        `the folder ${ws.root} above your state folder belongs to another user`,
      ),
    });
    await chown(ws.root, process.getuid!(), process.getgid!());
    expect(await findReview(stateDir, ws.root)).toEqual({ found: expect.objectContaining({ version: 2 }) });
  });

  it('is not published in a folder others can change (processes would not trust it)', async () => {
    const ws = await makeWorkspace();
    const stateDir = join(ws.root, '.state');
    await mkdir(join(stateDir, 'review'), { recursive: true, mode: 0o700 });
    await chown(join(stateDir, 'review'), OTHER_UID, OTHER_UID);
    const info = { root: ws.root, pid: process.pid, port: 1, submitToken: 't', serverKey: 'k' };
    await expect(publishReview(stateDir, info)).rejects.toThrow(
      `cannot publish the review page in ${join(stateDir, 'review')}: the folder ${join(stateDir, 'review')} is not yours`,
    );
  });

  it('whose process is gone (killed, crashed) is removed by the next reader, who says so', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const { stateDir, ws, path } = await published({ pid: dead });
    expect(await findReview(stateDir, ws.root)).toEqual({
      none: true,
      note: `removed ${path}: its review page (pid ${dead}) is no longer running`,
    });
    await expect(lstat(path)).rejects.toThrow();
  });

  it('is removed by its server only while it is still that server’s', async () => {
    const { stateDir, ws, path, info, unpublish } = await published();
    await publishReview(stateDir, { ...info, port: 4321 });
    await unpublish();
    expect(await findReview(stateDir, ws.root)).toEqual({ found: expect.objectContaining({ port: 4321 }) });
    await rm(path);
  });
});

describe('a squatter: another program where the discovery file points', () => {
  it('a file planted by another user is refused: nothing is sent to its server, and a page is served here', async () => {
    const fake = await squatter();
    const { stateDir, ws, path } = await published({ port: fake.port });
    await chown(path, OTHER_UID, OTHER_UID);
    const { web, warnings } = await openWeb(stateDir, ws.root);
    try {
      expect(web.sharedWith).toBeUndefined();
      expect(new URL(web.url).port).not.toBe(String(fake.port));
      expect(warnings).toEqual([expect.stringContaining(`is not yours (owner uid ${OTHER_UID})`)]);
      expect(fake.heard).toEqual([]);
    } finally {
      await web.close();
    }
  });

  it('our own file left behind, its port now someone else’s: the server cannot prove itself, so it gets only a challenge', async () => {
    const fake = await squatter();
    const { stateDir, ws, info } = await published({ port: fake.port });
    const { web, warnings } = await openWeb(stateDir, ws.root);
    try {
      expect(web.sharedWith).toBeUndefined();
      expect(warnings).toEqual([
        expect.stringContaining(`the review page published on port ${fake.port} did not prove it is yours`),
      ]);
      // It heard one hello: a random challenge, no token, nothing of the root or a change.
      expect(fake.heard.map((heard) => heard.url)).toEqual(['/api/submissions/hello']);
      expect(fake.heard[0]!.headers.authorization).toBeUndefined();
      expect(Object.keys(JSON.parse(fake.heard[0]!.body))).toEqual(['challenge']);
      expect(fake.heard[0]!.body).not.toContain(info.submitToken);
      expect(fake.heard[0]!.body).not.toContain(info.serverKey);
    } finally {
      await web.close();
    }
    // The approver and the link refuse it the same way, each time.
    const target = { ...info, root: ws.root };
    await expect(remoteApprover(target, 'test')(REQUEST)).rejects.toThrow(
      'did not prove it is yours: another program may listen on that port; nothing was sent to it',
    );
    await expect(requestSignInLink(target)).rejects.toThrow('nothing was sent to it');
    expect(fake.heard.filter((heard) => heard.url !== '/api/submissions/hello')).toEqual([]);
    expect(fake.heard.some((heard) => heard.body.includes('two\n'))).toBe(false);
    expect(fake.heard.some((heard) => heard.headers.authorization !== undefined)).toBe(false);
  });

  it('a proof made with another key, another port or another root does not count', async () => {
    const fake = await squatter();
    const { ws, info } = await published({ port: fake.port });
    const key = info.serverKey;
    for (const helloProof of [
      (challenge: string) => serverProof(newSecret(), 'hello', challenge, String(fake.port), ws.root),
      (challenge: string) => serverProof(key, 'hello', challenge, String(fake.port + 1), ws.root),
      (challenge: string) => serverProof(key, 'hello', challenge, String(fake.port), '/elsewhere'),
      (challenge: string) => serverProof(key, 'decision', challenge, String(fake.port), ws.root),
      () => serverProof(key, 'hello', newSecret(), String(fake.port), ws.root),
    ]) {
      fake.answer.helloProof = helloProof;
      expect(await proveReview(info)).toEqual({
        refused: expect.stringContaining('did not prove it is yours'),
      });
    }
    fake.answer.helloProof = (challenge) => serverProof(key, 'hello', challenge, String(fake.port), ws.root);
    expect(await proveReview(info)).toEqual({ proven: true });
  });

  it('an answer not signed over its own request is not taken: the squatter’s version is never written', async () => {
    const fake = await squatter();
    const { ws, info } = await published({ port: fake.port });
    // A server that passes the hello (as if it took the port between the hello and the change).
    fake.answer.helloProof = (challenge) =>
      serverProof(info.serverKey, 'hello', challenge, String(fake.port), ws.root);
    const tools = ws.tools({ approve: remoteApprover(info, 'test') });
    await tools.execute('read_file', { file_path: 'a.txt' });
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'two\n' });
    expect(result.ok).toBe(false);
    expect(result.message).toContain('the review page sent an answer it did not sign');
    expect(await ws.text('a.txt')).toBe('one\n');
  });
});
describe('sending changes to a running review page', () => {
  it('other processes submit with the bearer token; the answer comes back; a wrong token or a browser is refused', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const server = await startReviewServer({ root: ws.root, acceptSubmissions: true });
    try {
      const target = {
        port: server.port,
        submitToken: server.submitToken!,
        serverKey: server.serverKey!,
        root: ws.root,
      };

      expect(await proveReview(target)).toEqual({ proven: true });
      expect(await proveReview({ ...target, serverKey: newSecret() })).toEqual({
        refused: expect.stringContaining('did not prove it is yours'),
      });
      expect(await proveReview({ ...target, root: '/somewhere/else' })).toEqual({
        refused: expect.stringContaining('did not prove it is yours'),
      });
      const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${server.submitToken}` };
      const ping = { method: 'POST', path: '/api/submissions/link', body: '{}' };
      expect((await http(server.port, { ...ping, headers })).status).toBe(200);
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
        body: JSON.stringify({ request: { tool: 'x' }, source: 's', challenge: newSecret() }),
      });
      expect(bad.status).toBe(400);
      // A sign-in link for the page, through the same proven channel: it works once.
      const link = await requestSignInLink(target);
      expect((await signIn(server, link)).nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await expect(signIn(server, link)).rejects.toThrow('HTTP 410');

      const ask = remoteApprover(target, 'editgate edit (pid 7)');
      const request = REQUEST;
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
      serverKey: review.serverKey!,
    };
    await publishReview(stateDir, info);
    const warnings: string[] = [];
    const shared = await openWebApproval({
      root: ws.root,
      stateDir,
      source: 'test',
      warn: (line) => warnings.push(line),
    });
    expect(shared.sharedWith).toBe(process.pid);
    // Its own sign-in link of the page, not the one the page printed (each works once).
    expect(shared.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${review.port}/\\?token=`));
    expect(shared.url).not.toBe(review.url);
    await signIn(review, shared.url);
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
        expect.stringMatching(
          `^the review page published on port ${review.port} does not answer \\(.*\\) \\(editgate review, pid ${process.pid}\\); nothing was sent to it, serving a page here$`,
        ),
      ]);
    } finally {
      await own.close();
    }
  });
});

describe('a review server that ends by an uncaught error', () => {
  it('leaves no discovery file behind (the exit hook removes it)', async () => {
    await ensureBuilt();
    const ws = await makeWorkspace();
    const stateDir = join(ws.root, '.state');
    const script = `
      const { publishReview } = await import(${JSON.stringify(join(REPO, 'dist', 'web', 'discovery.js'))});
      await publishReview(${JSON.stringify(stateDir)}, {
        root: ${JSON.stringify(ws.root)}, pid: process.pid, port: 1, submitToken: 't', serverKey: 'k',
      });
      console.log('published');
      setTimeout(() => { throw new Error('something broke'); }, 10);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stdout).toContain('published');
    expect(run.stderr).toContain('something broke');
    expect(run.status).not.toBe(0);
    expect(await readdir(join(stateDir, 'review'))).toEqual([]);
  }, 120_000);
});
