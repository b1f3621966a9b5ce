/**
 * The hook server's wire (src/cli/hook-server.ts): how an agent's hook call reaches a running editgate
 * without starting Node. The agent runs `hook-entry.sh` (src/cli/hook-entry.sh), which posts the call over
 * the server's Unix socket with curl and prints the answer; OpenCode's plugin posts the same over node:http.
 * Both sides are written without a JSON parser on the shell's side, so the wire is lines and one separator:
 *
 *   request  "editgate-hook-request 1\n" IDENTITY "\n" CWD "\n" ARGC "\n" (ARG "\n") x ARGC, then the event
 *            (the agent's JSON, as it came on standard input). No field holds a line break: the entry falls
 *            back to the Node hook for a folder or an argument with one.
 *   reply    "editgate-hook-reply 1 " EXIT "\n" STDERR RS STDOUT RS   (RS = \x1e, never in STDERR: a shell
 *            splits at the first RS in time linear in STDERR, short, whatever the size of STDOUT, which may
 *            carry a whole file in an updatedInput)
 *            or "editgate-hook-reply 1 other\n": this server is another build of editgate (the entry then
 *            runs the Node hook).
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
/** Ends the standard output and the standard error in a reply. */
export const RECORD_SEPARATOR = '\x1e';
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

/** A build's identity as a socket name takes it: hex digits only. */
export function isHookIdentity(text: string): boolean {
  return /^[0-9a-f]{8,64}$/.test(text);
}

export function encodeHookCall(call: HookCall): string {
  for (const field of [call.identity, call.cwd, ...call.args]) {
    if (field.includes('\n')) throw new Error('a hook call field holds a line break');
  }
  return [REQUEST_MAGIC, call.identity, call.cwd, String(call.args.length), ...call.args, call.event].join(
    '\n',
  );
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
  if (line('first line') !== REQUEST_MAGIC) throw new Error('the hook call does not start with its magic line');
  const identity = line('identity');
  const cwd = line('folder');
  const count = line('argument count');
  if (!/^\d{1,3}$/.test(count)) throw new Error(`the hook call's argument count is not a number: "${count}"`);
  const args: string[] = [];
  for (let index = 0; index < Number(count); index++) args.push(line(`argument ${index + 1}`));
  return { identity, cwd, args, event: body.slice(at) };
}

export function encodeHookReply(reply: HookReply): string {
  const stderr = (reply.stderr ?? '').replaceAll(RECORD_SEPARATOR, '?');
  return `${REPLY_MAGIC} ${reply.exitCode}\n${stderr}${RECORD_SEPARATOR}${reply.stdout}${RECORD_SEPARATOR}`;
}

/** The reply of a server of another build: the caller runs the Node hook instead. */
export const OTHER_BUILD_REPLY = `${REPLY_MAGIC} other\n`;

/** Reads a reply; undefined for another build's server; throws when it is not a whole reply. */
export function decodeHookReply(body: string): HookReply | undefined {
  if (body === OTHER_BUILD_REPLY) return undefined;
  const match = /^editgate-hook-reply 1 (\d{1,3})\n/.exec(body);
  if (!match || !body.endsWith(RECORD_SEPARATOR)) throw new Error("the hook server's answer is not whole");
  const rest = body.slice(match[0].length, -1);
  const split = rest.indexOf(RECORD_SEPARATOR);
  if (split < 0) throw new Error("the hook server's answer is not whole");
  const stderr = rest.slice(0, split);
  return {
    stdout: rest.slice(split + 1),
    ...(stderr ? { stderr } : {}),
    exitCode: Number(match[1]),
  };
}
