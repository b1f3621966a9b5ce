/**
 * The hook server: one running editgate per user and build that answers the agents' hook calls, so a call
 * costs a curl, not a Node start (issue #29 item 5). The agent runs `hook-entry.sh` (beside this file in
 * dist/cli/), which posts the call on the server's Unix socket; when no server answers, the entry runs the
 * Node hook, which answers and then starts the server for the next call (startHookServer). OpenCode's
 * plugin posts the same over node:http. The wire and the socket's place: src/hooks/hook-wire.ts.
 *
 * Who may ask: the socket (mode 0600) lives in STATE/run, a folder of this user's that no one else can
 * write or enter (0700, checked with the state folder above it as for the review page's discovery files,
 * web/discovery.ts folderProblem), so only this user (and root) can connect; nothing listens on TCP. A
 * socket left by a server that was killed is replaced; a live one of this build is left to answer.
 *
 * Each call is answered as the Node hook answers it (cli/commands/hook.ts answerHookCall: the config, trust
 * and policy read anew for the call, the pre->post record in the state folder, the deadline, the audit
 * line). The server ends after an idle time (EDITGATE_HOOK_SERVER_IDLE_SECONDS, default 15 minutes), when its
 * socket file is removed or replaced (`editgate hooks uninstall`, a state folder removed), on SIGTERM, or
 * when asked (POST /stop).
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { HookReply } from '../hooks/adapter.js';
import {
  decodeHookCall,
  encodeHookReply,
  type HookCall,
  hookListeningPath,
  hookPidPath,
  hookRunFolder,
  hookSocketPath,
  isHookIdentity,
  MAX_SOCKET_PATH,
  OTHER_BUILD_REPLY,
} from '../hooks/hook-wire.js';
import { folderProblem } from '../web/discovery.js';
import {
  ensureHookEndpoint,
  hookArgsOfPath,
  LOOPBACK_HOST,
  proofAnswer,
  refusalOf,
} from './hook-endpoint.js';

/** The build's identity (dist/cli/hook-identity, written by the build); undefined outside a build. */
export function buildIdentity(): string | undefined {
  try {
    const text = readFileSync(new URL('./hook-identity', import.meta.url), 'utf8').trim();
    return isHookIdentity(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

const DEFAULT_IDLE_MS = 15 * 60 * 1000;
/** The largest call taken (an event carries a whole file for a Write): more is refused. */
const MAX_CALL_BYTES = 64 * 1024 * 1024;

export function idleMsFromEnv(env: Record<string, string | undefined> = process.env): number {
  const seconds = Number(env.EDITGATE_HOOK_SERVER_IDLE_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_IDLE_MS;
}

export interface HookServerOptions {
  stateDir: string;
  identity: string;
  answer(call: HookCall): Promise<HookReply>;
  /** Ends after this long without a call (default: idleMsFromEnv()). */
  idleMs?: number;
  /** How often the socket file is looked at (removed or replaced: the server ends). Default 2 s. */
  watchMs?: number;
  /**
   * Run once before the socket is there (the callers use the Node hook meanwhile): a first call through
   * the whole path, so the server's first real call does not pay for loading and compiling it.
   */
  warmUp?: () => Promise<void>;
  /**
   * Also listen on the loopback endpoint (hook-endpoint.ts: STATE/run/hook-http, made when missing), for
   * agents that post their events themselves (Claude Code's http hooks). Default true.
   */
  http?: boolean;
  /** Said when the endpoint cannot be listened on (the socket still serves). */
  warn?: (line: string) => void;
}

export interface RunningHookServer {
  socketPath: string;
  /** Calls answered so far. */
  served(): number;
  /** The loopback port it listens on as well, if it does. */
  httpPort?: number;
  /** Ends it (its socket file removed if still its own); resolves when it has. */
  close(): Promise<void>;
  /** Resolves when it has ended, for whatever reason. */
  ended: Promise<void>;
}

/** Why the run folder may not hold the socket, or undefined: made here (0700) if missing. */
export async function runFolderProblem(stateDir: string): Promise<string | undefined> {
  const folder = hookRunFolder(stateDir);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    return `${folder} cannot be made (${(error as Error).message})`;
  }
  return folderProblem(folder);
}

/** Whether something answers on the socket (a live server), or nothing does (no file, or one left behind). */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const asked = request({ socketPath, path: '/status', method: 'GET', timeout: 2000 }, (response) => {
      response.resume();
      resolve(true);
    });
    asked.on('timeout', () => asked.destroy(new Error('timeout')));
    asked.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'),
    );
    asked.end();
  });
}

function inode(path: string): bigint | undefined {
  try {
    return statSync(path, { bigint: true }).ino;
  } catch {
    return undefined;
  }
}

