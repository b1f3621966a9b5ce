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
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { hookRunFolder } from '../hooks/hook-wire.js';

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

/**
 * Why an HTTP request may not ask the server, or undefined: the caller's address, Host, Origin and token
 * (see the top of this file).
 */
export function refusalOf(
  request: { remoteAddress?: string | undefined; headers: Record<string, string | string[] | undefined> },
  endpoint: HookEndpoint,
): string | undefined {
  const from = request.remoteAddress ?? '';
  if (from !== LOOPBACK_HOST && from !== `::ffff:${LOOPBACK_HOST}`) return 'only this machine may ask';
  const host = request.headers.host;
  if (host !== `${LOOPBACK_HOST}:${endpoint.port}` && host !== `localhost:${endpoint.port}`)
    return 'the Host header does not name this server';
  if (request.headers.origin !== undefined) return 'a call from a web page is not taken';
  const given = request.headers.authorization;
  const expected = Buffer.from(`Bearer ${endpoint.token}`);
  const got = Buffer.from(typeof given === 'string' ? given : '');
  if (got.length !== expected.length || !timingSafeEqual(got, expected))
    return 'the call does not carry the hook token';
  return undefined;
}
