/**
 * Answering a review page from its printed link, as the page's script does: sign in with the link's token,
 * take the nonce, then decide the first pending change through the JSON API. For end-to-end tests of
 * processes that print a link (--approve web on the CLI and the chat).
 */
import { http } from './review-fixture.js';

export const LINK = /(http:\/\/127\.0\.0\.1:(\d+))\/\?token=[A-Za-z0-9_-]{43}/;

/** Signs in with the printed link, as the browser does: the session cookie the token is exchanged for. */
async function signInWith(link: string): Promise<{ url: URL; port: number; cookie: string }> {
  const url = new URL(link);
  const port = Number(url.port);
  const signIn = await http(port, { path: url.pathname + url.search });
  return { url, port, cookie: String(signIn.headers['set-cookie']).split(';')[0]! };
}

/** The changes the page lists (pending, answered, withdrawn), through a fresh sign-in with the link. */
export async function listedChanges(link: string): Promise<Array<Record<string, unknown>>> {
  const { port, cookie } = await signInWith(link);
  return (await http(port, { path: '/api/changes', headers: { Cookie: cookie } })).json().changes as Array<
    Record<string, unknown>
  >;
}

/** Signs in with the printed link and answers the first waiting change through the page's API. */
export async function answerOnPage(link: string, decision: Record<string, unknown>) {
  const { url, port, cookie } = await signInWith(link);
  const { nonce } = (await http(port, { path: '/api/session', headers: { Cookie: cookie } })).json() as {
    nonce: string;
  };
  let change: { id: string; hash: string } | undefined;
  while (!change) {
    const { changes } = (await http(port, { path: '/api/changes', headers: { Cookie: cookie } })).json() as {
      changes: Array<{ id: string; hash: string; status: string }>;
    };
    change = changes.find((entry) => entry.status === 'pending');
    if (!change) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const answer = await http(port, {
    method: 'POST',
    path: `/api/changes/${change.id}/decision`,
    headers: {
      Cookie: cookie,
      Origin: url.origin,
      'X-Editgate-Nonce': nonce,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ hash: change.hash, ...decision }),
  });
  return { answer, list: () => http(port, { path: '/api/changes', headers: { Cookie: cookie } }) };
}
