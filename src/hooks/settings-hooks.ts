/**
 * Hook groups in an agent's JSON settings file, the shape Claude Code, Gemini CLI and Qwen Code share:
 *
 *   { "hooks": { "<Event>": [ { "matcher": "...", "hooks": [ { "type": "command", "command": "...",
 *                                                             "timeout": N } ] } ] } }
 *
 * editgate's groups are found by their command (install.ts isEditgateHookCommand), so a group of the
 * person's own is never touched; adding replaces editgate's older groups, removing drops them and any list
 * or `hooks` object left empty. Every other setting in the file stays as it was.
 */
import type { AgentId } from './adapter.js';
import { record } from './event-fields.js';
import { type HookCommand, isEditgateHookCommand, isEditgateHookUrl } from './install.js';

export interface HookGroup {
  matcher?: string;
  hooks?: Array<Record<string, unknown> & { type?: string; command?: string; url?: string }>;
}

/** One agent's entries: which events, which tools, and how one hook entry is written. */
export interface SettingsHooks {
  agent: AgentId;
  events: readonly string[];
  /** The `matcher` of editgate's groups (a regular expression over tool names in these agents). */
  matcher: string;
  /** The hook entry for a command (its `type`, `command`, `timeout` in the agent's own unit...). */
  entry(command: HookCommand): Record<string, unknown>;
  /**
   * Events of the agent's session (not of a tool: no matcher), each with this entry; Claude Code's
   * SessionStart starts the hook server its http hooks post to.
   */
  session?: { events: readonly string[]; entry(command: HookCommand): Record<string, unknown> };
  /**
   * The agent's prompt-time event, in a group of its own without a matcher (every prompt): where a session
   * review's reasons reach the model (session-note.ts). Its entry runs `promptHookLine`.
   */
  prompt?: { event: string; entry(command: HookCommand): Record<string, unknown> };
}

/** Every event editgate has groups for in this agent's settings. */
function eventsOf(spec: SettingsHooks): string[] {
  return [...(spec.session?.events ?? []), ...spec.events, ...(spec.prompt ? [spec.prompt.event] : [])];
}

/** The settings file's object; an empty or missing file is `{}`. Throws when it is not a JSON object. */
export function settingsOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `the settings file is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it or move it away, then run the command again`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(
      'the settings file is not a JSON object; fix it or move it away, then run the command again',
    );
  return parsed as Record<string, unknown>;
}

function groupsOf(settings: Record<string, unknown>, event: string): HookGroup[] {
  const hooks = record(settings.hooks);
  return Array.isArray(hooks[event]) ? (hooks[event] as HookGroup[]) : [];
}

function isOurs(spec: SettingsHooks, hook: { command?: unknown; url?: unknown }): boolean {
  return (
    (typeof hook.command === 'string' && isEditgateHookCommand(hook.command, spec.agent)) ||
    (typeof hook.url === 'string' && isEditgateHookUrl(hook.url, spec.agent))
  );
}

const groupIsOurs = (spec: SettingsHooks) => (group: HookGroup) =>
  (group.hooks ?? []).some((hook) => isOurs(spec, hook));

function without(spec: SettingsHooks, settings: Record<string, unknown>): Record<string, unknown> {
  if (settings.hooks === undefined) return settings;
  const hooks = { ...record(settings.hooks) };
  for (const event of eventsOf(spec)) {
    const kept = groupsOf(settings, event).filter((group) => !groupIsOurs(spec)(group));
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  const rest = { ...settings };
  if (Object.keys(hooks).length > 0) rest.hooks = hooks;
  else delete rest.hooks;
  return rest;
}

const format = (settings: Record<string, unknown>) => `${JSON.stringify(settings, null, 2)}\n`;

function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

/** The file's text with editgate's groups for this command (older ones replaced); unchanged when the same. */
export function addHookGroups(spec: SettingsHooks, before: string | undefined, command: HookCommand): string {
  const settings = without(spec, settingsOf(before));
  const hooks = { ...record(settings.hooks) };
  for (const event of spec.session?.events ?? []) {
    hooks[event] = [...groupsOf(settings, event), { hooks: [spec.session!.entry(command)] }];
  }
  for (const event of spec.events) {
    const group: HookGroup = { matcher: spec.matcher, hooks: [spec.entry(command)] };
    hooks[event] = [...groupsOf(settings, event), group];
  }
  if (spec.prompt) {
    const group: HookGroup = { hooks: [spec.prompt.entry(command)] };
    hooks[spec.prompt.event] = [...groupsOf(settings, spec.prompt.event), group];
  }
  const after = format({ ...settings, hooks });
  return before !== undefined && sameJson(before, after) ? before : after;
}

/** The file's text without editgate's groups. */
export function removeHookGroups(spec: SettingsHooks, before: string): string {
  return format(without(spec, settingsOf(before)));
}

/** editgate's entries in the file, one line each for the person. */
export function findHookGroups(spec: SettingsHooks, text: string): string[] {
  const settings = settingsOf(text);
  return eventsOf(spec).flatMap((event) =>
    groupsOf(settings, event).flatMap((group) =>
      (group.hooks ?? [])
        .filter((hook) => isOurs(spec, hook))
        .map(
          (hook) =>
            `${event} (${event === spec.prompt?.event ? 'every prompt' : (group.matcher ?? 'every tool')}): ${hook.type === 'http' ? `POST ${String(hook.url)}` : String(hook.command)}`,
        ),
    ),
  );
}
