/**
 * OpenCode (1.18.33) has no command hooks: its plugins do that work, JavaScript modules it loads from
 * `plugins/` in its config folders, with `tool.execute.before` (gets the call's input as a mutable
 * `output.args`; a throw fails the call and the model reads the message) and `tool.execute.after` (the
 * result's `output.output`, mutable, fired only when the tool succeeded). editgate installs a small plugin
 * (opencode-plugin.ts) that runs `editgate hook opencode` for each gated call and sends it the call as JSON:
 *
 *   { hook_event_name: "tool.execute.before" | "tool.execute.after", session_id, call_id, tool, args, cwd }
 *
 * and this adapter answers as JSON: `{ decision: "pass" | "allow" | "deny", reason?, args?, context? }`
 * before, `{ decision: "pass", message? }` after. OpenCode's plugins cannot hand a question to its own
 * permission prompt, so editgate's "ask" (mode agent) is a refusal saying to use the review page.
 *
 * Gated: `edit` and `write` (opencode-edits.ts), and `apply_patch` (offered to GPT models instead of both;
 * `{ patchText }`), read as Codex's apply_patch is (codex-patch.ts: a patch passes only where OpenCode's
 * first-match, looser reading and editgate's exactly-once reading give the same bytes; opencode-patch.ts
 * refuses the framing OpenCode's parser reads otherwise). Every other tool passes: OpenCode's own
 * permission settings decide.
 */
import { isAbsolute, join, resolve } from 'node:path';
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
import type { HookInstaller } from '../install.js';
import { lfReplacement, onlyRevisedFile } from '../replacement.js';
import { jsonReply, notGated, promptEvent } from '../replies.js';
import { patchEvent, patchFiles, patchOfApproved } from './codex-patch.js';
import { applyOpenCodeEdit, applyOpenCodeWrite } from './opencode-edits.js';
import { openCodePatchProblem } from './opencode-patch.js';
import { PLUGIN_MARKER, pluginSource } from './opencode-plugin.js';

export const GATED_TOOLS = ['edit', 'write', 'apply_patch'] as const;
const PATCH_TOOL = 'apply_patch';

/** Seconds the plugin waits for the hook: long enough for a person on the review page. */
const TIMEOUT_SECONDS = 600;

const BEFORE = 'tool.execute.before';
const AFTER = 'tool.execute.after';
/** The plugin's prompt-time event: a person's message, before the model reads it. */
const PROMPT = 'chat.message';

function text(value: unknown, what: string): string {
  return requiredText(value, "OpenCode's plugin event", what);
}

/** The files an apply_patch call writes (OpenCode's bytes, agreed with editgate's), or a refusal. */
function patchedFiles(input: Record<string, unknown>, cwd: string): ProposedFile[] | { refuse: string } {
  const patch = text(input.patchText, 'patchText');
  const problem = openCodePatchProblem(patch);
  return problem ? { refuse: problem } : patchFiles(patch, cwd, 'OpenCode');
}

function proposedFile(tool: string, path: string, input: Record<string, unknown>): ProposedFile {
  if (tool === 'write') {
    const content = text(input.content, 'content');
    return { path, expected: (current) => applyOpenCodeWrite(current, content) };
  }
  const edit = {
    oldString: text(input.oldString, 'oldString'),
    newString: text(input.newString, 'newString'),
    ...(input.replaceAll === true ? { replaceAll: true } : {}),
  };
  return { path, expected: (current) => applyOpenCodeEdit(path, current, edit) };
}

function parse(event: unknown): HookEvent {
  const body = record(event);
  const cwd = typeof body.cwd === 'string' ? body.cwd : process.cwd();
  const phase = body.hook_event_name;
  if (phase === PROMPT) return promptEvent(cwd, body.session_id);
  if (phase !== BEFORE && phase !== AFTER) return { phase: 'other', cwd };
  const tool = text(body.tool, 'tool');
  if (!(GATED_TOOLS as readonly string[]).includes(tool))
    return notGated(phase === BEFORE ? 'pre' : 'post', cwd, tool);
  const input = record(body.args);
  const key = { session: text(body.session_id, 'session_id'), call: text(body.call_id, 'call_id') };
  if (tool === PATCH_TOOL)
    return patchEvent(phase === AFTER ? 'post' : 'pre', { cwd, tool, key, input }, patchedFiles(input, cwd));
  const given = text(input.filePath, 'filePath');
  const path = isAbsolute(given) ? given : join(cwd, given);
  if (phase === AFTER) return { phase: 'post', cwd, read: { kind: 'settle', tool, key, paths: [path] } };
  return {
    phase: 'pre',
    cwd,
    read: { kind: 'write', tool, key, input, files: [proposedFile(tool, path, input)] },
  };
}

