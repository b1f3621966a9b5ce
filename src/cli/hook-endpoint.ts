/**
 * The hook server's loopback HTTP endpoint, for agents that post their hook events themselves (Claude Code's
 * `type: "http"` hooks): no process starts per call, not even a shell (issue #29 item 5).
 *
 * Its place and key are one file, STATE/run/hook-http (0600, in the run folder that only this user may
 * enter, checked as for the socket): `PORT TOKEN\n`. Made once, by whichever comes first, `editgate hooks
 * install` or a starting server, and kept, so the agent's configuration (which holds a fixed URL and the
 * token as a header) stays right across server restarts. The port is a free one at the time it is made;
 * the token is 32 random bytes in hex.
 *
 * Who may ask: TCP on 127.0.0.1 has no owner check, so a call must carry `Authorization: Bearer TOKEN`
 * (another user cannot read the file or the agent's user settings, which `hooks install` keeps at 0600),
 * its Host must name the loopback address and port (a web page that rebinds a name to 127.0.0.1 sends its
 * own name) and it may not carry an Origin (a browser always sends one with a cross-site POST).
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { hookRunFolder } from '../hooks/hook-wire.js';
import { sameSecret } from '../web/request-guard.js';
import { proofHolds, serverProof } from '../web/server-proof.js';

export interface HookEndpoint {
  port: number;
  token: string;
}

export const LOOPBACK_HOST = '127.0.0.1';

export function hookEndpointPath(stateDir: string): string {
  return join(hookRunFolder(stateDir), 'hook-http');
}

function parseEndpoint(text: string): HookEndpoint | undefined {
  const match = /^(\d{1,5}) ([0-9a-f]{64})\n?$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[1]);
  return port > 0 && port < 65536 ? { port, token: match[2]! } : undefined;
}

/** The endpoint recorded in the state folder, or undefined (none, or not one of editgate's). */
export function readHookEndpoint(stateDir: string): HookEndpoint | undefined {
  try {
    return parseEndpoint(readFileSync(hookEndpointPath(stateDir), 'utf8'));
  } catch {
    return undefined;
  }
}

/** A port no one listens on now, on the loopback address. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, LOOPBACK_HOST, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The endpoint of the state folder, made when there is none. The caller has checked the run folder
 * (hook-server.ts runFolderProblem): the file is written whole, 0600, and a racing maker's file wins.
 */
export async function ensureHookEndpoint(stateDir: string): Promise<HookEndpoint> {
  const found = readHookEndpoint(stateDir);
  if (found) return found;
  const made = { port: await freePort(), token: randomBytes(32).toString('hex') };
  const path = hookEndpointPath(stateDir);
  const temp = `${path}.${process.pid}`;
  writeFileSync(temp, `${made.port} ${made.token}\n`, { mode: 0o600 });
  try {
    // Whole and exclusive: whoever made it first keeps it (an agent may already hold that token).
    linkSync(temp, path);
  } catch {
    // Made by another meanwhile: theirs is read below.
  } finally {
    rmSync(temp, { force: true });
  }
  return readHookEndpoint(stateDir) ?? made;
}

/** The URL an agent posts a hook event to: the agent and the hook's options as path parts. */
export function hookUrl(endpoint: HookEndpoint, agent: string, approve: string, failOpen: boolean): string {
  return `http://${LOOPBACK_HOST}:${endpoint.port}/hook/${agent}/${approve}${failOpen ? '/fail-open' : ''}`;
}

/** The hook arguments (`AGENT --approve MODE [--fail-open]`) a hook URL's path names, or undefined. */
export function hookArgsOfPath(path: string): string[] | undefined {
  const match = /^\/hook\/([a-z-]{1,40})\/(web|agent|policy)(\/fail-open)?$/.exec(path);
  if (!match) return undefined;
  return [match[1]!, '--approve', match[2]!, ...(match[3] ? ['--fail-open'] : [])];
}

