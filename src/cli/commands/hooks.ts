// `editgate hooks install | uninstall | status`: editgate's entries in a coding agent's own hook
// configuration (src/hooks/install.ts plans each change as the file before and after). Each change is shown as
// a diff before it is written; entries that are not editgate's are left as they are.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffLines, formatUnifiedDiff } from '../../core/diff.js';
import { shellLine, shellWord } from '../../core/shell-word.js';
import type { AgentId } from '../../hooks/adapter.js';
import { type HookAgentEntry, hookAgent, hookAgentNames } from '../../hooks/agents.js';
import { hookRunFolder } from '../../hooks/hook-wire.js';
import {
  type HookCommand,
  type HookInstaller,
  type InstallPlace,
  type InstallPlan,
  type InstallScope,
  planCompanion,
  planInstall,
  planUninstall,
} from '../../hooks/install.js';
import { APPROVE_MODES, type HookApproveMode } from '../../hooks/runner.js';
import { runningReviews } from '../../web/discovery.js';
import { commandHelp, usageFailure } from '../file-command.js';
import {
  endpointHolder,
  ensureHookEndpoint,
  type HookEndpoint,
  hookEndpointPath,
  hookUrl,
  LOOPBACK_HOST,
  readHookEndpoint,
} from '../hook-endpoint.js';
import { buildIdentity, runFolderProblem, runningHookServers, stopHookServers } from '../hook-server.js';
import { defaultStateDir } from '../state-dir.js';
import { type GlobalOptionName, parseCommandLine, UsageError } from '../usage.js';

const OPTIONS = {
  project: { type: 'boolean' },
  user: { type: 'boolean' },
  approve: { type: 'string' },
  'fail-open': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
} as const;
const GLOBALS: readonly GlobalOptionName[] = ['root'];

export const HELP = `Usage: editgate hooks install AGENT [--project | --user] [--approve MODE] [--fail-open] [--dry-run]
       editgate hooks uninstall AGENT [--project | --user] [--dry-run]
       editgate hooks status [AGENT]

Put editgate in front of a coding agent's own edit tools through the agent's hooks: before each edit
the change is worked out as that tool would make it, then editgate's policy, deny globs, hooks and
approval decide; after it, the file is compared with what was approved and recorded, so editgate
undo FILE puts it back. AGENT: ${hookAgentNames().join(', ')}.

install writes editgate's entries into the agent's hook configuration and nothing else of it; it
shows the change as a diff first, and running it again changes nothing. uninstall removes them.
status lists what is installed where, and whether the hook server runs.

Where there is a POSIX shell, the agent runs editgate's shell entry, which hands each call to a running
editgate (the hook server, on a socket in your state folder, started by the first call and ended after
15 minutes without one) with curl, so a call does not start Node; without curl, or on Windows, each call
starts Node. Claude Code with --user posts its edit events to the hook server itself (http hooks on
127.0.0.1, with a token kept in your state folder; the settings file is made readable by you alone), and
its session start starts the server. uninstall stops the hook server.

  --project        the project's configuration, in --root (default: the current folder) (default)
  --user           your own configuration, for every project
  --approve MODE   who decides what no policy rule decides (default: what suits the agent):
                     agent   the agent asks you in its own prompt, with editgate's summary
                     web     the review page of an editgate review running for the root (one
                             is started and opened in your browser when none runs)
                     policy  no one: only the config's "allow" rules let a change through
  --fail-open      when the hook itself fails, let the call go ahead (default: refuse it)
  --dry-run        show the change, write nothing`;

function scopeOf(values: { project?: boolean; user?: boolean }): InstallScope {
  if (values.project && values.user) throw new UsageError('give --project or --user, not both');
  return values.user ? 'user' : 'project';
}

function agentNamed(name: string | undefined): { id: AgentId; entry: HookAgentEntry } {
  if (name === undefined) throw new UsageError(`name the agent: ${hookAgentNames().join(', ')}`);
  const entry = hookAgent(name);
  if (!entry)
    throw new UsageError(`no hooks for "${name}"; editgate has them for ${hookAgentNames().join(', ')}`);
  return { id: name as AgentId, entry };
}

/**
 * The shell the hook entry runs in (absolute: no PATH decides it): bash where there is one, whose own
 * /dev/tcp reaches the hook server without starting curl; else the POSIX shell, which uses curl.
 */
const SHELL = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

/**
 * The command the agent runs: this Node and this editgate, by absolute path, so no PATH can change them;
 * behind the shell entry that asks the running hook server (cli/hook-entry.sh, beside main.js in the build)
 * where there is a POSIX shell, so a call costs a curl, not a Node start.
 */
