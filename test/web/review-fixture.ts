/**
 * A review server over a real workspace, with the gate asking it: changes proposed through the tools wait
 * on the page until answered. Raw HTTP (node:http, so Host, Origin and cookies are exactly what a test
 * says) for the API and the security rules.
 */
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { diffLines, formatUnifiedDiff } from '../../src/core/diff.js';
import type { ApprovalFile } from '../../src/gate/approval.js';
import type { ToolResult } from '../../src/tools/result.js';
import { type ReviewServer, startReviewServer } from '../../src/web/review-server.js';
import { onCleanup } from '../cleanup.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): Record<string, unknown>;
}

export function http(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { Host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface SignedIn {
  cookie: string;
  nonce: string;
  origin: string;
  /** A GET as the page's script sends it (cookie and nonce). */
  get(path: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  /** A decision as the page sends it: every header right unless a test overrides one. */
  decide(
    id: string,
    body: Record<string, unknown>,
    headers?: Record<string, string | undefined>,
  ): Promise<HttpAnswer>;
}

/**
 * Signs in with a sign-in link as a script does (Accept: application/json): the session cookie and, once,
 * its nonce. Each link works once: `link` defaults to a new one of the server's.
 */
export async function signInWith(link: string): Promise<{ cookie: string; nonce: string; port: number }> {
  const url = new URL(link);
  const port = Number(url.port);
  const answer = await http(port, {
    path: url.pathname + url.search,
    headers: { Accept: 'application/json' },
  });
  if (answer.status !== 200) throw new Error(`sign-in refused (HTTP ${answer.status}): ${answer.body}`);
  const cookie = String(answer.headers['set-cookie']).split(';')[0]!;
  return { cookie, nonce: String(answer.json().nonce), port };
}

/** Signs in (a new link of the server's unless one is given) and answers as the page's script does. */
export async function signIn(
  server: Pick<ReviewServer, 'port' | 'signInLink'>,
  link = server.signInLink(),
): Promise<SignedIn> {
  const { cookie, nonce } = await signInWith(link);
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    cookie,
    nonce,
    origin,
    get: (path, headers = {}) =>
      http(server.port, { path, headers: { Cookie: cookie, 'X-Editgate-Nonce': nonce, ...headers } }),
    decide(id, body, headers = {}) {
      const all: Record<string, string | undefined> = {
        Cookie: cookie,
        Origin: origin,
        'X-Editgate-Nonce': nonce,
        'Content-Type': 'application/json',
        ...headers,
      };
      const sent = Object.fromEntries(
        Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
      return http(server.port, {
        method: 'POST',
        path: `/api/changes/${id}/decision`,
        headers: sent,
        body: JSON.stringify(body),
      });
    },
  };
}

/** A workspace whose changes are approved on a review page. */
export async function reviewWorkspace(files: Record<string, string> = {}) {
  const ws = await makeWorkspace(files);
  const server = await startReviewServer({ root: ws.root, source: 'the test' });
  onCleanup(() => server.close());
  const tools = ws.tools({ approve: (request) => server.ask(request), readLimit: 100_000 });
  /** Starts a tool call that will wait on the page; resolves once the change is listed there. */
  const propose = async (name: string, input: Record<string, unknown>) => {
    const path = input.file_path;
    // Edits and overwrites need a full read first, as for a model.
    if (typeof path === 'string' && existsSync(ws.path(path))) await readAll(tools, path);
    const before = new Set(server.queue.list().map((item) => item.id));
    const queued = new Promise<string>((resolve) => {
      const stop = server.queue.subscribe((event) => {
        if (event.type === 'added' && !before.has(event.item.id)) {
          stop();
          resolve(event.item.id);
        }
      });
    });
    const result: Promise<ToolResult> = tools.execute(name, input);
    const id = await Promise.race([
      queued,
      result.then((done) => Promise.reject(new Error(`answered without the page: ${done.message}`))),
    ]);
    const item = server.queue.get(id)!;
    return { id, hash: item.hash, result };
  };
  return { ws, server, tools, propose };
}

/** The id of the first change the page lists, once one arrives. */
export function firstQueued(server: Pick<ReviewServer, 'queue'>): Promise<string> {
  return new Promise<string>((resolve) => {
    const listed = server.queue.list()[0];
    if (listed) resolve(listed.id);
    else server.queue.subscribe((event) => resolve(event.item.id));
  });
}

/** One file of a change as the gate would ask about it: its diff of `before` to `after`, and both texts. */
export function fileChange(
  path: string,
  before: string,
  after: string,
  kind: ApprovalFile['kind'] = 'modify',
): ApprovalFile {
  const diff = diffLines(before, after);
  return {
    path,
    kind,
    diff,
    unifiedDiff: formatUnifiedDiff(diff, {
      oldPath: kind === 'create' ? '/dev/null' : path,
      newPath: kind === 'delete' ? '/dev/null' : path,
    }),
    stats: { added: diff.added, removed: diff.removed },
    texts: { before, after },
  };
}

/** Twenty lines, "line 1" to "line 20". */
export const NUMBERED = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
/** Three far-apart changes of NUMBERED (three hunks): line 2, line 10 and line 19. */
export const THREE_HUNKS = NUMBERED.replace('line 2\n', 'line two\n')
  .replace('line 10\n', 'line ten\n')
  .replace('line 19\n', 'line nineteen\n');
/** What is written of THREE_HUNKS when hunk 2 (line 10) is left out. */
export const HUNKS_1_AND_3 = NUMBERED.replace('line 2\n', 'line two\n').replace(
  'line 19\n',
  'line nineteen\n',
);
