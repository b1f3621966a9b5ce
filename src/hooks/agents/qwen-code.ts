/**
 * Qwen Code's hooks (0.24.4, read from its bundle: core hooks/ and coreToolScheduler): Claude Code's shape,
 * not Gemini CLI's (of which Qwen Code is a fork). Command hooks in settings.json under `hooks.PreToolUse` /
 * `hooks.PostToolUse`, a `matcher` over tool names, `timeout` in seconds (a value of 1000 or more is read
 * as milliseconds). The event comes as JSON on standard input (`{ session_id, cwd, hook_event_name,
 * tool_name, tool_input, tool_use_id, tool_response? }`) and the answer as JSON on standard output:
 *
 *   PreToolUse   `hookSpecificOutput.permissionDecision` allow | deny | ask with
 *                `permissionDecisionReason`: deny stops the tool and the model reads the reason; ask bounces
 *                the call back to Qwen Code's own confirmation (a headless run, which cannot ask, denies).
 *                Qwen Code reads no changed input from a hook (no `updatedInput`): when the person changed
 *                the text, editgate refuses the call with their version in the reason.
 *   PostToolUse  `hookSpecificOutput.additionalContext` is added to the result the model reads.
 *
 * The pre-tool hook runs when the call is about to execute, after Qwen Code's own approval. Qwen Code lets
 * the tool run when a hook fails (exit code 1, a time-out); exit code 2 blocks it with standard error as
 * the reason. So every failure is answered with exit code 2, within the time-out installed here.
 *
 * Gated: `edit` and `write_file` (qwen-code-edits.ts). Every other tool passes.
 */
import { isAbsolute, resolve } from 'node:path';
import type {
  HookAdapter,
  HookEvent,
  HookReply,
  PostFeedback,
  PreVerdict,
  ProposedFile,
} from '../adapter.js';
import { record, requiredText } from '../event-fields.js';
import { type HookInstaller, PROMPT_HOOK_TIMEOUT_SECONDS, promptHookLine } from '../install.js';
import { promptContextReply, promptEvent } from '../session-note.js';
import { addHookGroups, findHookGroups, removeHookGroups, type SettingsHooks } from '../settings-hooks.js';
import { applyQwenEdit, applyQwenWriteFile } from './qwen-code-edits.js';

export const GATED_TOOLS = ['edit', 'write_file'] as const;

/** Seconds Qwen Code waits for the hook, as installed (under 1000: Qwen Code reads it as seconds). */
const TIMEOUT_SECONDS = 600;

function text(value: unknown, what: string): string {
  return requiredText(value, "Qwen Code's hook event", what);
}

function proposedFile(tool: string, path: string, input: Record<string, unknown>): ProposedFile {
  if (tool === 'write_file') {
    const content = text(input.content, 'content');
    return { path, expected: (current) => applyQwenWriteFile(path, current, content) };
  }
  const edit = {
    old_string: text(input.old_string, 'old_string'),
    new_string: text(input.new_string, 'new_string'),
    ...(input.replace_all === true ? { replace_all: true } : {}),
  };
  return { path, expected: (current) => applyQwenEdit(path, current, edit) };
}

function parse(event: unknown): HookEvent {
  const body = record(event);
  const cwd = typeof body.cwd === 'string' ? body.cwd : process.cwd();
  const phase = body.hook_event_name;
  if (phase === 'UserPromptSubmit') return promptEvent(cwd, body.session_id);
  if (phase !== 'PreToolUse' && phase !== 'PostToolUse') return { phase: 'other', cwd };
  const tool = text(body.tool_name, 'tool_name');
  if (!(GATED_TOOLS as readonly string[]).includes(tool)) {
    return phase === 'PreToolUse'
      ? { phase: 'pre', cwd, read: { kind: 'pass', why: `${tool} does not write files editgate gates` } }
      : { phase: 'post', cwd, read: { kind: 'pass' } };
  }
  const input = record(body.tool_input);
  const given = text(input.file_path, 'file_path');
  const path = isAbsolute(given) ? given : resolve(cwd, given);
  const key = { session: text(body.session_id, 'session_id'), call: text(body.tool_use_id, 'tool_use_id') };
  if (phase === 'PostToolUse')
    return { phase: 'post', cwd, read: { kind: 'settle', tool, key, paths: [path] } };
  return {
    phase: 'pre',
    cwd,
    read: { kind: 'write', tool, key, input, files: [proposedFile(tool, path, input)] },
  };
}

function json(body: unknown): HookReply {
  return { stdout: `${JSON.stringify(body)}\n`, exitCode: 0 };
}

function pre(verdict: PreVerdict): HookReply {
  if (verdict.kind === 'pass') return { stdout: '', exitCode: 0 };
  // (No updatedInput: the runner never allows a changed input here, having no `revise`.)
  return json({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: verdict.kind,
      ...(verdict.reason ? { permissionDecisionReason: verdict.reason } : {}),
    },
  });
}

function post(feedback: PostFeedback): HookReply {
  if (!feedback.message) return { stdout: '', exitCode: 0 };
  return json({
    ...(feedback.matches ? {} : { systemMessage: feedback.message }),
    hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: feedback.message },
  });
}

export const adapter: HookAdapter = {
  agent: 'qwen-code',
  label: 'Qwen Code',
  contextBeforeTool: false,
  timeoutSeconds: TIMEOUT_SECONDS,
  parse,
  pre,
  post,
  prompt: (context) => promptContextReply('UserPromptSubmit', context),
  // Exit code 2: Qwen Code blocks the tool and gives the model standard error as the reason.
  failed: (reason) => ({ stdout: '', stderr: `${reason}\n`, exitCode: 2 }),
};

export const SETTINGS: SettingsHooks = {
  agent: 'qwen-code',
  events: ['PreToolUse', 'PostToolUse'],
  matcher: `^(${GATED_TOOLS.join('|')})$`,
  entry: ({ line, timeoutSeconds }) => ({
    name: 'editgate',
    type: 'command',
    command: line,
    timeout: timeoutSeconds,
  }),
  prompt: {
    event: 'UserPromptSubmit',
    entry: (command) => ({
      name: 'editgate-review-notes',
      type: 'command',
      command: promptHookLine(command),
      timeout: PROMPT_HOOK_TIMEOUT_SECONDS,
    }),
  },
};

export const installer: HookInstaller = {
  agent: 'qwen-code',
  file(scope, place) {
    if (scope === 'project') return resolve(place.root, '.qwen', 'settings.json');
    return resolve(place.home, '.qwen', 'settings.json');
  },
  add: (before, command) => addHookGroups(SETTINGS, before, command),
  remove: (before) => removeHookGroups(SETTINGS, before),
  find: (text) => findHookGroups(SETTINGS, text),
};
