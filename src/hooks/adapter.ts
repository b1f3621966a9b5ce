/**
 * What one coding agent's hooks look like to editgate: an adapter reads the agent's hook event (its JSON on
 * standard input) and writes editgate's answer in the agent's own protocol. Everything between the two (the
 * config, the gate, the person, the audit line, the state carried from the pre-tool event to the post-tool
 * event) is the runner's (runner.ts), the same for every agent. src/hooks/README.md says how an adapter
 * plugs in.
 */

/** The agents editgate has hooks for; `editgate hook <agent>` and `editgate hooks install <agent>` name them. */
export type AgentId = 'claude-code' | 'codex' | 'gemini-cli' | 'qwen-code' | 'opencode';

/**
 * One file a tool call will write, worked out with the tool's own semantics. `expected` gets the file's bytes
 * as they are when the gate reads it (null: no file) and returns the bytes the tool will leave. It throws an
 * EditgateError when the tool would fail on those bytes (its old text not found, found twice...): the gate
 * refuses the call with that message rather than guess. `delete`: the tool removes the file. `movedFrom`: the
 * file a move writes, from the bytes of the one it removes.
 */
export type ProposedFile =
  | { path: string; expected(current: Buffer | null): Buffer }
  | { path: string; delete: true }
  /**
   * The new path of a move: the tool writes `moved(source)` here, from the bytes of the file it moves
   * (`movedFrom`, a `delete` of the same call listed before it), replacing whatever is here. The two are one
   * change set: approved, refused and undone together.
   */
  | { path: string; movedFrom: string; moved(source: Buffer): Buffer };

/**
 * The call's identity across the pre- and post-tool processes, the state between them keyed by it: the agent's
 * session (conversation) id and its id of this tool call (the pre and post events carry the same one).
 */
export type { CallKey } from '../tools/kept-approval.js';

import type { CallKey } from '../tools/kept-approval.js';

/** What an adapter makes of a pre-tool event. */
export type PreToolRead =
  /** Not a write editgate gates (a read, a search, a tool of another kind): the agent's own rules apply. */
  | { kind: 'pass'; why: string }
  /**
   * A write editgate cannot work out faithfully (a notebook, a patch whose reading is ambiguous): refused,
   * and the reason tells the model what to do instead.
   */
  | { kind: 'refuse'; reason: string }
  | {
      kind: 'write';
      /** The agent's tool name, as the audit line and policy rules see it ("Edit", "apply_patch"). */
      tool: string;
      key: CallKey;
      files: ProposedFile[];
      input: Record<string, unknown>;
    };

/** What an adapter makes of a post-tool event: a call whose write is to be settled, or nothing to do. */
export type PostToolRead =
  | { kind: 'pass' }
  | {
      kind: 'settle';
      tool: string;
      key: CallKey;
      /** The absolute paths the tool was to write, for a call the pre-tool hook never saw. */
      paths: string[];
      /** The tool reported failure: it wrote nothing (settle still checks). */
      failed?: boolean;
    };

/** A hook event as an adapter reads it. `cwd` is the agent's working folder (the root when none is given). */
export type HookEvent =
  | { phase: 'pre'; cwd: string; read: PreToolRead }
  | { phase: 'post'; cwd: string; read: PostToolRead }
  /**
   * The person submitted a prompt (the agent's prompt-time hook: Claude Code's and Codex's and Qwen Code's
   * UserPromptSubmit, Gemini CLI's BeforeAgent, OpenCode's chat.message): the moment a session review's
   * reasons reach the model (session-note.ts). `session` is the agent's session id (absent: it sent none).
   */
  | { phase: 'prompt'; cwd: string; session?: string }
  /** An event this adapter has nothing to do with (the agent sent another hook event to it). */
  | { phase: 'other'; cwd: string };

/** One file as the person's decision left it: what the tool may write now, when it is not what it asked. */
export interface RevisedFile {
  path: string;
  /** The file's text when the gate read it. */
  before: string;
  /** What the tool proposed. */
  proposed: string;
  /** What the person approved instead (their own version, or the hunks they took). */
  approved: string;
}

/**
 * editgate's answer to a pre-tool event, before the adapter words it.
 *   pass   say nothing: the agent's own permission rules decide (a tool editgate does not gate)
 *   allow  let the call run; `updatedInput` replaces the tool's input (the person changed the text), and
 *          `context` tells the model what changed
 *   deny   refuse; `reason` reaches the model
 *   ask    the agent asks its person itself (mode agent); `reason` is what editgate found, shown with it
 */
export type PreVerdict =
  | { kind: 'pass' }
  | { kind: 'allow'; reason?: string; updatedInput?: Record<string, unknown>; context?: string }
  | { kind: 'deny'; reason: string }
  | { kind: 'ask'; reason: string };

/** What settle found after the tool wrote, before the adapter words it. */
export interface PostFeedback {
  /** Every file the tool was to write is byte for byte what was approved (or nothing was approved). */
  matches: boolean;
  /** For the model (and the person, where the agent shows it): what differs and what editgate did. */
  message?: string;
}

/** The hook process's answer: what it writes to standard output and standard error, and its exit code. */
export interface HookReply {
  stdout: string;
  stderr?: string;
  exitCode: number;
}

/**
 * The person's version carried back into the tool's input. Returns the input the tool must run with, or
 * `{ refuse }` when the tool's input cannot carry it (then the runner denies, with the person's version in
 * the reason).
 */
export type ReviseInput = (
  input: Record<string, unknown>,
  files: RevisedFile[],
) => Record<string, unknown> | { refuse: string };

export interface HookAdapter {
  agent: AgentId;
  /** As people name it: "Claude Code". The audit line's writer. */
  label: string;
  /**
   * The pre-tool answer's `context` reaches the model (Claude Code's additionalContext; OpenCode's plugin
   * adds it to the tool's result). false: the agent drops it there (Gemini CLI and Qwen Code read
   * additionalContext only after the tool; Codex takes a pre-tool answer only with a new input), so the
   * runner keeps it with the approval and the post-tool answer says it.
   */
  contextBeforeTool: boolean;
  /**
   * Seconds the agent waits for a hook before giving up on it, as `editgate hooks install` configures it.
   * The runner answers (deny, unless failing open) before this runs out: a hook never blocks past it.
   */
  timeoutSeconds: number;
  /** Reads the agent's event JSON (already parsed). Throws an Error with a clear message when it is not one. */
  parse(event: unknown): HookEvent;
  /** The person's version back into the tool's input (absent: the agent has no way to carry it). */
  revise?: ReviseInput;
  /** Words a pre-tool verdict in the agent's protocol. */
  pre(verdict: PreVerdict): HookReply;
  /** Words what settle found in the agent's protocol. */
  post(feedback: PostFeedback): HookReply;
  /**
   * The prompt-time answer: `context` added to what the model reads with the person's prompt (undefined:
   * nothing to add). Always a pass, exit code 0: a prompt hook never blocks the person's prompt.
   */
  prompt(context: string | undefined): HookReply;
  /**
   * The answer when the hook itself failed (a crash, a time-out, a page it could not reach), in the way
   * that stops the tool where the agent allows it: fail closed.
   */
  failed(reason: string): HookReply;
  /**
   * The answer that stops the agent before it acts, at its session's start or at a prompt (the prompt is
   * not run), with the reason shown to the person. Absent: the agent has no such answer.
   */
  stopBeforeActing?(reason: string, at: 'session-start' | 'prompt'): HookReply;
}
