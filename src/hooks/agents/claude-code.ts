/**
 * Claude Code's hooks (2.1.332): a command hook gets the event as JSON on standard input
 * (`{ session_id, cwd, hook_event_name, tool_name, tool_input, tool_use_id, tool_response? }`) and answers
 * on standard output. PreToolUse: `hookSpecificOutput.permissionDecision` allow | deny | ask, with
 * `permissionDecisionReason` (shown to the model for deny, to the person for ask), `updatedInput` (the input
 * the tool runs with) and `additionalContext` (for the model). PostToolUse: `decision: "block"` with a
 * `reason` the model reads, and `systemMessage` the person sees. Exit code 2 blocks the tool whatever
 * standard output says; any other failure lets it run, so every failure here is answered as a deny.
 *
 * Gated: Edit, MultiEdit (still in this version), Write. NotebookEdit is refused with a reason: editgate
 * cannot yet show a notebook cell's change as the bytes written. Every other tool passes (no answer): Claude
 * Code's own permission rules decide.
 */
import { isAbsolute, resolve } from 'node:path';
import type {
  CallKey,
  HookAdapter,
  HookEvent,
  HookReply,
  PostFeedback,
  PreVerdict,
  ProposedFile,
  ReviseInput,
} from '../adapter.js';
import { record, requiredText } from '../event-fields.js';
import {
  type HookCommand,
  type HookInstaller,
  PROMPT_HOOK_TIMEOUT_SECONDS,
  promptHookLine,
} from '../install.js';
import { lfReplacement, lfText, onlyRevisedFile } from '../replacement.js';
import { jsonReply, NO_REPLY, notGated, promptContextReply, promptEvent } from '../replies.js';
import { settingsInstaller } from '../settings-agent.js';
import type { SettingsHooks } from '../settings-hooks.js';
import { applyClaudeEdits, type ClaudeEdit } from './claude-code-edits.js';

export const GATED_TOOLS = ['Edit', 'MultiEdit', 'Write', 'NotebookEdit'] as const;

/** Seconds Claude Code waits for the hook, as installed: long enough for a person on the review page. */
const TIMEOUT_SECONDS = 600;

interface ClaudeEvent {
  session_id?: unknown;
  cwd?: unknown;
  hook_event_name?: unknown;
  tool_name?: unknown;
  tool_input?: unknown;
  tool_use_id?: unknown;
  tool_response?: unknown;
}

function text(value: unknown, what: string): string {
  return requiredText(value, "Claude Code's hook event", what);
}

function edits(input: Record<string, unknown>): ClaudeEdit[] {
  const list = input.edits;
  if (!Array.isArray(list)) throw new Error('MultiEdit has no edits');
  return list.map((edit) => {
    const item = record(edit);
    return {
      old_string: text(item.old_string, 'old_string'),
      new_string: text(item.new_string, 'new_string'),
      ...(item.replace_all === true ? { replace_all: true } : {}),
    };
  });
}

function proposedFile(tool: string, path: string, input: Record<string, unknown>): ProposedFile {
  if (tool === 'Write') {
    const content = text(input.content, 'content');
    return { path, expected: () => Buffer.from(content, 'utf8') };
  }
  const list =
    tool === 'MultiEdit'
      ? edits(input)
      : [
          {
            old_string: text(input.old_string, 'old_string'),
            new_string: text(input.new_string, 'new_string'),
            ...(input.replace_all === true ? { replace_all: true } : {}),
          },
        ];
  return { path, expected: (current) => applyClaudeEdits(path, current, list) };
}

function parse(event: unknown): HookEvent {
  const body = record(event) as ClaudeEvent;
  const cwd = typeof body.cwd === 'string' ? body.cwd : process.cwd();
  const phase = body.hook_event_name;
  if (phase === 'UserPromptSubmit') return promptEvent(cwd, body.session_id);
  if (phase !== 'PreToolUse' && phase !== 'PostToolUse') return { phase: 'other', cwd };
  const tool = text(body.tool_name, 'tool_name');
  if (!(GATED_TOOLS as readonly string[]).includes(tool))
    return notGated(phase === 'PreToolUse' ? 'pre' : 'post', cwd, tool);
  const input = record(body.tool_input);
  const key: CallKey = {
    session: text(body.session_id, 'session_id'),
    call: text(body.tool_use_id, 'tool_use_id'),
  };
  const given = text(input.file_path ?? input.notebook_path, 'file_path');
  const path = isAbsolute(given) ? given : resolve(cwd, given);
  if (phase === 'PostToolUse')
    return { phase: 'post', cwd, read: { kind: 'settle', tool, key, paths: [path] } };
  if (tool === 'NotebookEdit') {
    return {
      phase: 'pre',
      cwd,
      read: {
        kind: 'refuse',
        reason: `editgate refuses NotebookEdit: it cannot show a notebook cell's change as the bytes that would be written, so nothing was changed in ${given}. Change the notebook's JSON with Edit instead (read it first), or ask the user to change it.`,
      },
    };
  }
  return {
    phase: 'pre',
    cwd,
    read: { kind: 'write', tool, key, input, files: [proposedFile(tool, path, input)] },
  };
}

