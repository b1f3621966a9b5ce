import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { EditTools } from '../tools/index.js';
import type { ApprovalMode } from './approval-mode.js';

/** The tools a session offers (tools/list), and the ones it refuses to run. */
export interface SessionToolList {
  listed: Tool[];
  /** Not offered in this mode; a call to one (from a stale list) is refused (call-runner.ts). */
  hidden: ReadonlySet<string>;
}

/** Read-only (--approve deny): the change tools are not offered at all. */
export function sessionToolList(
  definitions: EditTools['definitions'],
  approval: ApprovalMode,
): SessionToolList {
  const hidden = new Set(
    approval.mode === 'deny'
      ? definitions.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name)
      : [],
  );
  const listed: Tool[] = definitions
    .filter((tool) => !hidden.has(tool.name))
    .map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as Tool['inputSchema'],
      annotations: { title: tool.title, ...tool.annotations },
    }));
  return { listed, hidden };
}
