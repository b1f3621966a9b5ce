import { spawn } from 'node:child_process';
import type { Proposal } from './proposal.js';

/** What after-change hooks see: the change that was just written. */
export interface WrittenChange {
  tool: string;
  path: string;
  absolutePath: string;
  kind: 'create' | 'modify' | 'delete';
  stats: { added: number; removed: number };
  unifiedDiff: string;
}

// biome-ignore lint/suspicious/noConfusingVoidType: hooks written as plain functions that return nothing must type-check.
export type BeforeChangeVerdict = void | undefined | { deny: string };
export type BeforeChangeHook = (proposal: Proposal) => BeforeChangeVerdict | Promise<BeforeChangeVerdict>;
/** A returned string (say, a linter's complaint) is appended to the message the model reads. */
// biome-ignore lint/suspicious/noConfusingVoidType: as above, an observer that returns nothing is the common case.
export type AfterChangeHook = (outcome: WrittenChange) => void | string | Promise<void | string>;

/**
 * A call that cannot be shown as a diff (editgate proxy's cards: another server's move_file, an unknown
 * tool): the tool, the server, its arguments, and the paths it names when they are known.
 */
export interface CallWithoutDiff {
  tool: string;
  server: string;
  arguments: Record<string, unknown>;
  /** Root-relative paths the call names ('/'-separated); empty when editgate cannot tell. */
  paths: string[];
  absolutePaths: string[];
}

export type BeforeCallHook = (call: CallWithoutDiff) => BeforeChangeVerdict | Promise<BeforeChangeVerdict>;
// biome-ignore lint/suspicious/noConfusingVoidType: as above.
export type AfterCallHook = (call: CallWithoutDiff) => void | string | Promise<void | string>;

export interface Hooks {
  beforeChange?: BeforeChangeHook;
  afterChange?: AfterChangeHook;
  /** Before a call with no diff (a proxy card) is asked about or forwarded; may deny like beforeChange. */
  beforeCall?: BeforeCallHook;
  /** After such a call succeeded. */
  afterCall?: AfterCallHook;
}

/** A hook that is an external command: JSON on stdin, a JSON decision (or text) on stdout. */
export interface CommandHookSpec {
  command: string;
  /** Milliseconds before the command is killed and counted as failed. Default 10 000. */
  timeoutMs?: number;
  /** A failing or silent before-change hook denies unless this is true. */
  failOpen?: boolean;
}

interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError?: string;
}

function runCommand(spec: CommandHookSpec, payload: unknown, cwd: string): Promise<CommandRun> {
  return new Promise((resolve) => {
    // Its own process group (POSIX), so a timeout ends the hook and everything it started: a background
    // child that keeps the output pipe open would otherwise hold the call long past the timeout.
    const group = process.platform !== 'win32';
    const child = spawn(spec.command, { cwd, shell: true, stdio: ['pipe', 'pipe', 'pipe'], detached: group });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const finish = (run: CommandRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(run);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid, group, () => child.kill('SIGKILL'));
      // Whatever still holds the pipes (a child that left the group) no longer delays the answer.
      child.stdout.destroy();
      child.stderr.destroy();
      finish({ code: null, stdout, stderr, timedOut });
    }, spec.timeoutMs ?? 10_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < 1_000_000) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 100_000) stderr += chunk;
    });
    child.on('error', (error) => {
      finish({ code: null, stdout, stderr, timedOut, spawnError: error.message });
    });
    child.on('close', (code) => {
      finish({ code, stdout, stderr, timedOut });
    });
    // A hook that does not read its stdin must not crash us with EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

