/**
 * The hook server's wire (src/cli/hook-server.ts): how an agent's hook call reaches a running editgate
 * without starting Node. The agent runs `hook-entry.sh` (src/cli/hook-entry.sh), which posts the call over
 * the server's Unix socket with curl and prints the answer; OpenCode's plugin posts the same over node:http.
 * Both sides are written without a JSON parser or any program but curl on the shell's side, so the wire is
 * lines, read with the shell's own pattern removal:
 *
 *   request  "editgate-hook-request 1\n" IDENTITY "\n" CWD "\n" ARGC "\n" (ARG "\n") x ARGC "&" EVENT
 *            (curl joins its two --data-binary parts with "&"; EVENT is the agent's JSON as it came on
 *            standard input, which curl reads itself). No field before EVENT holds a line break: the entry
 *            runs the Node hook for a folder or an argument with one.
 *   reply    "editgate-hook-reply 1 " EXIT "\n" STDERR "\n" STDOUT "."   STDERR on one line, escaped for
 *            printf's %b (a backslash doubled, a line break as \n); STDOUT as the hook writes it (a whole
 *            file in an updatedInput, maybe); the final "." says the reply is whole and keeps the shell's
 *            command substitution from taking STDOUT's last line break. Every split the shell makes is at
 *            one of the first two line breaks, so it costs time in STDERR's length, never STDOUT's.
 *            Or "editgate-hook-reply 1 other\n": this server is another build of editgate.
 *
 * The server also writes its process id beside the socket (hook-IDENTITY.pid): the entry checks that the
 * process is alive (`kill -0`) before curl takes standard input, so a socket left by a server that was
 * killed sends the call to the Node hook, event and all.
 *
 * The socket's place is one rule, kept here and in hook-entry.sh (a test holds them together):
 * STATE/run/hook-IDENTITY.sock, STATE being the user's state folder (tools/state-dir.ts's defaultStateDir:
 * EDITGATE_STATE_DIR, else HOME/.local/state/editgate) and IDENTITY the build's (a hash of the hook bundle,
 * written at build time to dist/cli/hook-identity), so one build's server never answers another's hooks.
 */
import { join } from 'node:path';
import type { HookReply } from './adapter.js';

export const REQUEST_MAGIC = 'editgate-hook-request 1';
export const REPLY_MAGIC = 'editgate-hook-reply 1';
/** Ends a whole reply. */
const REPLY_END = '.';
/** Unix socket paths longer than this do not fit `sun_path` everywhere (104 bytes on macOS, with its NUL). */
export const MAX_SOCKET_PATH = 100;

/** One hook call as the server gets it. */
export interface HookCall {
  identity: string;
  /** The folder the hook was started in (the agent's). */
  cwd: string;
  /** The hook's arguments after `hook`: AGENT and its options. */
  args: string[];
  /** The agent's event, as it came on standard input. */
  event: string;
}

/** The folder of the hook server's socket in a state folder. */
export function hookRunFolder(stateDir: string): string {
  return join(stateDir, 'run');
}

export function hookSocketPath(stateDir: string, identity: string): string {
  return join(hookRunFolder(stateDir), `hook-${identity}.sock`);
}

/** The file beside the socket that holds the server's process id. */
export function hookPidPath(socketPath: string): string {
  return socketPath.replace(/\.sock$/, '.pid');
}

/**
 * Where a server says it holds the loopback endpoint's port (the port, while it listens there): the shell
 * entry run by bash posts to that port only then, never to a program that took the port while no editgate
 * server held it.
 */
export function hookListeningPath(socketPath: string): string {
  return socketPath.replace(/\.sock$/, '.http');
}

/** A build's identity as a socket name takes it: hex digits only. */
export function isHookIdentity(text: string): boolean {
  return /^[0-9a-f]{8,64}$/.test(text);
}

export function encodeHookCall(call: HookCall): string {
  for (const field of [call.identity, call.cwd, ...call.args]) {
    if (field.includes('\n')) throw new Error('a hook call field holds a line break');
  }
  const head = [REQUEST_MAGIC, call.identity, call.cwd, String(call.args.length), ...call.args].join('\n');
  return `${head}\n&${call.event}`;
}

/** Reads a request; throws an Error saying what is wrong with it. */
export function decodeHookCall(body: string): HookCall {
  const lines: string[] = [];
  let at = 0;
  const line = (what: string) => {
    const end = body.indexOf('\n', at);
    if (end < 0) throw new Error(`the hook call ends before its ${what}`);
    const text = body.slice(at, end);
    at = end + 1;
    lines.push(text);
    return text;
  };
  if (line('first line') !== REQUEST_MAGIC)
    throw new Error('the hook call does not start with its magic line');
  const identity = line('identity');
  const cwd = line('folder');
  const count = line('argument count');
  if (!/^\d{1,3}$/.test(count)) throw new Error(`the hook call's argument count is not a number: "${count}"`);
  const args: string[] = [];
  for (let index = 0; index < Number(count); index++) args.push(line(`argument ${index + 1}`));
  if (body[at] !== '&') throw new Error('the hook call has no "&" before its event');
  return { identity, cwd, args, event: body.slice(at + 1) };
}

/** Standard error on one line for printf's %b: backslashes doubled, line breaks as \n. */
function escapeForPrintf(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

function unescapePrintf(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, what: string) => (what === 'n' ? '\n' : '\\'));
}

export function encodeHookReply(reply: HookReply): string {
  return `${REPLY_MAGIC} ${reply.exitCode}\n${escapeForPrintf(reply.stderr ?? '')}\n${reply.stdout}${REPLY_END}`;
}

/** The reply of a server of another build: the caller runs the Node hook instead. */
export const OTHER_BUILD_REPLY = `${REPLY_MAGIC} other\n`;

/** Reads a reply; undefined for another build's server; throws when it is not a whole reply. */
export function decodeHookReply(body: string): HookReply | undefined {
  if (body === OTHER_BUILD_REPLY) return undefined;
  const match = /^editgate-hook-reply 1 (\d{1,3})\n/.exec(body);
  if (!match || !body.endsWith(REPLY_END)) throw new Error("the hook server's answer is not whole");
  const rest = body.slice(match[0].length, -REPLY_END.length);
  const split = rest.indexOf('\n');
  if (split < 0) throw new Error("the hook server's answer is not whole");
  const stderr = unescapePrintf(rest.slice(0, split));
  return {
    stdout: rest.slice(split + 1),
    ...(stderr ? { stderr } : {}),
    exitCode: Number(match[1]),
  };
}
