import { changeDetailsOf, changedLines, readDetails } from '../../tools/details.js';
import { describeCall, type EditTools } from '../../tools/index.js';
import type { ToolSuccess } from '../../tools/result.js';
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
        return {
          ok: false,
          code: result.code,
          message: result.message,
          happened: result.happened,
          summary: `✗ ${result.code}`,
        };
      }
      return { ok: true, message: result.message, summary: summarise(definition.name, result) };
    },
  }));
}

/** The few words of a tool line, from the tool's typed details. */
function summarise(tool: string, result: ToolSuccess): string {
  if (tool === 'read_file') {
    const { lines: total, firstLine: first, lastLine: last } = readDetails(result);
    if (first !== undefined && last !== undefined && (first > 1 || last < total))
      return `lines ${first}-${last} of ${total}`;
    return `${total} ${total === 1 ? 'line' : 'lines'}`;
  }
  const details = changeDetailsOf(tool, result);
  if (!details) return 'done';
  if (!details.written) return 'no change';
  const { added, removed } = changedLines(details);
  return `+${added} -${removed}`;
}
