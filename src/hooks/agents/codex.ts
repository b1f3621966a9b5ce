/**
 * Codex's hooks (0.171.0, codex-rs/hooks): a command hook gets `{ session_id, turn_id, cwd, hook_event_name,
 * tool_name, tool_input, tool_use_id, tool_response? }` on standard input. For apply_patch, `tool_input` is
 * `{ command: PATCH }`. PreToolUse answers `hookSpecificOutput.permissionDecision`: "deny" with a non-empty
 * `permissionDecisionReason` (the model reads it), or "allow" only together with `updatedInput` (the patch
 * the tool runs instead); Codex has no "ask", and an answer it does not support, a non-zero exit other than
 * 2, or a time-out lets the tool run. So editgate allows by saying nothing, and answers every failure with a
 * deny. PostToolUse: `decision: "block"` with a `reason` the model reads.
 *
 * Codex runs a hook only once the person has trusted it (`/hooks`), by a hash of its entry kept in
 * config.toml under [hooks.state."FILE:EVENT:GROUP:HANDLER"]; `editgate hooks install codex` writes that
 * trust for its own three entries (the prompt-time UserPromptSubmit too), the person having asked for them, and uninstall removes it.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type {
  CallKey,
  HookAdapter,
  HookEvent,
  HookReply,
  PostFeedback,
  PreVerdict,
  ReviseInput,
} from '../adapter.js';
import { record, requiredText } from '../event-fields.js';
import {
  type CompanionFile,
  type HookInstaller,
  isEditgateHookCommand,
  PROMPT_HOOK_TIMEOUT_SECONDS,
  promptHookLine,
} from '../install.js';
import { jsonReply, NO_REPLY, promptContextReply, promptEvent } from '../replies.js';
import { patchEvent, patchFiles, patchOfApproved } from './codex-patch.js';

const TOOL = 'apply_patch';
/** Seconds Codex waits for the hook, as installed (Codex's default too). */
const TIMEOUT_SECONDS = 600;

function text(value: unknown, what: string): string {
  return requiredText(value, "Codex's hook event", what);
}

function parse(event: unknown): HookEvent {
  const body = record(event);
  const cwd = typeof body.cwd === 'string' ? body.cwd : process.cwd();
  const phase = body.hook_event_name;
  if (phase === 'UserPromptSubmit') return promptEvent(cwd, body.session_id);
  if (phase !== 'PreToolUse' && phase !== 'PostToolUse') return { phase: 'other', cwd };
  const tool = text(body.tool_name, 'tool_name');
  if (tool !== TOOL) {
    return phase === 'PreToolUse'
      ? { phase: 'pre', cwd, read: { kind: 'pass', why: `${tool} is not apply_patch` } }
      : { phase: 'post', cwd, read: { kind: 'pass' } };
  }
  const input = record(body.tool_input);
  const key: CallKey = {
    session: text(body.session_id, 'session_id'),
    call: text(body.tool_use_id, 'tool_use_id'),
  };
  const patch = text(input.command, 'patch (tool_input.command)');
  const when = phase === 'PostToolUse' ? 'post' : 'pre';
  return patchEvent(when, { cwd, tool, key, input }, patchFiles(patch, cwd, 'Codex'));
}

/** The person's version as the patch Codex runs instead (codex-patch.ts patchOfApproved). */
const revise: ReviseInput = (input, files) => {
  const patch = patchOfApproved(input.command, files, 'Codex');
  return typeof patch === 'string' ? { command: patch } : patch;
};

function deny(reason: string): HookReply {
  return jsonReply({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    },
  });
}

