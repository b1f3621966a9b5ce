import { describeCall, type EditTools } from '../../tools/index.js';
import type { AgentTool } from './agent-tool.js';

/**
 * editgate's own file tools as chat tools: every call goes through `tools.execute`, so through the same
 * gate as every other front end (preview, policy, session grants, hooks, stale check, audit, undo).
 */
export function editKit(tools: EditTools): AgentTool[] {
  return tools.definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    changes: !definition.annotations.readOnlyHint,
    // The tool itself says what a call is about (its paths, a patch's every file), never a guess.
    target: (input) => describeCall(definition.name, input).paths.join(', '),
    paths: (input) => describeCall(definition.name, input).paths,
    async run(input, { signal }) {
      // An interrupt cancels the call: a question still open is withdrawn, and a write not yet renamed into
      // place writes nothing (CANCELLED); a rename that has happened stands (a write is never cut midway).
      const result = await tools.execute(definition.name, input, { signal });
      if (!result.ok) {
        return { ok: false, code: result.code, message: result.message, summary: `✗ ${result.code}` };
      }
      return { ok: true, message: result.message, summary: summarise(definition.name, result.details) };
    },
  }));
}

function summarise(tool: string, details: Record<string, unknown>): string {
  if (tool === 'read_file') {
    const total = details.lines;
    const first = details.firstLine;
    const last = details.lastLine;
    if (typeof total !== 'number') return 'read';
    if (typeof first === 'number' && typeof last === 'number' && (first > 1 || last < total))
      return `lines ${first}-${last} of ${total}`;
    return `${total} ${total === 1 ? 'line' : 'lines'}`;
  }
  if (details.written === false) return 'no change';
  const added = details.added;
  const removed = details.removed;
  return typeof added === 'number' && typeof removed === 'number' ? `+${added} -${removed}` : 'done';
}
