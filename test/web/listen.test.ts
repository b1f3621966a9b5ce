/**
 * The review page on a listening address (`--listen`): HTTPS only with a certificate editgate made (the
 * client checks its fingerprint), a change's link that opens that change for one answer, once, until it
 * expires, nothing else; bad tokens from one address slowed and then refused; a question nobody answers
 * refused as DENIED_NO_APPROVER; and the audit line saying where each answer came from. 127.0.0.2 stands
 * for the LAN address (a loopback address other than 127.0.0.1, so the test needs no network), and the
 * "phones" ask from 127.0.0.3 and 127.0.0.4.
 */

import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { parseListenAddress } from '../../src/core/listen-host.js';
import type { ThrottleOptions } from '../../src/web/bad-token-throttle.js';
import { type ReviewServer, startReviewServer } from '../../src/web/review-server.js';
import { keptTlsIdentity, type TlsIdentity } from '../../src/web/tls-identity.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';

const servers: ReviewServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The SHA-256 fingerprint of the certificate the server showed. */
  fingerprint: string;
}

/** An HTTPS request as a phone's browser sends it, from `from`, trusting only the given certificate. */
function phone(
  url: string,
  tls: TlsIdentity,
  options: { from?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    let fingerprint = '';
    const req = httpsRequest(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: Number(target.port),
        path: target.pathname + target.search,
        method: options.method ?? 'GET',
        localAddress: options.from ?? '127.0.0.3',
        // Trust this one certificate, and check it is the one whose fingerprint was printed.
        ca: tls.cert,
        checkServerIdentity: (_host, cert) => {
          fingerprint = cert.fingerprint256;
          return cert.fingerprint256 === tls.fingerprint
            ? undefined
            : new Error('not the printed fingerprint');
        },
        headers: { 'User-Agent': 'Mozilla/5.0 (iPhone) test phone', ...options.headers },
      },
      (res) => {
        fingerprint ||= (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            fingerprint,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function listening(
  options: { changeLinkTtlMs?: number; answerTimeoutMs?: number; throttle?: ThrottleOptions } = {},
) {
  const ws = await makeWorkspace({ 'a.txt': 'one\ntwo\n', 'b.txt': 'three\n' });
  const stateDir = tempFolder('editgate-listen-state-');
  const tls = await keptTlsIdentity(stateDir, '127.0.0.2');
  const server = await startReviewServer({
    root: ws.root,
    source: 'the test',
    listen: { address: parseListenAddress('127.0.0.2:0'), tls },
    ...options,
  });
  servers.push(server);
  const auditLog = join(stateDir, 'audit.jsonl');
  const tools = ws.tools({
    approve: (request, context) =>
      server.ask(request, context?.answeredFrom ? { answeredFrom: context.answeredFrom } : {}),
    auditLog,
  });
  const propose = async (path: string, old: string, replacement: string) => {
    await readAll(tools, path);
    const queued = new Promise<string>((resolve) => {
      const stop = server.queue.subscribe((event) => {
        if (event.type === 'added') {
          stop();
          resolve(event.item.id);
        }
      });
    });
    const result = tools.execute('edit_file', { file_path: path, old_string: old, new_string: replacement });
    const id = await queued;
    return { id, hash: server.queue.get(id)!.hash, result };
  };
  const auditLines = async () =>
    (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ws, server, tls, stateDir, tools, propose, auditLines };
}

/** Signs in with a change's link as a script does; the cookie and nonce of its session. */
async function openLink(link: string, tls: TlsIdentity, from?: string) {
  const answer = await phone(link, tls, {
    headers: { Accept: 'application/json' },
    ...(from ? { from } : {}),
  });
  return {
    answer,
    cookie: String(answer.headers['set-cookie'] ?? '').split(';')[0]!,
    nonce: answer.status === 200 ? String(JSON.parse(answer.body).nonce) : '',
  };
}

function decide(
  server: ReviewServer,
  tls: TlsIdentity,
  session: { cookie: string; nonce: string },
  id: string,
  body: Record<string, unknown>,
  from?: string,
) {
  return phone(`${server.listenOrigin}/api/changes/${id}/decision`, tls, {
    method: 'POST',
    ...(from ? { from } : {}),
    headers: {
      Cookie: session.cookie,
      Origin: server.listenOrigin!,
      'X-Editgate-Nonce': session.nonce,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(body),
  });
}

describe('the listening address', () => {
  it('serves HTTPS with the certificate editgate made and keeps (0600); the client sees its fingerprint', async () => {
    const { server, tls, stateDir } = await listening();
    expect(server.listenOrigin).toMatch(/^https:\/\/127\.0\.0\.2:\d+$/);
    expect(tls.source).toMatchObject({ made: true });
    const answer = await phone(`${server.listenOrigin}/favicon.ico`, tls);
    expect(answer.status).toBe(204);
    expect(answer.fingerprint).toBe(tls.fingerprint);
    expect(tls.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // A client that was not given the certificate to trust refuses it: no authority signed it.
    const untrusted = await new Promise<string>((resolve) => {
      const target = new URL(server.listenOrigin!);
      httpsRequest({ host: '127.0.0.2', port: Number(target.port), path: '/favicon.ico' }, () =>
        resolve('answered'),
      )
        .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
        .end();
    });
    expect(untrusted).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    // Kept: the next run shows the phone the same certificate.
    const again = await keptTlsIdentity(stateDir, '127.0.0.2');
    expect(again.fingerprint).toBe(tls.fingerprint);
    expect(again.source).toMatchObject({ made: false });
    const { stat } = await import('node:fs/promises');
    const keyPath = (again.source as { kept: string }).kept.replace('.cert.pem', '.key.pem');
    expect((await stat(keyPath)).mode & 0o777).toBe(0o600);
    // A kept certificate for another address is not this one's.
    expect((await keptTlsIdentity(stateDir, '127.0.0.5')).fingerprint).not.toBe(tls.fingerprint);
  });

  it('refuses plain HTTP: nothing is served without TLS', async () => {
    const { server } = await listening();
    const port = Number(new URL(server.listenOrigin!).port);
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest(
        { host: '127.0.0.2', port, path: '/favicon.ico', localAddress: '127.0.0.3' },
        (res) => resolve(`answered ${res.statusCode}`),
      );
      req.on('error', (error: NodeJS.ErrnoException) => resolve(`failed ${error.code ?? error.message}`));
      req.end();
    });
    expect(outcome).toMatch(/^failed/);
  });

  it('answers only to its own Host; other processes and whole-page links are not served there', async () => {
    const { server, tls, propose } = await listening();
    const port = new URL(server.listenOrigin!).port;
    const wrongHost = await phone(`${server.listenOrigin}/favicon.ico`, tls, {
      headers: { Host: `evil.example:${port}` },
    });
    expect(wrongHost.status).toBe(403);
    expect(wrongHost.body).toContain(`use https://127.0.0.2:${port}/`);
    const loopbackHost = await phone(`${server.listenOrigin}/favicon.ico`, tls, {
      headers: { Host: `127.0.0.1:${server.port}` },
    });
    expect(loopbackHost.status).toBe(403);
    const hello = await phone(`${server.listenOrigin}/api/submissions/hello`, tls, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ challenge: 'x'.repeat(43) }),
    });
    expect(hello.status).toBe(404);
    // The page's own sign-in link (this machine's) does not sign in on the listening address.
    const whole = new URL(server.signInLink());
    const refused = await phone(`${server.listenOrigin}/${whole.search}`, tls, {
      headers: { Accept: 'application/json' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('served on this machine only');
    // A change's link does; its cookie is Secure and HttpOnly.
    const { id, result } = await propose('a.txt', 'two', 'TWO');
    const opened = await openLink(server.changeLink(id), tls);
    expect(opened.answer.status).toBe(200);
    expect(String(opened.answer.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict; Path=\/; Secure/);
    await decide(server, tls, opened, id, { hash: server.queue.get(id)!.hash, decision: 'deny' });
    expect((await result).ok).toBe(false);
  });
});

describe("a change's link", () => {
  it('opens that change alone and answers it once; the audit line records the address and browser', async () => {
    const { server, tls, ws, propose, auditLines } = await listening();
    const first = await propose('a.txt', 'two', 'TWO');
    const link = server.changeLink(first.id);
    expect(link).toMatch(/^https:\/\/127\.0\.0\.2:\d+\/\?token=[\w-]{43}$/);
    const session = await openLink(link, tls);
    expect(session.answer.status).toBe(200);
    // Its page is this change; the list shows it alone.
    const listed = await phone(`${server.listenOrigin}/api/changes`, tls, {
      headers: { Cookie: session.cookie, 'X-Editgate-Nonce': session.nonce },
    });
    expect(JSON.parse(listed.body).changes.map((change: { id: string }) => change.id)).toEqual([first.id]);
    // A grant wider than this change is not the link's to give.
    const wide = await decide(server, tls, session, first.id, { hash: first.hash, decision: 'all' });
    expect(wide.status).toBe(400);
    expect(wide.body).toContain('allow it once, or deny it');
    const answered = await decide(server, tls, session, first.id, { hash: first.hash, decision: 'once' });
    expect(answered.status).toBe(200);
    expect((await first.result).ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('one\nTWO\n');
    const [line] = await auditLines();
    expect(line).toMatchObject({
      path: 'a.txt',
      decision: 'once',
      decidedBy: 'user',
      answeredFrom: {
        address: '127.0.0.3',
        userAgent: 'Mozilla/5.0 (iPhone) test phone',
        via: 'change link',
      },
    });
    // One decision: the same session cannot answer again.
    const again = await decide(server, tls, session, first.id, { hash: first.hash, decision: 'deny' });
    expect(again.status).toBe(409);
  });

  it('is refused on second use, after it expires, and for another change', async () => {
    const { server, tls, propose } = await listening();
    const first = await propose('a.txt', 'two', 'TWO');
    const link = server.changeLink(first.id);
    const session = await openLink(link, tls);
    expect(session.answer.status).toBe(200);
    const second = await phone(link, tls);
    expect(second.status).toBe(410);
    expect(second.body).toContain('already used');

    const late = server.changeLink(first.id, 1);
    await new Promise((done) => setTimeout(done, 20));
    const expired = await phone(late, tls);
    expect(expired.status).toBe(410);
    expect(expired.body).toContain('expired');

    const other = await propose('b.txt', 'three', 'THREE');
    const reading = await phone(`${server.listenOrigin}/api/changes/${other.id}`, tls, {
      headers: { Cookie: session.cookie, 'X-Editgate-Nonce': session.nonce },
    });
    expect(reading.status).toBe(403);
    expect(reading.body).toContain('another change');
    const deciding = await decide(server, tls, session, other.id, { hash: other.hash, decision: 'once' });
    expect(deciding.status).toBe(403);
    const fragment = await phone(`${server.listenOrigin}/fragments/change?change=${other.id}`, tls, {
      headers: { Cookie: session.cookie, 'X-Editgate-Nonce': session.nonce },
    });
    expect(fragment.status).toBe(403);
    expect(server.queue.get(other.id)!.status).toBe('pending');
    // Its session does not cross to 127.0.0.1 either (a cookie carried there is no session).
    const { http } = await import('./review-fixture.js');
    const crossed = await http(server.port, {
      path: '/api/changes',
      headers: { Cookie: session.cookie, 'X-Editgate-Nonce': session.nonce },
    });
    expect(crossed.status).toBe(401);
    for (const id of [first.id, other.id]) {
      await server.queue.decide(id, { hash: server.queue.get(id)!.hash, decision: 'deny' });
    }
  });
});

describe('bad tokens from one address', () => {
  it('are slowed, then the address is refused, good link or not; another address is not', async () => {
    const { server, tls, propose } = await listening({
      throttle: { slowAfter: 2, refuseAfter: 4, windowMs: 60_000, delayMs: 1 },
    });
    const { id, hash, result } = await propose('a.txt', 'two', 'TWO');
    for (let i = 0; i < 4; i++) {
      const wrong = await phone(`${server.listenOrigin}/?token=${'A'.repeat(43)}`, tls);
      expect(wrong.status).toBe(403);
    }
    const refused = await openLink(server.changeLink(id), tls);
    expect(refused.answer.status).toBe(429);
    expect(refused.answer.body).toContain('127.0.0.3');
    // A wrong cookie counts too, and is refused the same way now.
    const cookie = await phone(`${server.listenOrigin}/api/changes`, tls, { headers: { Cookie: 'x=y' } });
    expect(cookie.status).toBe(429);
    // The person's phone, on its own address, is not held back by it.
    const fine = await openLink(server.changeLink(id), tls, '127.0.0.4');
    expect(fine.answer.status).toBe(200);
    expect((await decide(server, tls, fine, id, { hash, decision: 'deny' }, '127.0.0.4')).status).toBe(200);
    expect((await result).ok).toBe(false);
  });
});

describe('a question nobody answers', () => {
  it('is refused as DENIED_NO_APPROVER when its time is up, never allowed; the page says so', async () => {
    const { server, ws, propose, auditLines } = await listening({ answerTimeoutMs: 300 });
    const { id, result } = await propose('a.txt', 'two', 'TWO');
    const outcome = await result;
    expect(outcome.ok).toBe(false);
    expect(outcome).toMatchObject({ code: 'DENIED_NO_APPROVER' });
    expect(outcome.message).toContain('no one answered it on the review page within 300 ms');
    expect(outcome.message).toContain('No one said no');
    expect(await ws.text('a.txt')).toBe('one\ntwo\n');
    expect(server.queue.get(id)).toMatchObject({ status: 'withdrawn' });
    expect(server.queue.get(id)!.statusNote).toMatch(/^Refused: no one answered/);
    const [line] = await auditLines();
    expect(line).toMatchObject({ decision: 'deny', decidedBy: 'editgate', code: 'DENIED_NO_APPROVER' });
  });
});
