/**
 * Answering a review page from its printed link, as the page's script does: sign in with the link's token
 * (the session cookie and its nonce), then decide the first pending change through the JSON API. For
 * end-to-end tests of processes that print a link (--approve web on the CLI and the chat). A link signs in
 * once, so the session is kept per link and every helper called with the same link uses it.
 */
import { http, signInWith } from './review-fixture.js';

export const LINK = /(http:\/\/127\.0\.0\.1:(\d+))\/\?token=[A-Za-z0-9_-]{43}/;

interface LinkSession {
  url: URL;
  port: number;
  headers: Record<string, string>;
}

const sessions = new Map<string, Promise<LinkSession>>();

/** The session of a printed link: signed in with it on first use. */
function sessionOf(link: string): Promise<LinkSession> {
  let session = sessions.get(link);
  if (!session) {
    session = signInWith(link).then(({ cookie, nonce, port }) => ({
      url: new URL(link),
      port,
      headers: { Cookie: cookie, 'X-Editgate-Nonce': nonce },
    }));
    sessions.set(link, session);
  }
  return session;
}

/** The changes the page lists (pending, answered, withdrawn). */
export async function listedChanges(link: string): Promise<Array<Record<string, unknown>>> {
  const { port, headers } = await sessionOf(link);
  return (await http(port, { path: '/api/changes', headers })).json().changes as Array<
    Record<string, unknown>
  >;
}

/**
 * Whether the page still waits for an answer to a change: pending, or stale (a file of it changed on disk
 * since it was shown, which can happen before the question reaches the page; the page still takes an answer
 * to it, a refusal or a denial).
 */
function waiting(entry: { status: string }): boolean {
  return entry.status === 'pending' || entry.status === 'stale';
}

/** The first waiting change as the page shows it (waits for one to arrive). */
export async function pendingPageHtml(link: string): Promise<string> {
  const { port, headers } = await sessionOf(link);
  for (;;) {
    const { changes } = (await http(port, { path: '/api/changes', headers })).json() as {
      changes: Array<{ id: string; status: string }>;
    };
    const pending = changes.find(waiting);
    if (pending) return (await http(port, { path: `/fragments/change?change=${pending.id}`, headers })).body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Answers the first waiting change through the page's API (waits for one to arrive). */
export async function answerOnPage(link: string, decision: Record<string, unknown>) {
  const { url, port, headers } = await sessionOf(link);
  let change: { id: string; hash: string } | undefined;
  while (!change) {
    const { changes } = (await http(port, { path: '/api/changes', headers })).json() as {
      changes: Array<{ id: string; hash: string; status: string }>;
    };
    change = changes.find(waiting);
    if (!change) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const answer = await http(port, {
    method: 'POST',
    path: `/api/changes/${change.id}/decision`,
    headers: { ...headers, Origin: url.origin, 'Content-Type': 'application/json' },
    body: JSON.stringify({ hash: change.hash, ...decision }),
  });
  return { answer, list: () => http(port, { path: '/api/changes', headers }) };
}
