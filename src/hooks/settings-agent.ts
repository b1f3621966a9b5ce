/**
 * A settings-file agent: one whose hooks are command entries in a JSON settings file (settings-hooks.ts). The
 * installer is the same for all of them (Claude Code, Gemini CLI, Qwen Code), but for where the file is.
 * Gemini CLI and Qwen Code (its fork) share more: the event `{ session_id, cwd, hook_event_name, tool_name,
 * tool_input, tool_response? }`, whose gated tools are `write_file` (the whole content) and an edit tool
 * (old_string, new_string, a flag to replace every occurrence), and the post-tool answer. What stays each
 * agent's own: its event names, how a call is known, how its tools write (its *-edits.ts), and the pre-tool
 * answer.
 */
import { isAbsolute, resolve } from 'node:path';
import type { HookEvent, HookReply, PostFeedback, ProposedFile } from './adapter.js';
import { record, requiredText } from './event-fields.js';
import type { HookInstaller, InstallPlace, InstallScope } from './install.js';
import { jsonReply, NO_REPLY, notGated } from './replies.js';
import { addHookGroups, findHookGroups, removeHookGroups, type SettingsHooks } from './settings-hooks.js';

/** The installer of editgate's hook groups in the settings file at `file`. */
export function settingsInstaller(
  spec: SettingsHooks,
  file: (scope: InstallScope, place: InstallPlace) => string,
  notes?: HookInstaller['notes'],
): HookInstaller {
  return {
    agent: spec.agent,
    file,
    add: (before, command) => addHookGroups(spec, before, command),
    remove: (before) => removeHookGroups(spec, before),
    find: (text) => findHookGroups(spec, text),
    ...(notes ? { notes } : {}),
  };
}

/** An edit tool's old and new text, and its flag to replace every occurrence when set. */
export type OldNewEdit<Every extends string> = { old_string: string; new_string: string } & {
  [flag in Every]?: boolean;
};

/** A field of the event read as required text (the error names whose event lacks it). */
export type EventText = (value: unknown, what: string) => string;

export interface ToolEventAgent<Every extends string> {
  /** As people name it: errors say "<label>'s hook event has no <field>". */
  label: string;
  /** Its names of the pre-tool and post-tool events. */
  events: { pre: string; post: string };
  /** Its edit tool (old and new text): the name, its replace-every flag, and the bytes it leaves. */
  edit: {
    tool: string;
    every: Every;
    apply(path: string, current: Buffer | null, edit: OldNewEdit<Every>): Buffer;
  };
  /** The bytes its `write_file` leaves. */
  writeFile(path: string, current: Buffer | null, content: string): Buffer;
  /** The call's id across its pre- and post-tool events. */
  callId(body: Record<string, unknown>, tool: string, path: string, text: EventText): string;
  /** The post-tool event says the tool failed (absent: the agent does not say). */
  toolFailed?(body: Record<string, unknown>): boolean;
}

/** Reading and answering the events of a Gemini CLI-shaped agent. */
export function toolEventAgent<Every extends string>(agent: ToolEventAgent<Every>) {
  const gatedTools: readonly string[] = [agent.edit.tool, 'write_file'];

  const text: EventText = (value, what) => requiredText(value, `${agent.label}'s hook event`, what);

  function proposedFile(tool: string, path: string, input: Record<string, unknown>): ProposedFile {
    if (tool === 'write_file') {
      const content = text(input.content, 'content');
      return { path, expected: (current) => agent.writeFile(path, current, content) };
    }
    const edit = {
      old_string: text(input.old_string, 'old_string'),
      new_string: text(input.new_string, 'new_string'),
      ...(input[agent.edit.every] === true ? { [agent.edit.every]: true } : {}),
    } as OldNewEdit<Every>;
    return { path, expected: (current) => agent.edit.apply(path, current, edit) };
  }

  function parse(event: unknown): HookEvent {
    const body = record(event);
    const cwd = typeof body.cwd === 'string' ? body.cwd : process.cwd();
    const phase = body.hook_event_name;
    if (phase !== agent.events.pre && phase !== agent.events.post) return { phase: 'other', cwd };
    const tool = text(body.tool_name, 'tool_name');
    if (!gatedTools.includes(tool)) return notGated(phase === agent.events.pre ? 'pre' : 'post', cwd, tool);
    const input = record(body.tool_input);
    const given = text(input.file_path, 'file_path');
    const path = isAbsolute(given) ? given : resolve(cwd, given);
    const key = { session: text(body.session_id, 'session_id'), call: agent.callId(body, tool, path, text) };
    if (phase === agent.events.post) {
      const failed = agent.toolFailed?.(body) === true;
      return {
        phase: 'post',
        cwd,
        read: { kind: 'settle', tool, key, paths: [path], ...(failed ? { failed } : {}) },
      };
    }
    return {
      phase: 'pre',
      cwd,
      read: { kind: 'write', tool, key, input, files: [proposedFile(tool, path, input)] },
    };
  }

  /** After the tool: what settle found is added to the result the model reads, and shown when it differs. */
  function post(feedback: PostFeedback): HookReply {
    if (!feedback.message) return NO_REPLY;
    return jsonReply({
      ...(feedback.matches ? {} : { systemMessage: feedback.message }),
      hookSpecificOutput: { hookEventName: agent.events.post, additionalContext: feedback.message },
    });
  }

  return { gatedTools, parse, post };
}
