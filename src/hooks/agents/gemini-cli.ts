/**
 * Gemini CLI's hooks (0.61.0, read from its bundle: packages/core hooks/ and scheduler/): command hooks in
 * settings.json under `hooks.BeforeTool` / `hooks.AfterTool`, a `matcher` that is a regular expression over
 * tool names, `timeout` in milliseconds (default 60 000). The event comes as JSON on standard input
 * (`{ session_id, cwd, hook_event_name, tool_name, tool_input, tool_response? }`: no tool-call id) and the
 * answer as JSON on standard output:
 *
 *   BeforeTool  `decision: "deny"` with `reason`: the tool does not run and the model reads "Tool execution
 *               blocked: <reason>"; `decision: "ask"` makes Gemini CLI ask its person even in auto-edit mode;
 *               `hookSpecificOutput.tool_input` replaces the tool's input (the whole of it: the scheduler
 *               builds the call anew from it) and Gemini CLI tells the model which fields a hook changed.
 *   AfterTool   `hookSpecificOutput.additionalContext` is added to the result the model reads;
 *               `systemMessage` is shown to the person.
 *
 * Gemini CLI lets the tool run when a hook fails (exit code 1, a time-out, output that is not JSON), so the
 * runner answers every failure with a deny, within the time-out installed here. Edit tools run one at a
 * time, and the events carry no call id, so a call is known by its session, tool and file.
 *
 * Gated: `replace` and `write_file` (gemini-cli-edits.ts). Every other tool passes (no answer): Gemini CLI's
 * own approval mode decides. Gemini CLI runs no hooks at all in a folder it does not trust.
 */
import { resolve } from 'node:path';
import type { HookAdapter, HookReply, PreVerdict, ReviseInput } from '../adapter.js';
import { record } from '../event-fields.js';
import type { HookInstaller } from '../install.js';
import { lfReplacement, lfText, onlyRevisedFile } from '../replacement.js';
import { jsonReply, NO_REPLY } from '../replies.js';
import { settingsInstaller, toolEventAgent } from '../settings-agent.js';
import type { SettingsHooks } from '../settings-hooks.js';
import { applyGeminiReplace, applyGeminiWriteFile } from './gemini-cli-edits.js';

/** Seconds Gemini CLI waits for the hook, as installed: long enough for a person on the review page. */
const TIMEOUT_SECONDS = 600;

const events = toolEventAgent({
  label: 'Gemini CLI',
  events: { pre: 'BeforeTool', post: 'AfterTool' },
  edit: { tool: 'replace', every: 'allow_multiple', apply: applyGeminiReplace },
  writeFile: (_path, current, content) => applyGeminiWriteFile(current, content),
  // No call id in Gemini CLI's events; its edit tools never run two at once, so session, tool and file
  // name one call (and still do when editgate rewrote the input, which keeps the file).
  callId: (_body, tool, path) => `${tool}\0${path}`,
  toolFailed: (body) => Boolean(record(body.tool_response).error),
});

export const GATED_TOOLS = events.gatedTools;

/** The person's version back into the call: write_file takes the whole text, replace one unique replacement. */
const revise: ReviseInput = (input, files) => {
  const file = onlyRevisedFile(files);
  if ('refuse' in file) return file;
  if (typeof input.content === 'string') return { ...input, content: lfText(file.approved) };
  const replacement = lfReplacement(file);
  if ('refuse' in replacement) return replacement;
  // The whole input: Gemini CLI builds the call from exactly this object.
  return {
    file_path: input.file_path,
    instruction:
      typeof input.instruction === 'string' ? input.instruction : 'Apply the change the user approved.',
    old_string: replacement.old,
    new_string: replacement.new,
  };
};

function pre(verdict: PreVerdict): HookReply {
  switch (verdict.kind) {
    case 'pass':
      return NO_REPLY;
    case 'deny':
      return jsonReply({ decision: 'deny', reason: verdict.reason });
    case 'ask':
      return jsonReply({ decision: 'ask', reason: verdict.reason, systemMessage: verdict.reason });
    case 'allow':
      return jsonReply({
        decision: 'allow',
        ...(verdict.reason ? { reason: verdict.reason } : {}),
        ...(verdict.context ? { systemMessage: verdict.context } : {}),
        ...(verdict.updatedInput ? { hookSpecificOutput: { tool_input: verdict.updatedInput } } : {}),
      });
  }
}

export const adapter: HookAdapter = {
  agent: 'gemini-cli',
  label: 'Gemini CLI',
  contextBeforeTool: false,
  timeoutSeconds: TIMEOUT_SECONDS,
  parse: events.parse,
  revise,
  pre,
  post: events.post,
  // A deny the model reads, with exit code 2 as well: Gemini CLI blocks on it even if standard output
  // were lost.
  failed: (reason) => ({ ...pre({ kind: 'deny', reason }), stderr: `${reason}\n`, exitCode: 2 }),
};

export const SETTINGS: SettingsHooks = {
  agent: 'gemini-cli',
  events: ['BeforeTool', 'AfterTool'],
  matcher: `^(${GATED_TOOLS.join('|')})$`,
  entry: ({ line, timeoutSeconds }) => ({
    name: 'editgate',
    type: 'command',
    command: line,
    // Gemini CLI's unit is milliseconds.
    timeout: timeoutSeconds * 1000,
    description: 'editgate: policy, review and audit for replace and write_file',
  }),
};

export const installer: HookInstaller = settingsInstaller(
  SETTINGS,
  (scope, place) => resolve(scope === 'project' ? place.root : place.home, '.gemini', 'settings.json'),
  () => [
    'Gemini CLI runs hooks only in folders it trusts; in a folder it does not trust, editgate is not asked.',
  ],
);