/**
 * Starts a hook server on STATE/run/hook-IDENTITY.sock. Returns why not when the folder cannot be trusted or
 * a live server of this build already answers there.
 */
export async function serveHooks(
  options: HookServerOptions,
): Promise<RunningHookServer | { refused: string }> {
  const { stateDir, identity } = options;
  if (!isHookIdentity(identity)) return { refused: `"${identity}" is not a build identity` };
  const problem = await runFolderProblem(stateDir);
  if (problem) return { refused: `the hook server's folder cannot be trusted: ${problem}` };
  const folder = hookRunFolder(stateDir);
  chmodSync(folder, 0o700);
  const socketPath = hookSocketPath(stateDir, identity);
  const temp = join(folder, `.${process.pid}.sock`);
  if (socketPath.length > MAX_SOCKET_PATH || temp.length > MAX_SOCKET_PATH)
    return { refused: `the socket path ${socketPath} is too long for a Unix socket` };
  if (await answers(socketPath)) return { refused: `a hook server already answers on ${socketPath}` };
  await options.warmUp?.().catch(() => undefined);

  let served = 0;
  let inFlight = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let ending: Promise<void> | undefined;
  let endedResolve!: () => void;
  const ended = new Promise<void>((resolve) => {
    endedResolve = resolve;
  });
  const idleMs = options.idleMs ?? idleMsFromEnv();
  const startedAt = new Date().toISOString();

  /**
   * The agent sessions open (Claude Code's SessionStart, until its SessionEnd), by id, with when they began.
   * An agent whose edit hooks post to the loopback endpoint runs no command that would start a server
   * again, so the server does not end idle while one is open (at most OPEN_SESSION_MS: a session whose end
   * never came, the agent killed, does not keep it forever).
   */
  const openSessions = new Map<string, number>();
  const noteSession = (event: string) => {
    if (!event.includes('"SessionStart"') && !event.includes('"SessionEnd"')) return;
    const { hook_event_name: name, session_id: id } = parsedEvent(event);
    if (typeof id !== 'string') return;
    if (name === 'SessionStart') openSessions.set(id, Date.now());
    else if (name === 'SessionEnd') openSessions.delete(id);
  };
  const endIfIdle = () => {
    for (const [id, since] of openSessions) if (Date.now() - since > OPEN_SESSION_MS) openSessions.delete(id);
    if (openSessions.size > 0) idleTimer = setTimeout(endIfIdle, idleMs).unref();
    else void end();
  };
  /** A call in progress keeps the server from ending idle. */
  const track = (res: ServerResponse) => {
    inFlight++;
    clearTimeout(idleTimer);
    res.on('close', () => {
      inFlight--;
      if (inFlight === 0 && !ending) idleTimer = setTimeout(endIfIdle, idleMs).unref();
    });
  };

  const server = createServer((req, res) => {
    track(res);
    if (req.method === 'GET' && req.url === '/status') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ pid: process.pid, identity, startedAt, served }));
      return;
    }
    if (req.method === 'POST' && req.url === '/stop') {
      res.end('stopping\n', () => void end());
      return;
    }
    if (req.method !== 'POST' || req.url !== '/hook') {
      res.statusCode = 404;
      res.end('not found\n');
      return;
    }
    readBody(req, res, answerWire);
  });

  /** A call in the hook wire (hook-wire.ts), from the shell entry over the socket or over bash's /dev/tcp. */
  const answerWire = (body: string, res: ServerResponse) => {
    let call: HookCall;
    try {
      call = decodeHookCall(body);
    } catch (error) {
      // Not a hook call: the entry refuses the tool call (fail closed), never answers it.
      res.statusCode = 400;
      res.end(`${(error as Error).message}\n`);
      return;
    }
    if (call.identity !== identity) {
      res.end(OTHER_BUILD_REPLY);
      return;
    }
    noteSession(call.event);
    options.answer(call).then(
      (reply) => {
        served++;
        res.end(encodeHookReply(reply));
      },
      (error: unknown) => {
        res.statusCode = 500;
        res.end(`${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  };

  // The loopback endpoint: the agent posts its event as it is; the path names the hook's options.
  const httpServer = createServer((req, res) => {
    track(res);
    // A session's start and each prompt ask who holds the port (hook-endpoint.ts endpointHolder), with no token.
    const asking = { remoteAddress: req.socket.remoteAddress, headers: req.headers };
    const proof = proofAnswer({ ...asking, method: req.method, url: req.url }, endpoint!);
    if (proof) {
      res.statusCode = proof.status;
      res.end(proof.text);
      return;
    }
    const refused = refusalOf(asking, endpoint!);
    if (refused) {
      refuseOnceRead(req, res, 403, `editgate hook server: ${refused}\n`);
      return;
    }
    // The shell entry run by bash: the hook wire, as on the socket.
    if (req.method === 'POST' && req.url === '/wire') {
      readBody(req, res, answerWire);
      return;
    }
    const args = req.method === 'POST' ? hookArgsOfPath(req.url ?? '') : undefined;
    if (!args) {
      refuseOnceRead(req, res, 404, 'not found\n');
      return;
    }
    readBody(req, res, (event) => {
      noteSession(event);
      options.answer({ identity, cwd: eventCwd(event) ?? stateDir, args: ['hook', ...args], event }).then(
        (reply) => {
          served++;
          answerHttp(res, reply);
        },
        (error: unknown) => {
          res.statusCode = 500;
          res.end(`${error instanceof Error ? error.message : String(error)}\n`);
        },
      );
    });
  });
  const endpoint =
    options.http === false ? undefined : await ensureHookEndpoint(stateDir).catch(() => undefined);
  // Once the socket and pid file are named (the run folder checked), and while the port is this server's:
  // for the bash entry, which posts to the port only then (hook-wire.ts hookListeningPath).
  const listeningPath = hookListeningPath(socketPath);
  let named = false;
  const markListening = () => {
    if (!named || httpPort === undefined || ending) return;
    writeFileSync(`${listeningPath}.${process.pid}`, `${httpPort}\n`, { mode: 0o600 });
    renameSync(`${listeningPath}.${process.pid}`, listeningPath);
  };
  let httpPort: number | undefined;
  let listening: Promise<void> | undefined;
  /** Listens on the endpoint's port; a port still held (another build's server, ending when idle) is tried again. */
  const listenHttp = (warn: boolean) =>
    (listening ??= new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(endpoint!.port, LOOPBACK_HOST, () => {
        httpServer.off('error', reject);
        resolve();
      });
    }).then(
      () => {
        httpPort = endpoint!.port;
        markListening();
      },
      (error: unknown) => {
        listening = undefined;
        if (warn)
          options.warn?.(
            `editgate hook --serve: ${LOOPBACK_HOST}:${endpoint!.port} cannot be listened on (${(error as Error).message}); Claude Code's http hooks are refused until it can (tried again every few seconds). The socket serves meanwhile.`,
          );
      },
    ));
  if (endpoint) await listenHttp(true);

  await new Promise<void>((resolve, reject) => {
    rmSync(temp, { force: true });
    server.once('error', reject);
    server.listen(temp, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(temp, 0o600);
  // Whole or not at all: a client never sees a socket that is not yet listening; a server that raced this
  // one to the same name is left without a name, sees it at its next look and ends.
  renameSync(temp, socketPath);
  const ours = inode(socketPath);
  // For the entry's `kill -0` (a socket whose process is gone is not asked): written whole.
  const pidPath = hookPidPath(socketPath);
  writeFileSync(`${pidPath}.${process.pid}`, `${process.pid}\n`, { mode: 0o600 });
  renameSync(`${pidPath}.${process.pid}`, pidPath);
  // A server killed before it could clean up left its word behind: this one's is its own.
  rmSync(listeningPath, { force: true });
  named = true;
  markListening();
  idleTimer = setTimeout(endIfIdle, idleMs).unref();
  const watch = setInterval(() => {
    if (inode(socketPath) !== ours) void end();
    else if (endpoint && httpPort === undefined && !ending) void listenHttp(false);
  }, options.watchMs ?? 2000);
  watch.unref();

  function end(): Promise<void> {
    ending ??= (async () => {
      clearInterval(watch);
      clearTimeout(idleTimer);
      if (ours !== undefined && inode(socketPath) === ours) {
        rmSync(socketPath, { force: true });
        rmSync(pidPath, { force: true });
        rmSync(listeningPath, { force: true });
      }
      await Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        httpServer.listening ? new Promise<void>((resolve) => httpServer.close(() => resolve())) : undefined,
      ]);
      endedResolve();
    })();
    return ending;
  }
  // The listener keeps the process alive until the server ends.
  return {
    socketPath,
    served: () => served,
    ...(httpPort === undefined ? {} : { httpPort }),
    close: end,
    ended,
  };
}

