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
import { isAbsolute, resolve } from 'node:path';
import type {
  HookAdapter,
  HookEvent,
  HookReply,
  PostFeedback,
  PreVerdict,
  ProposedFile,
  ReviseInput,
} from '../adapter.js';
import { record, requiredText } from '../event-fields.js';
import { type HookInstaller, PROMPT_HOOK_TIMEOUT_SECONDS, promptHookLine } from '../install.js';
import { uniqueReplacement } from '../replacement.js';
import { promptContextReply, promptEvent } from '../session-note.js';
import { addHookGroups, findHookGroups, removeHookGroups, type SettingsHooks } from '../settings-hooks.js';
import { applyGeminiReplace, applyGeminiWriteFile } from './gemini-cli-edits.js';

export const GATED_TOOLS = ['replace', 'write_file'] as const;

/** Seconds Gemini CLI waits for the hook, as installed: long enough for a person on the review page. */
const TIMEOUT_SECONDS = 600;

function text(value: unknown, what: string): string {
  return requiredText(value, "Gemini CLI's hook event", what);
}

function proposedFile(tool: string, path: string, input: Record<string, unknown>): ProposedFile {
  if (tool === 'write_file') {
    const content = text(input.content, 'content');
    return { path, expected: (current) => applyGeminiWriteFile(current, content) };
  }
  const edit = {
    old_string: text(input.old_string, 'old_string'),
    new_string: text(input.new_string, 'new_string'),
    ...(input.allow_multiple === true ? { allow_multiple: true } : {}),
  };
  return { path, expected: (current) => applyGeminiReplace(path, current, edit) };
}

function parse(event: unknown): HookEvent {
  const body = record(event);
  const cwd = typeof body.cwd === 'string' ? body.cwd : process.cwd();
  const phase = body.hook_event_name;
  if (phase === 'BeforeAgent') return promptEvent(cwd, body.session_id);
  if (phase !== 'BeforeTool' && phase !== 'AfterTool') return { phase: 'other', cwd };
  const tool = text(body.tool_name, 'tool_name');
  if (!(GATED_TOOLS as readonly string[]).includes(tool)) {
    return phase === 'BeforeTool'
      ? { phase: 'pre', cwd, read: { kind: 'pass', why: `${tool} does not write files editgate gates` } }
      : { phase: 'post', cwd, read: { kind: 'pass' } };
  }
  const input = record(body.tool_input);
  const given = text(input.file_path, 'file_path');
  const path = isAbsolute(given) ? given : resolve(cwd, given);
  // No call id in Gemini CLI's events; its edit tools never run two at once, so session, tool and file
  // name one call (and still do when editgate rewrote the input, which keeps the file).
  const key = { session: text(body.session_id, 'session_id'), call: `${tool}\0${path}` };
  if (phase === 'AfterTool') {
    const response = record(body.tool_response);
    return {
      phase: 'post',
      cwd,
      read: { kind: 'settle', tool, key, paths: [path], ...(response.error ? { failed: true } : {}) },
    };
  }
  return {
    phase: 'pre',
    cwd,
    read: { kind: 'write', tool, key, input, files: [proposedFile(tool, path, input)] },
  };
}

/** The person's version back into the call: write_file takes the whole text, replace one unique replacement. */
const revise: ReviseInput = (input, files) => {
  const file = files[0];
  if (!file || files.length > 1) return { refuse: 'the call writes one file' };
  const before = file.before.replaceAll('\r\n', '\n');
  const approved = file.approved.replaceAll('\r\n', '\n');
  if (typeof input.content === 'string') return { ...input, content: approved };
  const replacement = uniqueReplacement(before, approved);
  if (!replacement) return { refuse: 'the file was empty, so there is no text to anchor an edit on' };
  // The whole input: Gemini CLI builds the call from exactly this object.
  return {
    file_path: input.file_path,
    instruction:
      typeof input.instruction === 'string' ? input.instruction : 'Apply the change the user approved.',
    old_string: replacement.old,
    new_string: replacement.new,
  };
};

function json(body: unknown): HookReply {
  return { stdout: `${JSON.stringify(body)}\n`, exitCode: 0 };
}

function pre(verdict: PreVerdict): HookReply {
  switch (verdict.kind) {
    case 'pass':
      return { stdout: '', exitCode: 0 };
    case 'deny':
      return json({ decision: 'deny', reason: verdict.reason });
    case 'ask':
      return json({ decision: 'ask', reason: verdict.reason, systemMessage: verdict.reason });
    case 'allow':
      return json({
        decision: 'allow',
        ...(verdict.reason ? { reason: verdict.reason } : {}),
        ...(verdict.context ? { systemMessage: verdict.context } : {}),
        ...(verdict.updatedInput ? { hookSpecificOutput: { tool_input: verdict.updatedInput } } : {}),
      });
  }
}

function post(feedback: PostFeedback): HookReply {
  if (!feedback.message) return { stdout: '', exitCode: 0 };
  return json({
    ...(feedback.matches ? {} : { systemMessage: feedback.message }),
    hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: feedback.message },
  });
}

export const adapter: HookAdapter = {
  agent: 'gemini-cli',
  label: 'Gemini CLI',
  contextBeforeTool: false,
  timeoutSeconds: TIMEOUT_SECONDS,
  parse,
  revise,
  pre,
  post,
  // BeforeAgent's additionalContext: Gemini CLI adds it to the prompt inside <hook_context>, its < and > escaped.
  prompt: (context) => promptContextReply('BeforeAgent', context),
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
  prompt: {
    event: 'BeforeAgent',
    entry: (command) => ({
      name: 'editgate-review-notes',
      type: 'command',
      command: promptHookLine(command),
      timeout: PROMPT_HOOK_TIMEOUT_SECONDS * 1000,
      description: "editgate: gives the model the reasons of the user's session review",
    }),
  },
};

export const installer: HookInstaller = {
  agent: 'gemini-cli',
  file(scope, place) {
    if (scope === 'project') return resolve(place.root, '.gemini', 'settings.json');
    return resolve(place.home, '.gemini', 'settings.json');
  },
  add: (before, command) => addHookGroups(SETTINGS, before, command),
  remove: (before) => removeHookGroups(SETTINGS, before),
  find: (text) => findHookGroups(SETTINGS, text),
  notes: () => [
    'Gemini CLI runs hooks only in folders it trusts; in a folder it does not trust, editgate is not asked.',
  ],
};