export function hookCommand(
  agent: AgentId,
  approve: HookApproveMode,
  failOpen: boolean,
  timeoutSeconds: number,
  endpoint?: HookEndpoint,
): HookCommand {
  const main = fileURLToPath(new URL('../main.js', import.meta.url));
  const entry = fileURLToPath(new URL('../hook-entry.sh', import.meta.url));
  const nodeArgv = [
    process.execPath,
    main,
    'hook',
    agent,
    '--approve',
    approve,
    ...(failOpen ? ['--fail-open'] : []),
  ];
  const fast = process.platform !== 'win32' && existsSync(SHELL) && existsSync(entry);
  const argv = fast ? [SHELL, entry, ...nodeArgv] : nodeArgv;
  const identityFile = fileURLToPath(new URL('../hook-identity', import.meta.url));
  return {
    argv,
    nodeArgv,
    ...(fast ? { identityFile } : {}),
    line: shellLine(argv),
    timeoutSeconds,
    approve,
    failOpen,
    ...(fast && endpoint
      ? { http: { url: hookUrl(endpoint, agent, approve, failOpen), token: endpoint.token } }
      : {}),
  };
}

/**
 * The hook server's loopback endpoint for an agent whose hooks post to it (Claude Code), in your own
 * settings only: a project's settings file is shared (often in git) and must not hold the token.
 */
async function endpointFor(installer: HookInstaller, scope: InstallScope): Promise<HookEndpoint | undefined> {
  if (!installer.httpHooks || scope !== 'user') return undefined;
  const stateDir = defaultStateDir();
  const problem = await runFolderProblem(stateDir);
  if (problem) {
    process.stdout.write(
      `The hook server's folder cannot be trusted (${problem}), so the hooks are command hooks, each call a shell and curl.\n`,
    );
    return undefined;
  }
  return ensureHookEndpoint(stateDir);
}

/** The token as the person is shown it: where it is kept, not its value. */
function masked(text: string | undefined, token: string | undefined): string | undefined {
  return token === undefined || text === undefined
    ? text
    : text.replaceAll(token, `<token in ${hookEndpointPath(defaultStateDir())}>`);
}

async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function showPlan(plan: InstallPlan, verb: string, token?: string): void {
  if (plan.unchanged) {
    process.stdout.write(`${plan.file}: nothing to change (${verb} already).\n`);
    return;
  }
  const diff = formatUnifiedDiff(
    diffLines(masked(plan.before, token) ?? '', masked(plan.after, token) ?? ''),
    {
      oldPath: plan.before === undefined ? '/dev/null' : plan.file,
      newPath: plan.file,
    },
  );
  process.stdout.write(`${diff}${diff.endsWith('\n') ? '' : '\n'}`);
}

async function apply(plan: InstallPlan, dryRun: boolean, done: string, token?: string): Promise<void> {
  if (plan.unchanged) return;
  if (dryRun) {
    process.stdout.write('Dry run: nothing was written.\n');
    return;
  }
  if (plan.after === undefined) {
    // Nothing of value left in it (OpenCode's plugin file is editgate's whole): the file goes.
    await rm(plan.file, { force: true });
    process.stdout.write(`${done} ${plan.file} (removed the file)\n`);
    return;
  }
  await mkdir(dirname(plan.file), { recursive: true });
  await writeFile(plan.file, plan.after);
  process.stdout.write(`${done} ${plan.file}\n`);
  // A file that holds the hook server's token is this user's alone.
  if (token !== undefined && plan.after.includes(token) && ((await stat(plan.file)).mode & 0o077) !== 0) {
    await chmod(plan.file, 0o600);
    process.stdout.write(`Made ${plan.file} readable by you alone (it holds the hook server's token).\n`);
  }
}

export async function run(args: string[]): Promise<number> {
  let line: ReturnType<typeof parseCommandLine<typeof OPTIONS>>;
  try {
    line = parseCommandLine(args, OPTIONS, GLOBALS);
    if (line.help) {
      process.stdout.write(commandHelp(HELP, GLOBALS));
      return 0;
    }
  } catch (error) {
    return usageFailure('hooks', error);
  }
  const [action, name, ...extra] = line.positionals;
  const place: InstallPlace = { root: resolve(line.globals.root), home: homedir(), env: process.env };
  try {
    if (extra.length > 0) throw new UsageError(`unexpected ${extra[0]}`);
    if (action === 'status') return await status(name, place);
    if (action !== 'install' && action !== 'uninstall')
      throw new UsageError('say what to do: install, uninstall or status');
    const { id, entry } = agentNamed(name);
    const scope = scopeOf(line.values);
    const { adapter, installer } = await entry.load();
    const file = installer.file(scope, place);
    const before = await readIfThere(file);
    const dryRun = line.values['dry-run'] === true;
    if (action === 'uninstall') {
      if (line.values.approve !== undefined || line.values['fail-open'])
        throw new UsageError('--approve and --fail-open are for install');
      const plan = planUninstall(installer, file, before);
      const companion = await companionPlan(installer, plan, 'uninstall', scope, place);
      for (const each of [plan, ...(companion ? [companion] : [])]) {
        showPlan(each, 'not installed');
        await apply(each, dryRun, `Removed editgate's ${entry.label} hooks from`);
      }
      if (!dryRun) await stopServers();
      return 0;
    }
    const approve = line.values.approve ?? entry.defaultApprove;
    if (!(APPROVE_MODES as readonly string[]).includes(approve))
      throw new UsageError(`--approve must be one of ${APPROVE_MODES.join(', ')} (got "${approve}")`);
    const endpoint = await endpointFor(installer, scope);
    const command = hookCommand(
      id,
      approve as HookApproveMode,
      line.values['fail-open'] === true,
      adapter.timeoutSeconds,
      endpoint,
    );
    let plan: InstallPlan;
    try {
      plan = planInstall(installer, file, before, command);
    } catch (error) {
      throw new UsageError(
        `${file} cannot be read as ${entry.label}'s configuration (${(error as Error).message}); nothing was written. Fix it, or move it aside and install again.`,
      );
    }
    const companion = await companionPlan(installer, plan, 'install', scope, place);
    for (const each of [plan, ...(companion ? [companion] : [])]) {
      showPlan(each, 'installed', endpoint?.token);
      await apply(
        each,
        dryRun,
        `Installed editgate's ${entry.label} hooks (--approve ${approve}) in`,
        endpoint?.token,
      );
    }
    for (const note of installer.notes?.(scope, place) ?? []) process.stdout.write(`${note}\n`);
    return 0;
  } catch (error) {
    return usageFailure('hooks', error);
  }
}

