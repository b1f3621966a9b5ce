import { describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/index.js';
import { STALE_DENIAL } from '../../src/web/review-queue.js';
import { startReviewServer } from '../../src/web/review-server.js';
import { OPEN_LINK_TTL_MS, SignInLinks } from '../../src/web/sign-in-links.js';
import { hostCases } from '../core/loopback-hosts.js';
import { makeWorkspace } from '../tools/workspace-fixture.js';
import { firstQueued, http, reviewWorkspace, signIn } from './review-fixture.js';

const FILE = { 'app.ts': 'const a = 1;\n' };
const EDIT = { file_path: 'app.ts', old_string: 'a = 1', new_string: 'a = 2' };

/** A pending edit on the page, the person signed in, and a check that nothing happened to either. */
async function pendingEdit() {
  const review = await reviewWorkspace(FILE);
  const change = await review.propose('edit_file', EDIT);
  const person = await signIn(review.server);
  const untouched = async () => {
    expect(await review.ws.text('app.ts')).toBe(FILE['app.ts']);
    expect(review.server.queue.get(change.id)!.status).toBe('pending');
  };
  return { ...review, change, person, untouched };
}

describe('signing in', () => {
  it("the link's token is exchanged for an HttpOnly, SameSite=Strict cookie and, once, the session's nonce", async () => {
    const { server } = await reviewWorkspace();
    const url = new URL(server.url);
    expect(url.hostname).toBe('127.0.0.1');
    // 256 bits of token, base64url.
    expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const answer = await http(server.port, {
      path: url.pathname + url.search,
      headers: { Accept: 'text/html' },
    });
    expect(answer.status).toBe(200);
    const cookie = String(answer.headers['set-cookie']);
    expect(cookie).toMatch(
      new RegExp(`^editgate-review-${server.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`),
    );
    // The cookie is not the token: a leaked link can be revoked without knowing the cookie.
    expect(cookie).not.toContain(url.searchParams.get('token'));
    // The browser's page keeps the nonce (sign-in.js) and moves on to the page without the token.
    expect(answer.body).toMatch(/<meta name="editgate-nonce" content="[A-Za-z0-9_-]{43}">/);
    expect(answer.body).toContain('<script type="module" src="/assets/sign-in.js"></script>');
    // A script asks for JSON.
    const next = new URL(server.signInLink());
    const script = await http(server.port, {
      path: next.pathname + next.search,
      headers: { Accept: 'application/json' },
    });
    expect(script.status).toBe(200);
    expect(script.json().nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('a link works once: the second use is refused with a page that says what to do, and signs nothing in', async () => {
    const { server } = await reviewWorkspace();
    const link = new URL(server.url);
    const path = link.pathname + link.search;
    expect((await http(server.port, { path, headers: { Accept: 'text/html' } })).status).toBe(200);
    for (const accept of ['text/html', 'application/json']) {
      const again = await http(server.port, { path, headers: { Accept: accept } });
      expect(again.status).toBe(410);
      expect(again.headers['set-cookie']).toBeUndefined();
      expect(again.body).toContain('This sign-in link was already used');
      expect(again.body).toContain('editgate review --link');
    }
    // A new link of the server's signs in.
    const next = new URL(server.signInLink());
    expect(next.searchParams.get('token')).not.toBe(link.searchParams.get('token'));
    expect((await http(server.port, { path: next.pathname + next.search })).status).toBe(200);
  });

  it('a link made to be opened by a program expires: refused after its time, with a page saying so', async () => {
    const links = new SignInLinks();
    const now = Date.now();
    const token = links.issue({ ttlMs: OPEN_LINK_TTL_MS, now });
    const late = links.issue({ ttlMs: OPEN_LINK_TTL_MS, now });
    expect(links.redeem(late, now + OPEN_LINK_TTL_MS + 1)).toBe('expired');
    expect(links.redeem(token, now + OPEN_LINK_TTL_MS - 1)).toBe('signed-in');
    expect(links.redeem(token, now)).toBe('used');
    expect(links.redeem('x'.repeat(43))).toBe('unknown');
    const { server } = await reviewWorkspace();
    const short = new URL(server.signInLink(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answer = await http(server.port, { path: short.pathname + short.search });
    expect(answer.status).toBe(410);
    expect(answer.body).toContain('This sign-in link has expired');
  });

  it('without the token or the cookie nothing is shown; a wrong token or cookie is refused', async () => {
    const { server, change } = await pendingEdit();
    for (const path of [
      '/',
      '/api/changes',
      `/api/changes/${change.id}`,
      '/events',
      '/assets/review.js',
      '/api/session',
    ]) {
      expect((await http(server.port, { path })).status).toBe(401);
      const wrong = await http(server.port, {
        path,
        headers: { Cookie: `editgate-review-${server.port}=forged` },
      });
      expect(wrong.status).toBe(401);
    }
    expect((await http(server.port, { path: '/?token=guessed' })).status).toBe(403);
    expect((await http(server.port, { path: '/?token=' })).status).toBe(403);
  });

  it('a Host other than 127.0.0.1:PORT or localhost:PORT is refused, even with the cookie (DNS rebinding)', async () => {
    const { server, person, untouched, change } = await pendingEdit();
    // The same table the MCP server's HTTP transport is tested with (core/loopback-host.ts).
    for (const { host, accepted, why } of hostCases(server.port)) {
      const read = await person.get('/api/changes', { Host: host });
      expect(read.status, `${host}: ${why}`).toBe(accepted ? 200 : 403);
      if (accepted) continue;
      const decided = await person.decide(change.id, { hash: change.hash, decision: 'once' }, { Host: host });
      expect(decided.status, `${host}: ${why}`).toBe(403);
    }
    const link = new URL(server.url);
    expect(
      (
        await http(server.port, {
          path: link.pathname + link.search,
          headers: { Host: `evil.example:${server.port}` },
        })
      ).status,
    ).toBe(403);
    expect((await person.get('/api/changes', { Host: `localhost:${server.port}` })).status).toBe(200);
    await untouched();
  });
});

describe('a cookie alone (every server on 127.0.0.1 receives it, whatever its port)', () => {
  it('cannot be turned into a nonce, read a change through the API, or decide: nothing is written', async () => {
    const { server, person, change, untouched } = await pendingEdit();
    const cookieOnly = { Cookie: person.cookie };
    // Nothing answers a cookie with a nonce any more.
    const session = await http(server.port, { path: '/api/session', headers: cookieOnly });
    expect(session.status).toBe(410);
    expect(session.body).not.toContain(person.nonce);
    // The page's frame is shown, with nothing of the change and no secret that decides.
    const page = await http(server.port, { path: `/?change=${change.id}`, headers: cookieOnly });
    expect(page.status).toBe(200);
    expect(page.body).not.toContain(person.nonce);
    expect(page.body).not.toContain('const a');
    expect(page.body).not.toContain('app.ts');
    const secrets = new Set(page.body.match(/[A-Za-z0-9_-]{43}/g) ?? []);
    for (const candidate of [...secrets, '']) {
      const answer = await person.decide(
        change.id,
        { hash: change.hash, decision: 'once' },
        { 'X-Editgate-Nonce': candidate || undefined },
      );
      expect(answer.status).toBe(403);
    }
    // The API and the fragments need the nonce too: the file's texts are not read with the cookie.
    for (const path of [
      '/api/changes',
      `/api/changes/${change.id}`,
      `/api/changes/${change.id}/files/0`,
      `/fragments/change?change=${change.id}`,
      `/fragments/queue`,
      '/events',
      `/events?nonce=${'x'.repeat(43)}`,
    ]) {
      const read = await http(server.port, { path, headers: cookieOnly });
      expect(read.status).toBe(403);
      expect(read.body).not.toContain('const a');
    }
    await untouched();
    // With the nonce the sign-in gave, the same cookie reads and decides.
    expect((await person.get(`/api/changes/${change.id}/files/0`)).json().before).toBe(FILE['app.ts']);
  });

  it("of server A is refused by server B (another port), with or without A's nonce", async () => {
    const a = await pendingEdit();
    const b = await pendingEdit();
    const value = a.person.cookie.split('=')[1]!;
    for (const cookie of [a.person.cookie, `editgate-review-${b.server.port}=${value}`]) {
      const answer = await http(b.server.port, {
        method: 'POST',
        path: `/api/changes/${b.change.id}/decision`,
        headers: {
          Cookie: cookie,
          Origin: `http://127.0.0.1:${b.server.port}`,
          'X-Editgate-Nonce': a.person.nonce,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ hash: b.change.hash, decision: 'once' }),
      });
      expect(answer.status).toBe(401);
      expect((await http(b.server.port, { path: '/', headers: { Cookie: cookie } })).status).toBe(401);
    }
    await b.untouched();
    await a.untouched();
  });
});

describe('a decision', () => {
  it('with every check passed, writes exactly the approved change, once', async () => {
    const { person, change, ws } = await pendingEdit();
    const answer = await person.decide(change.id, { hash: change.hash, decision: 'once' });
    expect(answer.status).toBe(200);
    expect(answer.json().text).toBe('Answered in the browser: allowed once.');
    expect((await change.result).ok).toBe(true);
    expect(await ws.text('app.ts')).toBe('const a = 2;\n');
  });

  it.each([
    ['no cookie', { Cookie: undefined }, 401],
    ['a forged cookie', { Cookie: 'editgate-review-1=forged' }, 401],
    ['a foreign Origin', { Origin: 'https://evil.example' }, 403],
    ['the Origin of another local port', { Origin: 'http://127.0.0.1:1' }, 403],
    ['no Origin', { Origin: undefined }, 403],
    ['a cross-site fetch (Sec-Fetch-Site)', { 'Sec-Fetch-Site': 'cross-site' }, 403],
    ['no nonce', { 'X-Editgate-Nonce': undefined }, 403],
    ['a made-up nonce', { 'X-Editgate-Nonce': 'x'.repeat(43) }, 403],
    ['a text/plain body', { 'Content-Type': 'text/plain' }, 415],
    ['a form body', { 'Content-Type': 'application/x-www-form-urlencoded' }, 415],
    ['no content type', { 'Content-Type': undefined }, 415],
  ])('with %s is refused, and nothing is written', async (_, headers, status) => {
    const { person, change, untouched } = await pendingEdit();
    const answer = await person.decide(change.id, { hash: change.hash, decision: 'once' }, headers);
    expect(answer.status).toBe(status);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    await untouched();
  });

  it("with another session's nonce is refused", async () => {
    const { server, person, change, untouched } = await pendingEdit();
    const other = await signIn(server);
    const answer = await person.decide(
      change.id,
      { hash: change.hash, decision: 'once' },
      { 'X-Editgate-Nonce': other.nonce },
    );
    expect(answer.status).toBe(403);
    await untouched();
  });

  it('for a diff that is not the pending one is refused (409), and a malformed one (400)', async () => {
    const { person, change, untouched } = await pendingEdit();
    const stale = await person.decide(change.id, { hash: '0'.repeat(64), decision: 'once' });
    expect(stale.status).toBe(409);
    expect(stale.json().error).toContain('no longer the one pending');
    for (const body of [
      { hash: change.hash, decision: 'yes' },
      { hash: change.hash },
      { hash: 'short', decision: 'once' },
      { hash: change.hash, decision: 'once', extra: true },
    ]) {
      expect((await person.decide(change.id, body)).status).toBe(400);
    }
    await untouched();
  });

  it('replayed is refused (409): a decision counts once', async () => {
    const { person, change, ws } = await pendingEdit();
    expect(
      (await person.decide(change.id, { hash: change.hash, decision: 'deny', reason: 'no' })).status,
    ).toBe(200);
    expect((await change.result).ok).toBe(false);
    const replay = await person.decide(change.id, { hash: change.hash, decision: 'deny', reason: 'no' });
    expect(replay.status).toBe(409);
    const other = await person.decide(change.id, { hash: change.hash, decision: 'once' });
    expect(other.status).toBe(409);
    expect(other.json().error).toContain('already answered in the browser');
    expect(await ws.text('app.ts')).toBe(FILE['app.ts']);
  });

  it('to approve a change whose file changed on disk is refused (409); denying it tells the model why', async () => {
    const { person, change, ws, server } = await pendingEdit();
    await ws.put('app.ts', 'const a = 100;\n');
    const answer = await person.decide(change.id, { hash: change.hash, decision: 'once' });
    expect(answer.status).toBe(409);
    expect(answer.json().error).toContain('changed on disk');
    expect(server.queue.get(change.id)!.status).toBe('stale');
    expect(await ws.text('app.ts')).toBe('const a = 100;\n');
    expect((await person.decide(change.id, { hash: change.hash, decision: 'deny' })).status).toBe(200);
    const denied = await change.result;
    expect(denied).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(denied.message).toContain(STALE_DENIAL);
    expect(await ws.text('app.ts')).toBe('const a = 100;\n');
  });

  it('with a version of a file the change does not touch is refused, nothing written', async () => {
    const { person, change, untouched } = await pendingEdit();
    const answer = await person.decide(change.id, {
      hash: change.hash,
      decision: 'once',
      edited: { '../etc/passwd': 'x' },
    });
    expect(answer.status).toBe(400);
    await untouched();
  });
});

describe('what every response says', () => {
  it('a CSP that forbids framing, no caching, no referrer, and never a CORS header', async () => {
    const { server, person } = await pendingEdit();
    const page = await http(server.port, {
      path: '/',
      headers: { Cookie: person.cookie, Origin: 'https://evil.example' },
    });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(Object.keys(page.headers).some((name) => name.startsWith('access-control-'))).toBe(false);
    const preflight = await http(server.port, {
      method: 'OPTIONS',
      path: '/api/changes',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(405);
    expect(Object.keys(preflight.headers).some((name) => name.startsWith('access-control-'))).toBe(false);
    // The nonce is given once, at sign-in; never with the page.
    expect(page.body).not.toContain(person.nonce);
    expect(page.body).not.toContain('editgate-nonce');
  });

  it('the API lists and reads changes for scripts, with the hash a decision quotes', async () => {
    const { person, change } = await pendingEdit();
    const list = await person.get('/api/changes');
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(list.json().changes).toEqual([
      expect.objectContaining({
        id: change.id,
        hash: change.hash,
        status: 'pending',
        tool: 'edit_file',
        path: 'app.ts',
      }),
    ]);
    const one = (await person.get(`/api/changes/${change.id}`)).json();
    expect((one.files as Array<{ unifiedDiff: string }>)[0]!.unifiedDiff).toContain('+const a = 2;');
  });
});

describe('the route other processes send changes to', () => {
  it('is closed unless the server accepts submissions, and needs its bearer token and no Origin', async () => {
    const { server } = await reviewWorkspace();
    const body = JSON.stringify({ request: {}, source: 'x' });
    const headers = { 'Content-Type': 'application/json' };
    expect((await http(server.port, { method: 'POST', path: '/api/submit', headers, body })).status).toBe(
      404,
    );
  });
});

describe('a change whose file changed before the page got it', () => {
  it('is stale on arrival (the page compares with the version the diff was made from), nothing written', async () => {
    const ws = await makeWorkspace({ 'app.ts': 'const a = 1;\n' });
    const server = await startReviewServer({ root: ws.root, source: 'the test' });
    try {
      // Between the gate computing the diff and the page receiving it, someone saves the file.
      const tools = createEditTools({
        root: ws.root,
        approve: async (request, context) => {
          await ws.put('app.ts', 'const a = 100;\n');
          return server.ask(request, context?.signal ? { signal: context.signal } : {});
        },
      });
      await tools.execute('read_file', { file_path: 'app.ts' });
      const result = tools.execute('edit_file', {
        file_path: 'app.ts',
        old_string: 'a = 1',
        new_string: 'a = 2',
      });
      const id = await firstQueued(server);
      while (server.queue.get(id)!.status === 'pending')
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.queue.get(id)!.status).toBe('stale');
      const person = await signIn(server);
      const answer = await person.decide(id, { hash: server.queue.get(id)!.hash, decision: 'once' });
      expect(answer.status).toBe(409);
      expect((await person.decide(id, { hash: server.queue.get(id)!.hash, decision: 'deny' })).status).toBe(
        200,
      );
      expect(await result).toMatchObject({ ok: false, code: 'DENIED_USER' });
      expect(await ws.text('app.ts')).toBe('const a = 100;\n');
    } finally {
      await server.close();
    }
  });

  it('with several roots, a file under the second root is watched where it is', async () => {
    const first = await makeWorkspace({ 'one.txt': 'one\n' });
    const second = await makeWorkspace({ 'two.txt': 'two\n' });
    const server = await startReviewServer({ root: first.root, source: 'the test' });
    try {
      const tools = createEditTools({
        root: [first.root, second.root],
        approve: (request) => server.ask(request),
      });
      const path = `${second.root}/two.txt`;
      await tools.execute('read_file', { file_path: path });
      const result = tools.execute('write_file', { file_path: path, content: 'TWO\n' });
      const id = await firstQueued(server);
      expect(server.queue.get(id)!.status).toBe('pending');
      await second.put('two.txt', 'changed\n');
      while (server.queue.get(id)!.status === 'pending')
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.queue.get(id)!.status).toBe('stale');
      const person = await signIn(server);
      expect((await person.decide(id, { hash: server.queue.get(id)!.hash, decision: 'deny' })).status).toBe(
        200,
      );
      expect((await result).ok).toBe(false);
      expect(await second.text('two.txt')).toBe('changed\n');
    } finally {
      await server.close();
    }
  });
});
