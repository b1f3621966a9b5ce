import type { Protocol } from '../fake-models/protocol.js';
import type { ResolvedCall, ResolvedTurn, Turn } from '../fake-models/script.js';
import type { ModelRequest, ScriptedModel } from '../fake-models/server.js';
import type { AgentName } from '../installed.js';
import type { AgentCommand } from '../run-agent.js';
import type { AgentWorkspace } from '../workspace.js';

/**
 * One coding agent as the harness drives it: the protocol its model speaks, and how to run one prompt
 * non-interactively against the fake model, with or without editgate's MCP server configured. Each client
 * file says where its settings come from (the agent's docs or source) and what it turns off.
 */
export interface AgentClient {
  name: AgentName;
  /** As people call it: "Claude Code". */
  label: string;
  protocol: Protocol;
  /**
   * Writes the agent's configuration into the workspace's HOME (and the project) and returns the command
   * for one prompt. `mcp: false` configures no MCP server (the cold-start comparison, the agent's own
   * tools). `ownEdits`: the agent's own edit tools write without asking (each client sets its auto-edit mode).
   */
  prepare(options: {
    ownEdits?: boolean;
    /** For a terminal (runAgentInPty): the interactive session; the test types the prompt. */
    interactive?: boolean;
    workspace: AgentWorkspace;
    model: ScriptedModel;
    command: string;
    prompt: string;
    mcp: boolean;
  }): AgentCommand;
  /**
   * Turns the model must take before it can call editgate's tools (Claude Code lists MCP tools by name only
   * until the model loads them with its ToolSearch tool). Scripted sessions start with these.
   */
  preamble?: Turn[];
  /**
   * editgate tools this agent does not offer its model in the mode the harness runs it, each with the
   * reason. The session checks that exactly these are missing, so a change in the agent shows up.
   */
  hiddenTools?: Record<string, string>;
  /** How the model calls a deferred tool once loaded (see ScriptedModelOptions.wrapCall). */
  wrapCall?: (call: ResolvedCall) => ResolvedCall;
  /** Which model requests are the main loop's (default: those offering an editgate tool). */
  isMain?: (request: ModelRequest) => boolean;
  /** The answer to the agent's other requests (default "OK"). */
  sideTurn?: (request: ModelRequest) => ResolvedTurn;
}
