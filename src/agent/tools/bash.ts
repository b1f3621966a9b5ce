import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isEditgateError } from '../../core/errors.js';
import { type Decision, denialReason } from '../../gate/approval.js';
import { type AgentTool, failed, numberInput, textInput } from './agent-tool.js';
import type { CommandPolicy } from './command-policy.js';
import { changeKind, type FileChange, type FileChangeTracker } from './file-changes.js';

export interface CommandRequest {
  command: string;
  /** Why the model runs it, in its words (shown on the card). */
  description?: string;
}

export interface BashToolOptions {
  root: string;
  policy: CommandPolicy;
  /** Asks the person; only called when policy says ask. */
  ask: (request: CommandRequest) => Promise<Decision>;
  /** Every command approved without asking (--yes). */
  yes?: boolean;
  tracker: FileChangeTracker;
  /** The files a command changed inside the root: shown as diffs and recorded for /undo. */
  onChanges: (changes: FileChange[], command: string) => Promise<void>;
  /** Default 2 minutes. */
  defaultTimeoutMs?: number;
}

const MAX_TIMEOUT_MS = 10 * 60_000;
/** The model gets the start and the end of a long output. */
const HEAD_CHARS = 16_000;
const TAIL_CHARS = 16_000;
/** Time between SIGTERM and SIGKILL for a group that does not stop. */
const KILL_GRACE_MS = 2000;

/** Process groups still running, ended if editgate itself exits. */
const running = new Set<number>();
let exitHook = false;

export function endRunningCommands(): void {
  for (const pid of running) killGroup(pid, 'SIGKILL');
  running.clear();
}

export function bashTool(options: BashToolOptions): AgentTool {
  return {
    name: 'bash',
    description: [
      'Run a shell command (bash -c) in the workspace root and get its exit code and output (stdout and stderr together).',
      'The person is asked before every command unless a policy rule allows it. Prefer the file tools for reading and editing files;',
      'files the command changes are shown to the person as diffs. Commands are ended after timeout_ms (default 120000, at most 600000).',
      'Do not start servers or watchers that never exit; there is no standard input.',
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line.' },
        description: { type: 'string', description: 'What it does and why, in a few words, for the person.' },
        timeout_ms: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_MS },
      },
      required: ['command'],
      additionalProperties: false,
    },
    changes: true,
    target: (input) => textInput(input, 'command') ?? '',
    async run(input, context) {
      const command = textInput(input, 'command');
      if (!command?.trim()) return failed('INVALID_INPUT', 'bash needs a "command" to run.');
      const verdict = await options.policy.evaluate(command);
      if (verdict.action === 'deny') {
        return failed(
          'DENIED_POLICY',
          `bash failed (DENIED_POLICY): policy does not allow this command (rule: ${verdict.rule} → deny). Do not retry it; tell the user if it is needed.`,
        );
      }
      if (verdict.action === 'ask' && !options.yes) {
        const description = textInput(input, 'description');
        let decision: Decision;
        try {
          decision = await options.ask({ command, ...(description ? { description } : {}) });
        } catch (error) {
          // No one could be asked (chat -p): no one said no, so not DENIED_USER; the message says how to allow it.
          if (isEditgateError(error, 'DENIED_NO_APPROVER'))
            return failed('DENIED_NO_APPROVER', `bash failed (DENIED_NO_APPROVER): ${error.message}`);
          throw error;
        }
        const reason = denialReason(decision);
        if (reason !== null) {
          return failed(
            'DENIED_USER',
            reason
              ? `bash failed (DENIED_USER): the user did not run this command: ${reason}`
              : 'bash failed (DENIED_USER): the user did not run this command. Do not retry it as is; ask the user what they want instead.',
          );
        }
      }
      if (context.signal.aborted)
        return failed('CANCELLED', 'bash failed (CANCELLED): the user interrupted before the command ran.');
      const timeoutMs =
        numberInput(input, 'timeout_ms', options.defaultTimeoutMs ?? 120_000, MAX_TIMEOUT_MS) || 120_000;
      const before = await options.tracker.capture();
      const run = await runCommand(command, options.root, timeoutMs, context.signal);
      const changes = await options.tracker.changesSince(before);
      if (changes.length > 0) await options.onChanges(changes, command);
      return describeRun(run, changes, timeoutMs);
    },
  };
}

