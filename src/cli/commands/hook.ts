// `editgate hook <agent>`: what an agent's hook configuration runs for each tool call (editgate hooks install
// writes it, behind the shell entry hook-entry.sh where there is one). Reads the agent's event (JSON) on
// standard input and answers on standard output with the exit code the agent reads (src/hooks/runner.ts).
// The agent starts it per call, so it loads only what it uses; the build bundles it with the rest of what it
// loads (scripts/bundle-mcp.mjs) and main.ts runs that file. `editgate hook --serve` is the hook server
// (cli/hook-server.ts), which answers the same calls without a Node start each; answerHookCall is the one
// way both answer a call.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Approver } from '../../gate/approval.js';
import type { HookAdapter, HookReply } from '../../hooks/adapter.js';
import { hookAgent, hookAgentNames } from '../../hooks/agents.js';
import type { HookCall } from '../../hooks/hook-wire.js';
import { APPROVE_MODES, type HookApproveMode, runHook } from '../../hooks/runner.js';
import { CONFIG_FILE, loadConfig } from '../../tools/config.js';
import { trustLoaded } from '../../tools/config-trust.js';
import { endpointHolder, LOOPBACK_HOST, readHookEndpoint } from '../hook-endpoint.js';
import {
  buildIdentity,
  runningHookServers,
  serveHooks,
  startFinished,
  startHookServer,
} from '../hook-server.js';
import { defaultStateDir } from '../state-dir.js';
import { parseCommandLine, UsageError } from '../usage.js';

export const HELP = `Usage: editgate hook AGENT [--approve MODE] [--root DIR] [--config FILE] [--fail-open]
                    [--check-endpoint]
       editgate hook --serve

Run by AGENT (${hookAgentNames().join(', ')}) before and after each of its own edit tools, with the
hook event as JSON on standard input; answers in the agent's own protocol. You do not run it yourself:
editgate hooks install AGENT writes it into the agent's configuration.

  --approve MODE   who decides what no policy rule decides:
                     agent   the agent asks you in its own prompt, with editgate's summary (default)
                     web     the review page of an editgate review running for the root (one
                             is started and opened in your browser when none runs)
                     policy  no one: only what the config's "allow" rules cover goes ahead
  --root DIR       the workspace root (default: the folder the agent runs in)
  --config FILE    a config file instead of ROOT/editgate.config.json
  --fail-open      when the hook itself fails (a crash, no review page, no answer in time), let the
                   call go ahead instead of refusing it
  --check-endpoint at a session's start and at each prompt, stop the agent when a program that is not
                   editgate's hook server listens on its loopback port (written where the agent's edit
                   hooks post there)
  --serve          run the hook server, which answers the hooks' calls on a socket in your state
                   folder without starting Node for each (started by the hook itself when needed;
                   editgate hooks status shows it)`;

const OPTIONS = {
  approve: { type: 'string' },
  'fail-open': { type: 'boolean' },
  'check-endpoint': { type: 'boolean' },
  serve: { type: 'boolean' },
} as const;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One hook call's command line, read against the folder it was started in. */
interface HookInvocation {
  agent: string;
  approve: HookApproveMode;
  root?: string;
  config?: string;
  failOpen: boolean;
  /** At a session's start and each prompt, prove that editgate's server holds the loopback endpoint. */
  checkEndpoint: boolean;
}

