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
import { resolve } from 'node:path';
import type { HookAdapter, HookReply, PreVerdict } from '../adapter.js';
import type { HookInstaller } from '../install.js';
import { jsonReply, NO_REPLY } from '../replies.js';
import { settingsInstaller, toolEventAgent } from '../settings-agent.js';
import type { SettingsHooks } from '../settings-hooks.js';
import { applyQwenEdit, applyQwenWriteFile } from './qwen-code-edits.js';

/** Seconds Qwen Code waits for the hook, as installed (under 1000: Qwen Code reads it as seconds). */
const TIMEOUT_SECONDS = 600;

const events = toolEventAgent({
  label: 'Qwen Code',
  events: { pre: 'PreToolUse', post: 'PostToolUse' },
  edit: { tool: 'edit', every: 'replace_all', apply: applyQwenEdit },
  writeFile: applyQwenWriteFile,
  callId: (body, _tool, _path, text) => text(body.tool_use_id, 'tool_use_id'),
});

export const GATED_TOOLS = events.gatedTools;

function pre(verdict: PreVerdict): HookReply {
  if (verdict.kind === 'pass') return NO_REPLY;
  // (No updatedInput: the runner never allows a changed input here, having no `revise`.)
  return jsonReply({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: verdict.kind,
      ...(verdict.reason ? { permissionDecisionReason: verdict.reason } : {}),
    },
  });
}

export const adapter: HookAdapter = {
  agent: 'qwen-code',
  label: 'Qwen Code',
  contextBeforeTool: false,
  timeoutSeconds: TIMEOUT_SECONDS,
  parse: events.parse,
  pre,
  post: events.post,
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
};

export const installer: HookInstaller = settingsInstaller(SETTINGS, (scope, place) =>
  resolve(scope === 'project' ? place.root : place.home, '.qwen', 'settings.json'),
);
