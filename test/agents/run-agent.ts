import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { REPO } from '../built-cli.js';
import type { ScriptedModel } from './fake-models/server.js';

/** How to run an agent once: its command line, the environment it gets (and nothing else), its folder. */
export interface AgentCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to the agent's standard input, which is then closed (default: nothing). */
  stdin?: string;
  /**
   * More of this machine's 127.0.0.1 ports the agent may reach inside its network namespace, each through a
   * Unix socket that leads to it (forwardToPort): a review page editgate's hooks ask, say.
   */
  forwards?: Array<{ port: number; socketPath: string }>;
}

export interface AgentResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
  timedOut: boolean;
  /** How the run was kept off the network (see isolation()). */
  isolation: string;
}

// Found from the repository's root (not this file's folder), so a bundle of this module (bench/agents.bench.mjs) finds it too.
const IN_NAMESPACE = join(REPO, 'test', 'agents', 'in-namespace.mjs');

let cachedIsolation: 'namespace' | string | undefined;

/**
 * 'namespace' when `unshare -n` works here (root, or a system that lets users make network namespaces) and
 * `ip` is there to bring loopback up: the agent then runs where only 127.0.0.1 exists. Otherwise the reason,
 * and the agent runs with only its own switches for outside traffic turned off.
 * EDITGATE_AGENTS_NO_NAMESPACE=1 chooses the latter (to see what an agent tries to reach).
 */
export function isolation(): 'namespace' | string {
  if (cachedIsolation !== undefined) return cachedIsolation;
  if (process.env.EDITGATE_AGENTS_NO_NAMESPACE === '1') {
    cachedIsolation =
      "no network namespace (EDITGATE_AGENTS_NO_NAMESPACE=1); the agent's own switches for outside traffic are off";
    return cachedIsolation;
  }
  const probe = spawnSync('unshare', ['-n', 'ip', 'link', 'set', 'lo', 'up'], { encoding: 'utf8' });
  cachedIsolation =
    probe.status === 0
      ? 'namespace'
      : `no network namespace (unshare -n ip link set lo up: ${probe.error?.message ?? probe.stderr.trim()}); the agent's own switches for outside traffic are off`;
  return cachedIsolation;
}

/** The environment every agent gets before its own variables: a PATH with this Node first, no color, a dumb terminal. */
export function baseEnv(): Record<string, string> {
  return {
    PATH: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'].join(':'),
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    CI: '1',
  };
}

/**
 * The command line that runs `run` as isolation() allows: inside a network namespace whose 127.0.0.1:PORT
 * is the fake model, or as it is.
 */
export function isolatedCommand(run: AgentCommand, model: ScriptedModel): [string, string[]] {
  return isolation() === 'namespace'
    ? [
        'unshare',
        [
          '-n',
          process.execPath,
          IN_NAMESPACE,
          String(model.port),
          model.socketPath,
          ...(run.forwards ?? []).flatMap((forward) => [String(forward.port), forward.socketPath]),
          '--',
          run.command,
          ...run.args,
        ],
      ]
    : [run.command, run.args];
}

/**
 * Runs the agent to its end (or kills it after `timeoutMs`), in a network namespace whose 127.0.0.1:PORT
 * is the fake model when isolation() allows it. Only `run.env` is passed on: no key, token or setting of the
 * person running the tests reaches the agent.
 */
export function runAgent(run: AgentCommand, model: ScriptedModel, timeoutMs: number): Promise<AgentResult> {
  const how = isolation();
  const [command, args] = isolatedCommand(run, model);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: run.cwd,
      env: run.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdin.end(run.stdin ?? '');
    // The agent's whole process group: its MCP servers and helpers go with it.
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever the agent left running (an MCP server it did not stop) goes too.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Nothing left.
      }
      resolve({
        code,
        signal,
        stdout,
        stderr,
        ms: performance.now() - started,
        timedOut,
        isolation: how === 'namespace' ? 'network namespace with loopback only' : how,
      });
    });
  });
}