async function companionPlan(
  installer: HookInstaller,
  main: InstallPlan,
  action: 'install' | 'uninstall',
  scope: InstallScope,
  place: InstallPlace,
): Promise<InstallPlan | undefined> {
  if (!installer.companion) return undefined;
  const file = installer.companion.file(scope, place);
  return planCompanion(installer, main, action, file, await readIfThere(file));
}

/**
 * The hook servers stop with the hooks (a hook still installed for another agent starts one again at its
 * next call): nothing keeps running for hooks that are gone.
 */
async function stopServers(): Promise<void> {
  const stopped = await stopHookServers(defaultStateDir());
  if (stopped > 0)
    process.stdout.write(`Stopped the editgate hook server${stopped > 1 ? 's' : ''} (${stopped}).\n`);
}

/** The hook servers that answer, one line each. */
async function serverStatus(): Promise<void> {
  const stateDir = defaultStateDir();
  const running = await runningHookServers(stateDir);
  const identity = buildIdentity();
  if (running.length === 0) {
    process.stdout.write(
      `Hook server: not running (the next hook call starts it; its socket goes in ${hookRunFolder(stateDir)}).\n`,
    );
  }
  for (const server of running) {
    const build =
      server.identity === identity ? 'this editgate' : `another build of editgate (${server.identity})`;
    process.stdout.write(
      `Hook server: running, pid ${server.pid}, since ${server.startedAt}, ${server.served} calls answered, ${build} (${server.socketPath}).\n`,
    );
  }
  await endpointStatus(stateDir);
  for (const page of await runningReviews(stateDir))
    process.stdout.write(
      `Review page: running for ${page.root}, pid ${page.pid}, http://127.0.0.1:${page.port}/ (editgate review ${shellWord(page.root)} --link prints a sign-in link; one a hook started ends after 15 minutes with nothing to do).\n`,
    );
}

/** Who holds the loopback endpoint's port, where Claude Code's http hooks post (hook-endpoint.ts). */
async function endpointStatus(stateDir: string): Promise<void> {
  const endpoint = readHookEndpoint(stateDir);
  if (!endpoint) return;
  const at = `${LOOPBACK_HOST}:${endpoint.port}`;
  const holder = await endpointHolder(endpoint);
  process.stdout.write(
    holder.kind === 'editgate'
      ? `Loopback endpoint ${at}: editgate's hook server listens there (it proved it).\n`
      : holder.kind === 'none'
        ? `Loopback endpoint ${at}: nothing listens there now (a session's start starts the server).\n`
        : `Loopback endpoint ${at}: a program that is not editgate's listens there (${holder.why}). Claude Code's prompts are blocked until it is gone; find it with: ss -ltnp 'sport = :${endpoint.port}'.\n`,
  );
}

async function status(name: string | undefined, place: InstallPlace): Promise<number> {
  const agents = name === undefined ? hookAgentNames() : [agentNamed(name).id];
  for (const agent of agents) {
    const entry = hookAgent(agent)!;
    const { installer } = await entry.load();
    for (const scope of ['project', 'user'] as const) {
      const file = installer.file(scope, place);
      const text = await readIfThere(file);
      let found: string[];
      try {
        found = text === undefined ? [] : installer.find(text);
      } catch (error) {
        process.stdout.write(
          `${entry.label} (${scope}): ${file} cannot be read (${(error as Error).message})\n`,
        );
        continue;
      }
      process.stdout.write(
        found.length === 0
          ? `${entry.label} (${scope}): not installed (${file})\n`
          : `${entry.label} (${scope}): installed in ${file}\n${found.map((entry) => `  ${entry}`).join('\n')}\n`,
      );
    }
  }
  await serverStatus();
  return 0;
}