function pre(verdict: PreVerdict): HookReply {
  switch (verdict.kind) {
    case 'pass':
      return NO_REPLY;
    case 'deny':
      return deny(verdict.reason);
    case 'ask':
      // Codex's hooks cannot hand the question to its own prompt.
      return deny(
        `${verdict.reason} Codex's hooks cannot ask you in its own prompt, so editgate refused it. Nothing was written. Tell the user: install the hook with --approve web (the review page asks), or add a policy rule that allows it.`,
      );
    case 'allow':
      // Codex takes "allow" only with a new input; without one, saying nothing lets the patch run.
      if (!verdict.updatedInput) return NO_REPLY;
      return jsonReply({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'allow',
          updatedInput: verdict.updatedInput,
          ...(verdict.context ? { additionalContext: verdict.context } : {}),
        },
      });
  }
}

function post(feedback: PostFeedback): HookReply {
  if (feedback.matches) {
    return feedback.message
      ? jsonReply({
          hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: feedback.message },
        })
      : NO_REPLY;
  }
  return jsonReply({
    decision: 'block',
    reason: feedback.message,
    systemMessage: feedback.message,
    hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: feedback.message },
  });
}

export const adapter: HookAdapter = {
  agent: 'codex',
  label: 'Codex',
  contextBeforeTool: false,
  timeoutSeconds: TIMEOUT_SECONDS,
  parse,
  revise,
  pre,
  post,
  prompt: (context) => promptContextReply('UserPromptSubmit', context),
  failed: (reason) => deny(reason),
};

const EVENTS = [
  ['PreToolUse', 'pre_tool_use'],
  ['PostToolUse', 'post_tool_use'],
  // Every prompt (Codex ignores a matcher here): a session review's reasons for the model (session-note.ts).
  ['UserPromptSubmit', 'user_prompt_submit'],
] as const;
const PROMPT_EVENT = 'UserPromptSubmit';

interface HookGroup {
  matcher?: string;
  hooks?: Array<{ type?: string; command?: string; timeout?: number; async?: boolean }>;
}

function hooksFileOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('hooks.json is not a JSON object');
  return parsed as Record<string, unknown>;
}

function groupsOf(file: Record<string, unknown>, event: string): HookGroup[] {
  const hooks = record(file.hooks);
  return Array.isArray(hooks[event]) ? (hooks[event] as HookGroup[]) : [];
}

const isOurs = (command: unknown) => typeof command === 'string' && isEditgateHookCommand(command, 'codex');
const ours = (group: HookGroup) => (group.hooks ?? []).some((hook) => isOurs(hook.command));

function without(file: Record<string, unknown>): Record<string, unknown> {
  if (file.hooks === undefined) return file;
  const hooks = { ...record(file.hooks) };
  for (const [event] of EVENTS) {
    const kept = groupsOf(file, event).filter((group) => !ours(group));
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  return { ...file, hooks };
}

const format = (file: Record<string, unknown>) => `${JSON.stringify(file, null, 2)}\n`;

/**
 * The hash Codex trusts a hook entry by (codex-rs/hooks discovery `command_hook_hash`, config
 * `version_for_toml`): its event, matcher and one handler with defaults filled in, as JSON with sorted keys,
 * sha256.
 */
export function codexHookHash(
  eventLabel: string,
  matcher: string | undefined,
  command: string,
  timeout: number,
): string {
  // A group without a matcher (UserPromptSubmit, whose matcher Codex drops) has no matcher key at all.
  const identity = {
    event_name: eventLabel,
    hooks: [{ async: false, command, timeout, type: 'command' }],
    ...(matcher === undefined ? {} : { matcher }),
  };
  return `sha256:${createHash('sha256').update(JSON.stringify(identity)).digest('hex')}`;
}

/** editgate's entries in a hooks.json text, with the trust key and hash Codex gives each. */
function trustEntries(text: string, file: string): Array<{ key: string; hash: string }> {
  const parsed = hooksFileOf(text);
  const entries: Array<{ key: string; hash: string }> = [];
  for (const [event, label] of EVENTS) {
    groupsOf(parsed, event).forEach((group, groupIndex) => {
      (group.hooks ?? []).forEach((hook, handlerIndex) => {
        const matcher = event === PROMPT_EVENT ? undefined : group.matcher;
        if (!isOurs(hook.command) || (matcher === undefined && event !== PROMPT_EVENT)) return;
        entries.push({
          key: `${file}:${label}:${groupIndex}:${handlerIndex}`,
          hash: codexHookHash(label, matcher, hook.command!, hook.timeout ?? TIMEOUT_SECONDS),
        });
      });
    });
  }
  return entries;
}

const TRUST_NOTE = '# editgate hooks install codex: trust for its own hooks in';

/** config.toml without the trust blocks editgate wrote for `file` (its note line and its tables). */
function withoutTrust(text: string, file: string): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (line === `${TRUST_NOTE} ${file}`) {
      skipping = true;
      continue;
    }
    if (skipping) {
      const table = /^\s*\[/.test(line);
      if (table && !line.startsWith(`[hooks.state.${JSON.stringify(`${file}:`).slice(0, -1)}`))
        skipping = false;
      else if (!table && line.trim() !== '' && !line.startsWith('trusted_hash')) skipping = false;
      if (skipping) continue;
    }
    kept.push(line);
  }
  while (kept.length > 1 && kept.at(-1) === '' && kept.at(-2) === '') kept.pop();
  return kept.join('\n');
}

