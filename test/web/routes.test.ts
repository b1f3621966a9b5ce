import { describe, expect, it } from 'vitest';
import { decide, editPreview } from '../../src/web/decision-routes.js';
import { startReviewServer } from '../../src/web/review-server.js';
import { type Access, ROUTES, type Route, UNMATCHED } from '../../src/web/routes.js';
import { signInLink, submit, withdraw } from '../../src/web/submission-routes.js';
import { makeWorkspace } from '../tools/workspace-fixture.js';
import { http, reviewWorkspace, signIn } from './review-fixture.js';

// The route table (src/web/routes.ts) held to its rule: every route is behind the checks it must have, made
// in one place (route-access.ts) for the whole table (#27).

const key = (route: Route) => `${route.method} ${route.path}${route.query ? `?${route.query}` : ''}`;

/** The only routes open to less than the session's nonce: nothing of a change is in them. */
const WEAKER_THAN_NONCE: Record<string, Access> = {
  'GET /favicon.ico': 'anyone',
  'POST /favicon.ico': 'anyone',
  'GET /?token': 'sign-in-link',
  'GET /': 'cookie',
  'GET /assets/review.js': 'cookie',
  'GET /assets/sign-in.js': 'cookie',
  'GET /assets/review.css': 'cookie',
};

/** The handlers that change something: a person's decision, or a change put on the page or taken off it. */
const DECIDING = new Map<unknown, Access>([
  [decide, 'decide'],
  [editPreview, 'decide'],
  [submit, 'process-token'],
  [withdraw, 'process-token'],
  [signInLink, 'process-token'],
]);

describe('the route table', () => {
  it('opens to less than the nonce only the page frame, its assets, the icon and the sign-in link', () => {
    const weaker = ROUTES.filter(
      (route) => !['nonce', 'decide', 'process', 'process-token'].includes(route.access),
    );
    expect(Object.fromEntries(weaker.map((route) => [key(route), route.access]))).toEqual(WEAKER_THAN_NONCE);
  });

  it('every handler that changes anything sits behind the decision checks (or the process token)', () => {
    for (const route of ROUTES) {
      const needed = DECIDING.get(route.handle);
      if (needed) expect(route.access, key(route)).toBe(needed);
    }
    expect(ROUTES.filter((route) => DECIDING.has(route.handle))).toHaveLength(DECIDING.size);
  });

  it('a POST of the page needs the decision checks; a path of other processes, their checks', () => {
    for (const route of ROUTES) {
      if (route.path.startsWith('/api/submi')) {
        expect(['process', 'process-token'], key(route)).toContain(route.access);
        // Only the server's proof of itself goes without the token (the asker sends it to a proven server).
        if (route.access === 'process') expect(route.path).toBe('/api/submissions/hello');
      } else if (route.method === 'POST' && route.access !== 'anyone') {
        expect(route.access, key(route)).toBe('decide');
      }
    }
  });

  it('a request no route matches is held to the strictest checks of its area', () => {
    expect(UNMATCHED.get.access).toBe('nonce');
    expect(UNMATCHED.other.access).toBe('decide');
    expect(UNMATCHED.submissions.access).toBe('process-token');
  });

  it('a route in the table a second time would shadow the first: there is none', () => {
    const keys = ROUTES.map(key);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('every route of the table, against a real server, refused without each check it needs', () => {
  it('the page: Host, cookie, nonce, Origin, Sec-Fetch-Site, JSON; the sign-in link once', async () => {
    const { server, propose } = await reviewWorkspace({ 'a.ts': 'one\n' });
    const change = await propose('write_file', { file_path: 'a.ts', content: 'two\n' });
    const person = await signIn(server);
    const here = `127.0.0.1:${server.port}`;
    const good = {
      Host: here,
      Cookie: person.cookie,
      'X-Editgate-Nonce': person.nonce,
      Origin: person.origin,
      'Content-Type': 'application/json',
    };
    const used = new URL(server.url);
    await http(server.port, { path: used.pathname + used.search, headers: { Accept: 'application/json' } });
    for (const route of ROUTES.filter((entry) => !entry.path.startsWith('/api/submi'))) {
      const path =
        route.query === 'token'
          ? used.pathname + used.search
          : route.path.replace(':id', change.id).replace(':index', '0');
      const send = (headers: Record<string, string | undefined>) =>
        http(server.port, {
          method: route.method,
          path,
          headers: Object.fromEntries(
            Object.entries({ ...good, ...headers }).filter(
              (entry): entry is [string, string] => entry[1] !== undefined,
            ),
          ),
          ...(route.method === 'POST' ? { body: '{}' } : {}),
        });
      const refused = async (headers: Record<string, string | undefined>, status: number, why: string) =>
        expect((await send(headers)).status, `${key(route)} ${why}`).toBe(status);

      await refused({ Host: `evil.example:${server.port}` }, 403, 'with a rebound Host');
      if (route.access === 'sign-in-link') await refused({}, 410, 'with a link already used');
      if (!['cookie', 'nonce', 'decide'].includes(route.access)) continue;
      await refused({ Cookie: undefined }, 401, 'without the cookie');
      if (route.access === 'cookie') continue;
      await refused({ 'X-Editgate-Nonce': undefined }, route.nonceGone ? 410 : 403, 'without the nonce');
      await refused(
        { 'X-Editgate-Nonce': 'x'.repeat(43) },
        route.nonceGone ? 410 : 403,
        'with a wrong nonce',
      );
      if (route.access === 'nonce') continue;
      await refused({ Origin: 'https://evil.example' }, 403, 'from another origin');
      await refused({ Origin: undefined }, 403, 'without an Origin');
      await refused({ 'Sec-Fetch-Site': 'same-site' }, 403, 'from another site');
      await refused({ 'Content-Type': 'text/plain' }, 415, 'as a form could send it');
    }
    expect(server.queue.get(change.id)!.status).toBe('pending');
  });

  it('other processes: Host, no Origin, the bearer token, JSON; none of it without changes accepted', async () => {
    const ws = await makeWorkspace();
    const server = await startReviewServer({ root: ws.root, acceptSubmissions: true });
    const closed = await startReviewServer({ root: ws.root });
    try {
      const good = {
        Host: `127.0.0.1:${server.port}`,
        Authorization: `Bearer ${server.submitToken}`,
        'Content-Type': 'application/json',
      };
      for (const route of ROUTES.filter((entry) => entry.path.startsWith('/api/submi'))) {
        const path = route.path.replace(':id', 'x');
        const send = (headers: Record<string, string | undefined>, port = server.port) =>
          http(port, {
            method: 'POST',
            path,
            headers: Object.fromEntries(
              Object.entries({ ...good, ...headers }).filter(
                (entry): entry is [string, string] => entry[1] !== undefined,
              ),
            ),
            body: '{}',
          });
        const refused = async (headers: Record<string, string | undefined>, status: number, why: string) =>
          expect((await send(headers)).status, `${key(route)} ${why}`).toBe(status);
        await refused({ Host: `evil.example:${server.port}` }, 403, 'with a rebound Host');
        await refused({ Origin: `http://127.0.0.1:${server.port}` }, 403, 'from a browser');
        await refused({ 'Content-Type': 'text/plain' }, 415, 'as a form could send it');
        expect((await send({ Host: `127.0.0.1:${closed.port}` }, closed.port)).status).toBe(404);
        if (route.access === 'process-token') {
          await refused({ Authorization: undefined }, 401, 'without the token');
          await refused({ Authorization: 'Bearer nope' }, 401, 'with a wrong token');
        }
      }
    } finally {
      await server.close();
      await closed.close();
    }
  });
});