/** The request's body, at most MAX_CALL_BYTES (more: 413 and nothing called). */
function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  then: (body: string, res: ServerResponse) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_CALL_BYTES) {
      res.statusCode = 413;
      res.end('the hook call is too large\n');
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (!res.writableEnded) then(Buffer.concat(chunks).toString('utf8'), res);
  });
}

/**
 * Refuses a call once its body is read (up to the size a call may have). A server that answers and closes
 * while the caller is still sending resets the connection: the caller's write fails and the answer, saying why
 * (a wrong token, a wrong path), is lost to a refusal that only says the server stopped taking the call.
 */
function refuseOnceRead(req: IncomingMessage, res: ServerResponse, status: number, text: string): void {
  readBody(req, res, () => {
    res.statusCode = status;
    res.end(text);
  });
}

/** How long an agent session keeps the server from ending idle, at most. */
const OPEN_SESSION_MS = 24 * 60 * 60 * 1000;

function parsedEvent(event: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(event);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The agent's folder as its event names it (Claude Code's `cwd`). */
function eventCwd(event: string): string | undefined {
  const { cwd } = parsedEvent(event);
  return typeof cwd === 'string' && cwd.startsWith('/') ? cwd : undefined;
}

/**
 * A hook's reply as an http hook's answer: exit code 0 is 200 with standard output (`{}` for none: an
 * answer that says nothing); any other (a command hook's "blocked", exit code 2) is 500 with standard error,
 * which the agent counts as the hook failing: with `onFailure: "block"` the tool call is blocked.
 */