interface CommandRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** Characters left out of the middle of a long output. */
  omitted: number;
  ms: number;
  timedOut: boolean;
  interrupted: boolean;
  spawnError?: string;
}

function shell(): string {
  return existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

function runCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<CommandRun> {
  const start = performance.now();
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(shell(), ['-c', command], {
        cwd,
        // Its own process group, so an interrupt or a timeout ends everything it started.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', EDITGATE_CHAT: '1' },
      });
    } catch (error) {
      resolve(spawnFailure(error, start));
      return;
    }
    const pid = child.pid;
    let head = '';
    let tail = '';
    let omitted = 0;
    let timedOut = false;
    let interrupted = false;
    const collect = (chunk: string) => {
      if (head.length < HEAD_CHARS) {
        const room = HEAD_CHARS - head.length;
        head += chunk.slice(0, room);
        chunk = chunk.slice(room);
      }
      if (chunk === '') return;
      tail += chunk;
      if (tail.length > TAIL_CHARS) {
        omitted += tail.length - TAIL_CHARS;
        tail = tail.slice(-TAIL_CHARS);
      }
    };
    child.stdout?.setEncoding('utf8').on('data', collect);
    child.stderr?.setEncoding('utf8').on('data', collect);
    let killTimer: NodeJS.Timeout | undefined;
    const end = () => {
      if (pid === undefined) return;
      killGroup(pid, 'SIGTERM');
      killTimer ??= setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, timeoutMs);
    const onAbort = () => {
      interrupted = true;
      end();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (pid !== undefined) {
      running.add(pid);
      if (!exitHook) {
        exitHook = true;
        process.on('exit', endRunningCommands);
      }
    }
    child.on('error', (error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(spawnFailure(error, start));
    });
    child.on('close', (code, closeSignal) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (pid !== undefined) {
        // Whatever the shell left behind in its group goes too.
        killGroup(pid, 'SIGKILL');
        running.delete(pid);
      }
      if (killTimer) clearTimeout(killTimer);
      resolve({
        code,
        signal: closeSignal,
        output: omitted > 0 ? `${head}\n… (${omitted} characters left out) …\n${tail}` : head + tail,
        omitted,
        ms: performance.now() - start,
        timedOut,
        interrupted,
      });
    });
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function spawnFailure(error: unknown, start: number): CommandRun {
  return {
    code: null,
    signal: null,
    output: '',
    omitted: 0,
    ms: performance.now() - start,
    timedOut: false,
    interrupted: false,
    spawnError: error instanceof Error ? error.message : String(error),
  };
}

function describeRun(run: CommandRun, changes: FileChange[], timeoutMs: number) {
  const seconds = `${(run.ms / 1000).toFixed(1)} s`;
  if (run.spawnError)
    return failed('IO', `bash failed (IO): the command could not be started: ${run.spawnError}`);
  const status = run.interrupted
    ? `Interrupted by the user after ${seconds}; the command and everything it started were ended.`
    : run.timedOut
      ? `Timed out after ${timeoutMs} ms; the command and everything it started were ended.`
      : run.code === null
        ? `Ended by signal ${run.signal} after ${seconds}.`
        : `Exit code ${run.code} (${seconds}).`;
  const files =
    changes.length > 0
      ? `\nFiles the command changed: ${changes.map((change) => `${change.relative} (${changeKind(change)})`).join(', ')}. Read them again before editing them.`
      : '';
  const output = run.output.trimEnd();
  const message = `${status}${output ? `\n${output}` : '\n(no output)'}${files}`;
  const summary = run.interrupted
    ? 'interrupted'
    : run.timedOut
      ? 'timed out'
      : `exit ${run.code ?? run.signal}${changes.length ? ` · ${changes.length} ${changes.length === 1 ? 'file' : 'files'} changed` : ''}`;
  const ok = !run.interrupted && !run.timedOut && run.code === 0;
  return {
    ok,
    message,
    summary,
    output,
    ...(ok ? {} : { code: run.interrupted ? 'CANCELLED' : run.timedOut ? 'TIMEOUT' : 'EXIT_CODE' }),
  };
}
