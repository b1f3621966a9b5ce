/**
 * `editgate hooks install | uninstall | status`: editgate's entries in an agent's own hook configuration,
 * and nothing else of it. Each agent says where its configuration lives and how an entry is written
 * (`HookInstaller`); this file plans a change as the file's text before and after, so the command shows
 * the diff before it writes, writes nothing when nothing changes (install twice is install once), and
 * leaves every entry that is not editgate's as it was.
 */
import { dirname } from 'node:path';
import type { AgentId } from './adapter.js';

export type InstallScope = 'project' | 'user';

/** How the hook is run: `editgate hook <agent>` with these options, as the agent's config names it. */
export interface HookCommand {
  /** The words of the command line, each one argument. */
  argv: string[];
  /** The same as one line for a POSIX shell (what the agents' configs hold). */
  line: string;
  /** Seconds the agent should wait for it (the adapter's timeout). */
  timeoutSeconds: number;
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
  /** What the person must do besides (Codex asks to trust a new hook once, say), one line each. */
  notes?(scope: InstallScope, place: InstallPlace): string[];
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

/** The folder a plan's file goes in (created when missing). */
export function folderOf(plan: InstallPlan): string {
  return dirname(plan.file);
}

/**
 * Whether a command line in an agent's config is editgate's hook for `agent`: the words `hook <agent>` after
 * a program named editgate (or editgate's own entry file). The one rule every installer finds its entries by,
 * so an entry of the person's own is never taken for editgate's.
 */
export function isEditgateHookCommand(command: string, agent: AgentId): boolean {
  return (
    /editgate|hook[-.]entry|hook\.bundle/.test(command) &&
    new RegExp(`(^|\\s|")hook"?\\s+"?${agent}\\b`).test(command)
  );
}