export interface EndpointRequest {
  remoteAddress?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** Why an HTTP request may not be answered at all, or undefined: the caller's address, Host and Origin. */
function callerRefusal(request: EndpointRequest, endpoint: HookEndpoint): string | undefined {
  const from = request.remoteAddress ?? '';
  if (from !== LOOPBACK_HOST && from !== `::ffff:${LOOPBACK_HOST}`) return 'only this machine may ask';
  const host = request.headers.host;
  if (host !== `${LOOPBACK_HOST}:${endpoint.port}` && host !== `localhost:${endpoint.port}`)
    return 'the Host header does not name this server';
  if (request.headers.origin !== undefined) return 'a call from a web page is not taken';
  return undefined;
}

/**
 * Why an HTTP request may not ask the server, or undefined: the caller's address, Host, Origin and token
 * (see the top of this file).
 */
export function refusalOf(request: EndpointRequest, endpoint: HookEndpoint): string | undefined {
  const refused = callerRefusal(request, endpoint);
  if (refused) return refused;
  const given = request.headers.authorization;
  if (typeof given !== 'string' || !sameSecret(given, `Bearer ${endpoint.token}`))
    return 'the call does not carry the hook token';
  return undefined;
}

/*
 * Who listens on the port. The port is fixed (it is in the agent's settings), so while no editgate server
 * holds it, any program of any user may: an agent's http hook would then hand it the token and take its
 * answer, an "allow" included. A session's start (cli/commands/hook.ts) asks the listener to prove it is
 * editgate's before the session goes on: it answers a fresh nonce with an HMAC keyed by the token (the review
 * server's proof, web/server-proof.ts), which only a holder of the token can make, and the question carries
 * no token, so a stranger learns nothing from it.
 */

const PROOF_PATH = '/hook/proof/';

/**
 * The server's answer to a proof request (`GET /hook/proof/NONCE`), or undefined when the request is not
 * one. Asked with no token; refused (403) as any call is when it comes from elsewhere or from a web page.
 */
export function proofAnswer(
  request: EndpointRequest & { method?: string | undefined; url?: string | undefined },
  endpoint: HookEndpoint,
): { status: number; text: string } | undefined {
  if (request.method !== 'GET' || !request.url?.startsWith(PROOF_PATH)) return undefined;
  const refused = callerRefusal(request, endpoint);
  if (refused) return { status: 403, text: `editgate hook server: ${refused}\n` };
  const nonce = request.url.slice(PROOF_PATH.length);
  if (!/^[0-9a-f]{64}$/.test(nonce)) return { status: 400, text: 'a proof is asked for 32 bytes in hex\n' };
  return { status: 200, text: serverProof(endpoint.token, 'hook-endpoint', nonce) };
}

export type EndpointHolder =
  | { kind: 'editgate' }
  /** Nothing listens (the agent's http hooks then fail, and block): no stranger holds it. */
  | { kind: 'none' }
  /** A listener that did not prove it is editgate's: why. */
  | { kind: 'stranger'; why: string };

/** How long a listener has to prove itself: an editgate server answers in a few milliseconds. */
const PROOF_WAIT_MS = 5_000;

/** Who listens on the endpoint's port: editgate's server (proved), nothing, or a stranger. */
export function endpointHolder(endpoint: HookEndpoint, waitMs = PROOF_WAIT_MS): Promise<EndpointHolder> {
  const nonce = randomBytes(32).toString('hex');
  return new Promise((resolve) => {
    const asked = httpRequest(
      {
        host: LOOPBACK_HOST,
        port: endpoint.port,
        path: `${PROOF_PATH}${nonce}`,
        headers: { Host: `${LOOPBACK_HOST}:${endpoint.port}` },
        timeout: waitMs,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > 1024) response.destroy(new Error('an answer longer than a proof'));
          else chunks.push(chunk);
        });
        response.on('error', (error) => resolve({ kind: 'stranger', why: error.message }));
        response.on('end', () => {
          const proof = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode === 200 && proofHolds(endpoint.token, proof, 'hook-endpoint', nonce))
            resolve({ kind: 'editgate' });
          else
            resolve({
              kind: 'stranger',
              why: `it answered HTTP ${response.statusCode ?? '?'} without editgate's proof`,
            });
        });
      },
    );
    asked.on('timeout', () => asked.destroy(new Error(`no answer within ${waitMs / 1000} s`)));
    asked.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? { kind: 'none' } : { kind: 'stranger', why: error.message }),
    );
    asked.end();
  });
}