/**
 * The person's version back into the call: write takes the whole text, edit one unique replacement,
 * apply_patch a patch of each file whole (codex-patch.ts patchOfApproved).
 */
const revise: ReviseInput = (input, files) => {
  if (typeof input.patchText === 'string') {
    const patch = patchOfApproved(input.patchText, files, 'OpenCode');
    return typeof patch === 'string' ? { patchText: patch } : patch;
  }
  const file = onlyRevisedFile(files);
  if ('refuse' in file) return file;
  if (typeof input.content === 'string') return { ...input, content: file.approved };
  // OpenCode gives old and new text the file's own line ends, so LF text matches a CRLF file too.
  const replacement = lfReplacement(file);
  if ('refuse' in replacement) return replacement;
  return { filePath: input.filePath, oldString: replacement.old, newString: replacement.new };
};

function pre(verdict: PreVerdict): HookReply {
  switch (verdict.kind) {
    case 'pass':
      return jsonReply({ decision: 'pass' });
    case 'deny':
      return jsonReply({ decision: 'deny', reason: verdict.reason });
    case 'ask':
      return jsonReply({
        decision: 'deny',
        reason: `${verdict.reason} OpenCode's plugins cannot ask you in its own prompt, so nothing was written: install editgate's hook for OpenCode with --approve web (the review page asks) or add a policy rule.`,
      });
    case 'allow':
      return jsonReply({
        decision: 'allow',
        ...(verdict.reason ? { reason: verdict.reason } : {}),
        ...(verdict.updatedInput ? { args: verdict.updatedInput } : {}),
        ...(verdict.context ? { context: verdict.context } : {}),
      });
  }
}

function post(feedback: PostFeedback): HookReply {
  return jsonReply({ decision: 'pass', ...(feedback.message ? { message: feedback.message } : {}) });
}

export const adapter: HookAdapter = {
  agent: 'opencode',
  label: 'OpenCode',
  contextBeforeTool: true,
  timeoutSeconds: TIMEOUT_SECONDS,
  parse,
  revise,
  pre,
  post,
  // The plugin adds `context` to the person's message (its text part), which the model reads with it.
  prompt: (context) => jsonReply({ decision: 'pass', ...(context ? { context } : {}) }),
  // The plugin throws the reason: OpenCode fails the call and the model reads it.
  failed: (reason) => pre({ kind: 'deny', reason }),
};

/** Whether a plugin file is editgate's (its first line), so a file of the person's own is never replaced. */
function isOurs(text: string): boolean {
  return text.startsWith(PLUGIN_MARKER);
}

export const installer: HookInstaller = {
  agent: 'opencode',
  file(scope, place) {
    if (scope === 'project') return resolve(place.root, '.opencode', 'plugins', 'editgate.js');
    const config = place.env.XDG_CONFIG_HOME || join(place.home, '.config');
    return resolve(config, 'opencode', 'plugins', 'editgate.js');
  },
  add(before, command) {
    if (before !== undefined && before.trim() !== '' && !isOurs(before))
      throw new Error(
        "that file is not editgate's plugin (its first line is not editgate's); move it away or rename it, then run the command again",
      );
    const after = pluginSource({
      argv: command.nodeArgv,
      ...(command.identityFile ? { identityFile: command.identityFile } : {}),
      timeoutMs: command.timeoutSeconds * 1000,
      tools: GATED_TOOLS,
    });
    return after === before ? before : after;
  },
  // The whole file is editgate's: nothing is left of value.
  remove: () => undefined,
  find: (text) =>
    isOurs(text)
      ? [
          'plugin: asks editgate before edit, write and apply_patch',
          ...(text.includes('"chat.message"')
            ? ["plugin: gives the model a session review's reasons with your next message (chat.message)"]
            : []),
        ]
      : [],
  notes: () => [
    'OpenCode installs its plugin library (@opencode-ai/plugin) into the config folder on its next start, once; that needs the network.',
  ],
};