/** The value given to an option (`--root DIR` or `--root=DIR`), as written. */
function given(args: string[], name: string): string | undefined {
  for (const [index, arg] of args.entries()) {
    if (arg === `--${name}`) return args[index + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

/** Throws a UsageError for a bad line; `help` when it asks for help. */
function readInvocation(args: string[], cwd: string): HookInvocation | 'help' | 'serve' {
  const line = parseCommandLine(args, OPTIONS, ['root', 'config']);
  if (line.help) return 'help';
  if (line.values.serve === true) {
    if (args.length !== 1) throw new UsageError('--serve takes nothing else');
    return 'serve';
  }
  if (line.positionals.length !== 1) throw new UsageError(`name one agent: ${hookAgentNames().join(', ')}`);
  const mode = line.values.approve ?? 'agent';
  if (!(APPROVE_MODES as readonly string[]).includes(mode))
    throw new UsageError(`--approve must be one of ${APPROVE_MODES.join(', ')} (got "${mode}")`);
  const root = given(args, 'root');
  const config = given(args, 'config');
  const at = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));
  return {
    agent: line.positionals[0]!,
    approve: mode as HookApproveMode,
    ...(root !== undefined ? { root: at(root) } : {}),
    ...(config !== undefined ? { config: at(config) } : {}),
    failOpen: line.values['fail-open'] === true,
    checkEndpoint: line.values['check-endpoint'] === true,
  };
}

function usageReply(error: unknown): HookReply {
  // Exit code 2 blocks the tool in every agent that reads exit codes: a broken hook line fails closed.
  return {
    stdout: '',
    stderr: `editgate hook: ${error instanceof Error ? error.message : String(error)}. Nothing was allowed. Run editgate hook --help.\n`,
    exitCode: 2,
  };
}

/** The event with the hook's folder as its cwd when the agent sent none (a server has no cwd of the call's). */
function withCwd(event: string, cwd: string): string {
  if (event.includes('"cwd"')) return event;
  try {
    const parsed: unknown = JSON.parse(event);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return event;
    return JSON.stringify({ ...parsed, cwd });
  } catch {
    return event;
  }
}

/**
 * The answer to one hook call, from the Node hook or the hook server alike: never throws, refuses (exit code
 * 2) a command line it cannot read, and gives what the runner says to the person on standard error.
 */
export async function answerHookCall(
  args: string[],
  cwd: string,
  event: string,
  stateDir: string,
): Promise<HookReply> {
  let invocation: HookInvocation;
  try {
    const read = readInvocation(args, cwd);
    if (read === 'help' || read === 'serve') throw new UsageError('a hook call names an agent');
    invocation = read;
  } catch (error) {
    return usageReply(error);
  }
  const entry = hookAgent(invocation.agent);
  if (!entry) {
    return {
      stdout: '',
      stderr: `editgate hook: no hooks for "${invocation.agent}"; editgate has them for ${hookAgentNames().join(', ')}. Nothing was allowed.\n`,
      exitCode: 2,
    };
  }
  const { adapter } = await entry.load();
  // Before anything else is done for the event (a prompt's hook hands the model a session review's note
  // once): a session whose edits would go to a stranger does not go on.
  const stop = invocation.checkEndpoint ? stopsBeforeActing(adapter, event) : undefined;
  if (stop && adapter.stopBeforeActing) {
    const stranger = await endpointStranger(stateDir, adapter.label);
    if (stranger) return adapter.stopBeforeActing(stranger, stop);
  }
  const notes: string[] = [];
  const warn = (message: string) => notes.push(`${message}\n`);
  const reply = await runHook(withCwd(event, cwd), {
    adapter,
    approve: invocation.approve,
    ...(invocation.root !== undefined ? { root: invocation.root } : {}),
    ...(invocation.config !== undefined ? { config: invocation.config } : {}),
    failOpen: invocation.failOpen,
    stateDir,
    reviewPage: (root, shown) => reviewPage(root, stateDir, warn, shown),
    warn,
  });
  const stderr = notes.join('') + (reply.stderr ?? '');
  return { ...reply, ...(stderr ? { stderr } : {}) };
}

/** Whether the event comes before the agent acts (its session's start, a prompt), and which. */
function stopsBeforeActing(adapter: HookAdapter, event: string): 'session-start' | 'prompt' | undefined {
  if (event.includes('"SessionStart"')) return 'session-start';
  try {
    return adapter.parse(JSON.parse(event)).phase === 'prompt' ? 'prompt' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why the session may not go on, or undefined: a program that is not editgate's hook server listens on the
 * loopback endpoint's port, where the agent's http hooks would hand it the token with every edit and take
 * its answer as editgate's (hook-endpoint.ts endpointHolder).
 */
async function endpointStranger(stateDir: string, agent: string): Promise<string | undefined> {
  const endpoint = readHookEndpoint(stateDir);
  if (!endpoint) return undefined;
  const holder = await endpointHolder(endpoint);
  if (holder.kind !== 'stranger') return undefined;
  const at = `${LOOPBACK_HOST}:${endpoint.port}`;
  return `editgate stops this session: a program that is not editgate's hook server listens on ${at} (${holder.why}). ${agent}'s edit hooks would post every edit there with editgate's token, and take that program's answer as editgate's. Quit, find it with: ss -ltnp 'sport = :${endpoint.port}', stop it, and start again (editgate's server takes the port back within a few seconds).`;
}

export async function run(args: string[]): Promise<number> {
  let read: ReturnType<typeof readInvocation>;
  try {
    read = readInvocation(args, process.cwd());
  } catch (error) {
    process.stderr.write(usageReply(error).stderr!);
    return 2;
  }
  if (read === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const stateDir = defaultStateDir();
  if (read === 'serve') return serve(stateDir);
  const event = await readStdin();
  const reply = await answerHookCall(args, process.cwd(), event, stateDir);
  if (reply.stderr) process.stderr.write(reply.stderr);
  // Started by hook-entry.sh, which found no server: one for the next call, now that this one is answered.
  const identity = buildIdentity();
  // Not for a session's end: nothing is left to serve.
  if (
    process.env.EDITGATE_HOOK_SERVER === 'start' &&
    identity &&
    process.argv[1] &&
    !event.includes('"SessionEnd"')
  ) {
    await startHookServer(
      stateDir,
      identity,
      [process.execPath, process.argv[1], 'hook', '--serve'],
      (line) => process.stderr.write(`${line}\n`),
    );
    // A session's start (Claude Code's SessionStart) waits for the server: the session's edit hooks post
    // to its loopback endpoint and start none, so the first edit must find it listening.
    if (event.includes('"SessionStart"')) await untilServing(stateDir, identity);
  }
  await new Promise<void>((done) => process.stdout.write(reply.stdout, () => done()));
  return reply.exitCode;
}

/** How long a session's start waits for the hook server it started (it loads in about a second). */
const SERVER_START_WAIT_MS = 30_000;

async function untilServing(stateDir: string, identity: string): Promise<void> {
  const until = Date.now() + SERVER_START_WAIT_MS;
  while (Date.now() < until) {
    if ((await runningHookServers(stateDir)).some((server) => server.identity === identity)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.stderr.write(
    `editgate: the hook server did not start within ${SERVER_START_WAIT_MS / 1000} s; edits are refused until it answers (editgate hooks status).\n`,
  );
}

async function serve(stateDir: string): Promise<number> {
  const identity = buildIdentity();
  if (!identity) {
    process.stderr.write(
      'editgate hook --serve: this editgate is not a build (no dist/cli/hook-identity).\n',
    );
    return 2;
  }
  let started: Awaited<ReturnType<typeof serveHooks>>;
  try {
    started = await serveHooks({
      stateDir,
      identity,
      warmUp,
      warn: (line) => process.stderr.write(`${line}\n`),
      // The entry sends the words after MAIN: `hook AGENT [options]`.
      answer: (call: HookCall) =>
        call.args[0] === 'hook'
          ? answerHookCall(call.args.slice(1), call.cwd, call.event, stateDir)
          : Promise.resolve(usageReply(new UsageError('a hook call starts with "hook"'))),
    });
  } finally {
    startFinished(stateDir, identity);
  }
  if ('refused' in started) {
    process.stderr.write(`editgate hook --serve: ${started.refused}.\n`);
    return 1;
  }
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => void started.close());
  await started.ended;
  return 0;
}

/** Edits the hook server makes before it listens (warmUp), and the most time they may take. */
const WARM_UP_EDITS = 12;
const WARM_UP_MS = 1500;

/**
 * Edits through the whole allowed path (config and trust, the decision, the approval kept, the write
 * settled against it) in a folder of their own (a root, a state folder, then removed), before the server
 * listens. Node compiles a function on its first call and optimizes it after many: without this, the
 * person's first edits run the hook's code cold, at about twice what later ones cost. Nothing of it reaches
 * the person's state folder or audit log.
 */
async function warmUp(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'editgate-hook-warm-up-'));
  try {
    const root = join(folder, 'root');
    const state = join(folder, 'state');
    await mkdir(root);
    // A config that allows every change, trusted, as a person's policy allows their agent's edits: the
    // path warmed is the one an allowed edit takes, not a refusal's.
    await writeFile(
      join(root, CONFIG_FILE),
      JSON.stringify({ policy: { rules: [{ path: '**', action: 'allow' }] } }),
    );
    await trustLoaded(await loadConfig(root, undefined, { stateDir: state }), state);
    const file = join(root, 'warm-up.txt');
    const args = ['claude-code', '--approve', 'policy'];
    const until = Date.now() + WARM_UP_MS;
    for (let edit = 0; edit < WARM_UP_EDITS && Date.now() < until; edit++) {
      const event = (phase: string) =>
        JSON.stringify({
          session_id: 'warm-up',
          cwd: root,
          hook_event_name: phase,
          tool_name: 'Edit',
          tool_input: { file_path: file, old_string: `one ${edit}`, new_string: `two ${edit}` },
          tool_use_id: `warm-up-${edit}`,
        });
      await writeFile(file, `one ${edit}\n`);
      await answerHookCall(args, root, event('PreToolUse'), state);
      await writeFile(file, `two ${edit}\n`);
      await answerHookCall(args, root, event('PostToolUse'), state);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The page of an `editgate review` running for the root, found through its discovery file; or one started
 * for it now and opened in the browser (cli/hook-review-page.ts), unless the person turned that off.
 * `shown` hears the page's address, which a refusal for want of an answer names.
 */
async function reviewPage(
  root: string,
  stateDir: string,
  warn: (line: string) => void,
  shown?: (address: string) => void,
): Promise<Approver | undefined> {
  const [{ findWebReview }, { hookReviewPage }] = await Promise.all([
    import('../web-review.js'),
    import('../hook-review-page.js'),
  ]);
  const look = findWebReview(root, 'editgate hook', (message) => warn(`editgate: ${message}`));
  const page = await hookReviewPage({ root, stateDir, look, warn });
  if (page) shown?.(page.address);
  return page?.ask;
}
