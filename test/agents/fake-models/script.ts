/**
 * What a scripted fake model says, whichever protocol carries it. A script is a list of turns; the n-th
 * request of the agent's main loop (a request that offers editgate's tools) is answered with the n-th turn.
 * A call names editgate's tool as editgate names it (`read_file`); the server finds the name the agent gave
 * it (`mcp__editgate__read_file` in Claude Code, `editgate_read_file` in OpenCode...) in the request's tools.
 */
export interface ScriptedCall {
  /** editgate's name for the tool (read_file, edit_file...), or with `exact`, the agent's own tool name. */
  tool: string;
  input: Record<string, unknown>;
  /** Use `tool` as it is, without looking for editgate's prefixed name (for an agent's own tools). */
  exact?: boolean;
}

export type Turn = { say: string } | { call: ScriptedCall[] };

/** A call with the tool name the agent offered and an id for the protocol's call/result pairing. */
export interface ResolvedCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A turn as the protocol encoders take it: text, or calls whose names are the agent's own. */
export interface ResolvedTurn {
  text?: string;
  calls?: ResolvedCall[];
}

/** editgate's MCP tools (apply_change exists in preview mode only). */
export const EDITGATE_TOOL_NAMES = [
  'read_file',
  'write_file',
  'edit_file',
  'multi_edit',
  'edit_lines',
  'apply_patch',
  'undo_edit',
  'apply_change',
];

/**
 * The names under which the request makes editgate's tools known to the model: in its tool list, or only
 * named in its text (Claude Code and Codex defer MCP tools behind a tool-search tool and list just their
 * names). A name counts when it mentions "editgate" and ends with one of editgate's tool names after a
 * separator (`mcp__editgate__read_file`, `editgate_read_file`, `editgate__read_file`...).
 */
export function editgateToolNames(body: unknown): string[] {
  const found = new Set<string>();
  // Every string in the body, decoded (a name inside a system prompt follows a "\n", not a letter n).
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(/[A-Za-z0-9_.-]*editgate[A-Za-z0-9_.-]*/gi)) {
        if (EDITGATE_TOOL_NAMES.some((tool) => isNameFor(tool, match[0]))) found.add(match[0]);
      }
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(body);
  return [...found];
}

/** Whether `name` is the agent's name for editgate's `tool`. */
function isNameFor(tool: string, name: string): boolean {
  return (
    name.endsWith(tool) &&
    /editgate/i.test(name.slice(0, -tool.length)) &&
    /[_.-]$/.test(name.slice(0, -tool.length))
  );
}

/** The agent's name for editgate's `tool` among `names`, if any. */
export function agentToolName(tool: string, names: string[]): string | undefined {
  return names.find((name) => isNameFor(tool, name));
}

/** Text pieces as a stream would carry them: word by word. */
export function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