/** The person's version back into the call: Write takes the whole text, Edit and MultiEdit one replacement. */
const revise: ReviseInput = (input, files) => {
  const file = onlyRevisedFile(files);
  if ('refuse' in file) return file;
  // Claude Code reads the file with LF line ends and writes its CRLF back itself.
  if (typeof input.content === 'string') return { ...input, content: lfText(file.approved) };
  const replacement = lfReplacement(file);
  if ('refuse' in replacement) return replacement;
  const edit = { old_string: replacement.old, new_string: replacement.new };
  if (Array.isArray(input.edits)) return { file_path: input.file_path, edits: [edit] };
  return { file_path: input.file_path, ...edit };
};

function pre(verdict: PreVerdict): HookReply {
  if (verdict.kind === 'pass') return NO_REPLY;
  const output: Record<string, unknown> = {
    hookEventName: 'PreToolUse',
    permissionDecision: verdict.kind,
  };
  if (verdict.kind !== 'allow' || verdict.reason) output.permissionDecisionReason = verdict.reason;
  if (verdict.kind === 'allow') {
    if (verdict.updatedInput) output.updatedInput = verdict.updatedInput;
    if (verdict.context) output.additionalContext = verdict.context;
  }
  return jsonReply({ hookSpecificOutput: output });
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
  agent: 'claude-code',
  label: 'Claude Code',
  contextBeforeTool: true,
  timeoutSeconds: TIMEOUT_SECONDS,
  parse,
  revise,
  pre,
  post,
  prompt: (context) => promptContextReply('UserPromptSubmit', context),
  // A deny the model reads. (Exit code 2 would block too, but reaches the model only as stderr.)
  failed: (reason) => pre({ kind: 'deny', reason }),
  // A prompt's block drops the prompt before the model sees it, and shows the reason. At a session's start
  // Claude Code 2.1.332 reads `continue: false` and goes on all the same (the real-agent test): the person is
  // shown the reason there, and every prompt is blocked.
  stopBeforeActing: (reason, at) =>
    jsonReply(
      at === 'prompt'
        ? { decision: 'block', reason }
        : { continue: false, stopReason: reason, systemMessage: reason },
    ),
};

/**
 * Where the edit hooks post to the loopback endpoint, the session's start and each prompt first prove that
 * editgate's server is what listens there (cli/hook-endpoint.ts endpointHolder); both are command hooks,
 * which reach the server over its socket.
 */
function endpointChecked(line: string, command: HookCommand): string {
  return command.http ? `${line} --check-endpoint` : line;
}

/** What Claude Code's spinner says while the hook runs. */
function statusMessage(command: HookCommand): string {
  return command.approve === 'web'
    ? 'editgate: waiting for your answer on the review page'
    : 'editgate: checking the change';
}

/** The command hook: Claude Code runs it through a shell, which runs editgate's shell entry. */
function commandEntry(command: HookCommand): Record<string, unknown> {
  return {
    type: 'command',
    command: command.line,
    timeout: command.timeoutSeconds,
    // Claude Code counts a hook that crashes or times out as a block: fail closed even then.
    ...(command.failOpen ? {} : { onFailure: 'block' }),
    statusMessage: statusMessage(command),
  };
}

/**
 * editgate's groups in settings.json: both tool events, the gated tools as one regular expression. Where the
 * command has the hook server's loopback endpoint (user settings), the tool events are http hooks: Claude
 * Code posts the event to the running server itself, so an edit starts no process. A failed post (nothing
 * listens, a time-out, an answer other than 2xx, a body that is not a hook's JSON) counts as a block with
 * `onFailure: "block"`, as a crashed command hook does (checked in 2.1.332's source and by the real-agent
 * tests). SessionStart runs the command hook, which starts the server (and waits for it) when none runs,
 * so the first edit finds it; SessionEnd lets it end when idle. UserPromptSubmit (every prompt) gives the
 * model a session review's reasons.
 */
export const SETTINGS: SettingsHooks = {
  agent: 'claude-code',
  events: ['PreToolUse', 'PostToolUse'],
  matcher: GATED_TOOLS.join('|'),
  entry: (command) =>
    command.http
      ? {
          type: 'http',
          url: command.http.url,
          headers: { Authorization: `Bearer ${command.http.token}` },
          timeout: command.timeoutSeconds,
          ...(command.failOpen ? {} : { onFailure: 'block' }),
          statusMessage: statusMessage(command),
        }
      : commandEntry(command),
  session: {
    events: ['SessionStart', 'SessionEnd'],
    entry: (command) => {
      const { onFailure: _, statusMessage: __, ...entry } = commandEntry(command);
      return { ...entry, command: endpointChecked(command.line, command), timeout: 60 };
    },
  },
  // A command hook with no onFailure "block": a prompt hook that fails lets the prompt go on.
  prompt: {
    event: 'UserPromptSubmit',
    entry: (command) => ({
      type: 'command',
      command: endpointChecked(promptHookLine(command), command),
      timeout: PROMPT_HOOK_TIMEOUT_SECONDS,
    }),
  },
};

export const installer: HookInstaller = {
  ...settingsInstaller(SETTINGS, (scope, place) => {
    if (scope === 'project') return resolve(place.root, '.claude', 'settings.json');
    const configDir = place.env.CLAUDE_CONFIG_DIR || resolve(place.home, '.claude');
    return resolve(configDir, 'settings.json');
  }),
  httpHooks: true,
};