/** SIGKILL to the hook's whole process group (`fallback`: the process alone, where there are no groups). */
function killTree(pid: number | undefined, group: boolean, fallback: () => void): void {
  if (pid === undefined || !group) {
    fallback();
    return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

function describeFailure(spec: CommandHookSpec, run: CommandRun): string | undefined {
  if (run.spawnError) return `could not be started (${run.spawnError})`;
  if (run.timedOut) return `timed out after ${spec.timeoutMs ?? 10_000} ms`;
  if (run.code !== 0) {
    const said = run.stderr.trim() || run.stdout.trim();
    return `exited with code ${run.code}${said ? `: ${said.slice(0, 500)}` : ''}`;
  }
  return undefined;
}

/** The JSON a command hook receives on stdin before a change. */
export function beforeChangePayload(proposal: Proposal): Record<string, unknown> {
  const first = proposal.files[0]!;
  const { change } = first;
  const content = change.content;
  return {
    event: 'beforeChange',
    tool: proposal.tool,
    path: first.path,
    absolutePath: change.path,
    kind: first.kind,
    stats: first.stats,
    unifiedDiff: first.unifiedDiff,
    // A huge file's new content is not in memory: hooks get the prepared file to read instead.
    content: content?.type === 'text' ? content.text : content?.type === 'delete' ? '' : null,
    ...(content?.type === 'prepared' ? { contentFile: content.prepared.temp } : {}),
    // A change set: every file (the fields above describe the first), so a hook sees each path.
    ...(proposal.files.length > 1
      ? {
          files: proposal.files.map((file) => ({
            path: file.path,
            absolutePath: file.change.path,
            kind: file.kind,
            stats: file.stats,
            unifiedDiff: file.unifiedDiff,
          })),
        }
      : {}),
  };
}

/**
 * A before-change hook run as a command. It allows by printing `{"decision":"allow"}` and denies with
 * `{"decision":"deny","reason":"..."}` (or by exiting non-zero; stderr is the reason). A command that fails,
 * times out or prints nothing denies (fail closed) unless `failOpen` is set.
 */
export function commandBeforeChangeHook(spec: CommandHookSpec, cwd: string): BeforeChangeHook {
  return commandVeto(spec, cwd, beforeChangePayload);
}

/** The JSON a command hook receives for a call with no diff: `kind: 'call'`, and no diff or content. */
export function callPayload(
  event: 'beforeChange' | 'afterChange',
  call: CallWithoutDiff,
): Record<string, unknown> {
  return {
    event,
    kind: 'call',
    tool: call.tool,
    server: call.server,
    arguments: call.arguments,
    paths: call.paths,
    absolutePaths: call.absolutePaths,
  };
}

/** The same before-change command, for a call with no diff: the same answers, the same fail-closed rule. */
export function commandBeforeCallHook(spec: CommandHookSpec, cwd: string): BeforeCallHook {
  return commandVeto(spec, cwd, (call: CallWithoutDiff) => callPayload('beforeChange', call));
}

function commandVeto<T>(
  spec: CommandHookSpec,
  cwd: string,
  payloadOf: (subject: T) => unknown,
): (subject: T) => Promise<BeforeChangeVerdict> {
  return async (subject) => {
    const run = await runCommand(spec, payloadOf(subject), cwd);
    const failure = describeFailure(spec, run);
    if (failure) {
      if (spec.failOpen) return undefined;
      if (run.code !== null && run.code !== 0 && !run.timedOut && run.stderr.trim()) {
        return { deny: run.stderr.trim().slice(0, 2000) };
      }
      return { deny: `before-change hook "${spec.command}" ${failure}` };
    }
    const text = run.stdout.trim();
    if (!text) {
      return spec.failOpen ? undefined : { deny: `before-change hook "${spec.command}" printed no decision` };
    }
    let decision: unknown;
    try {
      decision = JSON.parse(text);
    } catch {
      return spec.failOpen
        ? undefined
        : { deny: `before-change hook "${spec.command}" printed something other than a JSON decision` };
    }
    const record = (decision ?? {}) as { decision?: unknown; reason?: unknown };
    if (record.decision === 'allow') return undefined;
    if (record.decision === 'deny') {
      return { deny: typeof record.reason === 'string' && record.reason ? record.reason : 'denied by hook' };
    }
    return spec.failOpen
      ? undefined
      : { deny: `before-change hook "${spec.command}" gave no "decision" of "allow" or "deny"` };
  };
}

/**
 * An after-change hook run as a command. Whatever it prints (plain text, or JSON with a "message") is
 * appended to the model's message; a failure is reported the same way, since the change is already written.
 */
export function commandAfterChangeHook(spec: CommandHookSpec, cwd: string): AfterChangeHook {
  return commandObserver(spec, cwd, (outcome: WrittenChange) => ({ event: 'afterChange', ...outcome }));
}

/** The same after-change command, for a call with no diff that succeeded. */
export function commandAfterCallHook(spec: CommandHookSpec, cwd: string): AfterCallHook {
  return commandObserver(spec, cwd, (call: CallWithoutDiff) => callPayload('afterChange', call));
}

function commandObserver<T>(
  spec: CommandHookSpec,
  cwd: string,
  payloadOf: (subject: T) => unknown,
): (subject: T) => Promise<string | undefined> {
  return async (subject) => {
    const run = await runCommand(spec, payloadOf(subject), cwd);
    const failure = describeFailure(spec, run);
    const text = run.stdout.trim();
    let message = text;
    if (text.startsWith('{')) {
      try {
        const parsed = JSON.parse(text) as { message?: unknown };
        message = typeof parsed.message === 'string' ? parsed.message : '';
      } catch {
        // Not JSON after all: pass the text on as it is.
      }
    }
    if (failure) return `after-change hook "${spec.command}" ${failure}${message ? `\n${message}` : ''}`;
    return message || undefined;
  };
}

/** Runs several before-change hooks in order; the first denial wins. */
export function combineBeforeChange<T = Proposal>(
  hooks: Array<(subject: T) => BeforeChangeVerdict | Promise<BeforeChangeVerdict>>,
): ((subject: T) => Promise<BeforeChangeVerdict>) | undefined {
  if (hooks.length === 0) return undefined;
  return async (subject) => {
    for (const hook of hooks) {
      const verdict = await hook(subject);
      if (verdict && typeof verdict === 'object' && 'deny' in verdict) return verdict;
    }
    return undefined;
  };
}

/** Runs several after-change hooks in order and joins what they said. */
export function combineAfterChange<T = WrittenChange>(
  // biome-ignore lint/suspicious/noConfusingVoidType: as AfterChangeHook.
  hooks: Array<(subject: T) => void | string | Promise<void | string>>,
): ((subject: T) => Promise<string | undefined>) | undefined {
  if (hooks.length === 0) return undefined;
  return async (subject) => {
    const said: string[] = [];
    for (const hook of hooks) {
      const text = await hook(subject);
      if (typeof text === 'string' && text.trim()) said.push(text.trim());
    }
    return said.length > 0 ? said.join('\n') : undefined;
  };
}