const trust: CompanionFile = {
  file(_scope, place) {
    return resolve(place.env.CODEX_HOME || resolve(place.home, '.codex'), 'config.toml');
  },
  add(before, main, mainFile) {
    const base = withoutTrust(before ?? '', mainFile);
    const entries = trustEntries(main, mainFile);
    if (entries.length === 0) return before;
    const block = [
      `${TRUST_NOTE} ${mainFile}`,
      ...entries.flatMap((entry) => [
        `[hooks.state.${JSON.stringify(entry.key)}]`,
        `trusted_hash = ${JSON.stringify(entry.hash)}`,
      ]),
      '',
    ];
    const separator = base === '' || base.endsWith('\n\n') ? '' : base.endsWith('\n') ? '\n' : '\n\n';
    return `${base}${separator}${block.join('\n')}`;
  },
  remove(before, mainFile) {
    return withoutTrust(before, mainFile);
  },
};

export const installer: HookInstaller = {
  agent: 'codex',
  file(scope, place) {
    if (scope === 'project') return resolve(place.root, '.codex', 'hooks.json');
    return resolve(place.env.CODEX_HOME || resolve(place.home, '.codex'), 'hooks.json');
  },
  add(before, command) {
    const file = without(hooksFileOf(before));
    const hooks = { ...record(file.hooks) };
    for (const [event] of EVENTS) {
      const entry: HookGroup =
        event === PROMPT_EVENT
          ? {
              hooks: [
                { type: 'command', command: promptHookLine(command), timeout: PROMPT_HOOK_TIMEOUT_SECONDS },
              ],
            }
          : {
              matcher: TOOL,
              hooks: [{ type: 'command', command: command.line, timeout: command.timeoutSeconds }],
            };
      hooks[event] = [...groupsOf(file, event), entry];
    }
    const after = format({ ...file, hooks });
    return before !== undefined && sameJson(before, after) ? before : after;
  },
  remove(before) {
    const file = without(hooksFileOf(before));
    return format(Object.keys(record(file.hooks)).length === 0 ? { ...file, hooks: {} } : file);
  },
  find(text) {
    const file = hooksFileOf(text);
    return EVENTS.flatMap(([event]) =>
      groupsOf(file, event).flatMap((group) =>
        (group.hooks ?? [])
          .filter((hook) => isOurs(hook.command))
          .map((hook) => `${event} (${group.matcher ?? 'every prompt'}): ${hook.command}`),
      ),
    );
  },
  notes(scope) {
    return scope === 'project'
      ? [
          "Codex reads a project's .codex folder only when you trust the project in Codex; it runs the hooks once trusted (editgate wrote their trust in your Codex config.toml).",
        ]
      : [];
  },
  companion: trust,
};

function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}
