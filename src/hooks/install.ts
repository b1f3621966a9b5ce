/**
 * `editgate hooks install | uninstall | status`: editgate's entries in an agent's own hook configuration,
 * and nothing else of it. Each agent says where its configuration lives and how an entry is written
 * (`HookInstaller`); this file plans a change as the file's text before and after, so the command shows
 * the diff before it writes, writes nothing when nothing changes (install twice is install once), and
 * leaves every entry that is not editgate's as it was.
 */
import type { AgentId } from './adapter.js';

export type InstallScope = 'project' | 'user';

/** How the hook is run: `editgate hook <agent>` with these options, as the agent's config names it. */
export interface HookCommand {
  /**
   * The words of the command line, each one argument: the shell entry that asks the running hook server
   * (`/bin/sh …/hook-entry.sh NODE MAIN hook <agent> …`, src/cli/hook-entry.sh) where there is a POSIX shell,
   * else `nodeArgv`.
   */
  argv: string[];
  /** The Node hook itself (`NODE MAIN hook <agent> …`): what OpenCode's plugin starts when no server answers. */
  nodeArgv: string[];
  /** The build's identity file (dist/cli/hook-identity), for OpenCode's plugin to find the server; absent: none. */
  identityFile?: string;
  /** The same as one line for a POSIX shell (what the agents' configs hold). */
  line: string;
  /** Seconds the agent should wait for it (the adapter's timeout). */
  timeoutSeconds: number;
  /** The mode it runs in (for words the agent shows while it runs). */
  approve: 'web' | 'agent' | 'policy';
  /** Installed with --fail-open: where the agent can be told to block when the hook fails, it is not. */
  failOpen: boolean;
  /**
   * The hook server's loopback endpoint for this command (cli/hook-endpoint.ts), for an agent that posts
   * its events itself (Claude Code's http hooks): the URL and the bearer token. Absent: command hooks only
   * (no POSIX shell, or a project's shared settings file, which must not hold the token).
   */
  http?: { url: string; token: string };
}

export interface InstallPlace {
  /** The project's root (the folder the agent runs in). */
  root: string;
  /** The person's home folder. */
  home: string;
  env: Record<string, string | undefined>;
}

export interface HookInstaller {
  agent: AgentId;
  /** The configuration file editgate's entries go in, for a scope. */
  file(scope: InstallScope, place: InstallPlace): string;
  /** The file's text with editgate's entries for `command` (any older entries of editgate replaced). */
  add(text: string | undefined, command: HookCommand): string;
  /** The file's text without editgate's entries; undefined when the file held nothing else of value. */
  remove(text: string): string | undefined;
  /** editgate's entries in the file, one line each for the person (empty: none). */
  find(text: string): string[];
  /** The agent posts its hook events itself (http hooks): `--user` installs get the server's endpoint. */
  httpHooks?: true;
  /** What the person must do besides, one line each. */
  notes?(scope: InstallScope, place: InstallPlace): string[];
  /**
   * A second file that goes with the first (Codex keeps the trust of each hook in config.toml, apart from
   * hooks.json): changed after it, from the first file's text as it will be.
   */
  companion?: CompanionFile;
}

export interface CompanionFile {
  file(scope: InstallScope, place: InstallPlace): string;
  /** Its text for the main file's text `main` (at path `mainFile`), editgate's older entries replaced. */
  add(text: string | undefined, main: string, mainFile: string): string | undefined;
  /** Its text without editgate's entries for `mainFile`. */
  remove(text: string, mainFile: string): string | undefined;
}

/** A planned change to one configuration file: its text before and after (undefined: no file). */
export interface InstallPlan {
  file: string;
  before: string | undefined;
  after: string | undefined;
  /** Nothing to do: the file already is what it would become. */
  unchanged: boolean;
}

export function planInstall(
  installer: HookInstaller,
  file: string,
  before: string | undefined,
  command: HookCommand,
): InstallPlan {
  const after = installer.add(before, command);
  return { file, before, after, unchanged: after === before };
}

export function planUninstall(
  installer: HookInstaller,
  file: string,
  before: string | undefined,
): InstallPlan {
  if (before === undefined || installer.find(before).length === 0)
    return { file, before, after: before, unchanged: true };
  const after = installer.remove(before);
  return { file, before, after, unchanged: after === before };
}

/** The plans for the companion file, after the main file's plan. */
export function planCompanion(
  installer: HookInstaller,
  main: InstallPlan,
  action: 'install' | 'uninstall',
  file: string,
  before: string | undefined,
): InstallPlan | undefined {
  const companion = installer.companion;
  if (!companion) return undefined;
  const after =
    action === 'install'
      ? companion.add(before, main.after ?? '', main.file)
      : before === undefined
        ? undefined
        : companion.remove(before, main.file);
  return { file, before, after, unchanged: after === before };
}

/**
 * Whether a command line in an agent's config is editgate's hook for `agent`: the words `hook <agent> --approve
 * <mode>` that every command `editgate hooks install` writes ends with (after whatever runs editgate: a path
 * to its main.js, a wrapper). The one rule every installer finds its entries by, so an entry of the person's
 * own is never taken for editgate's.
 */
export function isEditgateHookCommand(command: string, agent: AgentId): boolean {
  return new RegExp(`(^|\\s)hook\\s+${agent}\\s+--approve\\s+(web|agent|policy)(\\s|$)`).test(command);
}

/** Seconds an agent waits for editgate's prompt-time hook: it only takes a note, and the person is waiting. */
export const PROMPT_HOOK_TIMEOUT_SECONDS = 30;

/**
 * The command line of editgate's prompt-time hook: the same command with `--fail-open`, so a hook server
 * that fails mid-call is a warning rather than exit code 2, which would block (and, in Claude Code, erase)
 * the person's prompt. The runner itself never blocks a prompt.
 */
export function promptHookLine(command: HookCommand): string {
  return command.failOpen ? command.line : `${command.line} --fail-open`;
}

/** Whether an http hook's URL is editgate's hook server's for `agent` (cli/hook-endpoint.ts hookUrl). */
export function isEditgateHookUrl(url: string, agent: AgentId): boolean {
  return new RegExp(`^http://127\\.0\\.0\\.1:\\d{1,5}/hook/${agent}/(web|agent|policy)(/fail-open)?$`).test(
    url,
  );
}