function answerHttp(res: ServerResponse, reply: HookReply): void {
  if (reply.exitCode === 0) {
    res.setHeader('Content-Type', 'application/json');
    res.end(reply.stdout.trim() === '' ? '{}' : reply.stdout);
    return;
  }
  res.statusCode = 500;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(reply.stderr ?? 'editgate refused this call.\n');
}

export interface RunningServerInfo {
  socketPath: string;
  identity: string;
  pid: number;
  startedAt: string;
  served: number;
}

function askServer(socketPath: string, method: string, path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const asked = request({ socketPath, path, method, timeout: 2000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', () => resolve(undefined));
    });
    asked.on('timeout', () => asked.destroy(new Error('timeout')));
    asked.on('error', () => resolve(undefined));
    asked.end();
  });
}

/** The hook servers answering in a state folder (any build), for `editgate hooks status`. */
export async function runningHookServers(stateDir: string): Promise<RunningServerInfo[]> {
  const folder = hookRunFolder(stateDir);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => /^hook-[0-9a-f]+\.sock$/.test(name));
  } catch {
    return [];
  }
  if (await folderProblem(folder)) return [];
  const found: RunningServerInfo[] = [];
  for (const name of names) {
    const socketPath = join(folder, name);
    const text = await askServer(socketPath, 'GET', '/status');
    if (text === undefined) continue;
    try {
      const info = JSON.parse(text) as Omit<RunningServerInfo, 'socketPath'>;
      found.push({ socketPath, ...info });
    } catch {
      // Not a hook server's answer: not listed.
    }
  }
  return found;
}

/** Stops every hook server of the state folder; resolves to how many were asked to. */
export async function stopHookServers(stateDir: string): Promise<number> {
  const running = await runningHookServers(stateDir);
  for (const server of running) await askServer(server.socketPath, 'POST', '/stop');
  return running.length;
}

/** How long a start in progress keeps others from starting another server (it takes a second or two). */
const STARTING_MS = 20_000;

/**
 * Starts the hook server in the background for the next call (the Node hook has answered this one), unless
 * one is being started. `command` runs it (`NODE MAIN hook --serve`). Says on `warn` when the folder cannot
 * be used; never throws.
 */
export async function startHookServer(
  stateDir: string,
  identity: string,
  command: string[],
  warn: (line: string) => void,
): Promise<void> {
  try {
    const problem = await runFolderProblem(stateDir);
    if (problem) {
      warn(
        `editgate: the hook server is not started (its folder cannot be trusted: ${problem}); each hook call starts Node instead.`,
      );
      return;
    }
    const marker = `${hookSocketPath(stateDir, identity)}.starting`;
    try {
      closeSync(openSync(marker, 'wx', 0o600));
    } catch {
      const since = Date.now() - (lstatSync(marker, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if (since < STARTING_MS) return;
      closeSync(openSync(marker, 'w', 0o600));
    }
    const child = spawn(command[0]!, command.slice(1), {
      detached: true,
      stdio: 'ignore',
      cwd: stateDir,
      env: { ...process.env, EDITGATE_HOOK_SERVER: undefined },
    });
    child.on('error', () => rmSync(marker, { force: true }));
    child.unref();
  } catch (error) {
    warn(`editgate: the hook server could not be started (${(error as Error).message}).`);
  }
}

/** Removes the "being started" marker (the server is listening, or gave up). */
export function startFinished(stateDir: string, identity: string): void {
  rmSync(`${hookSocketPath(stateDir, identity)}.starting`, { force: true });
}
