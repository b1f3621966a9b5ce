import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServerAdapter } from './filesystem-adapter.js';
import { genericClass, genericReads } from './generic-shapes.js';
import { overrideClass, type ToolOverride } from './overrides.js';
import { schemaHash } from './schema-hash.js';
import type { ToolClass } from './tool-class.js';

export interface ClassifyOptions {
  /** The upstream server's name (serverInfo.name). */
  server: string;
  adapters: readonly ServerAdapter[];
  overrides: readonly ToolOverride[];
  /** Told when an adapter's tool has a schema other than the one it knows (and so is not used). */
  onSchemaChange?: (tool: string, adapter: ServerAdapter) => void;
}

/**
 * How the proxy treats one upstream tool, most specific first: the person's override, a built-in adapter
 * (only if the schema hash is the one it knows), a generic write shape, the server's read-only annotation,
 * and otherwise a card. Annotations are hints: one can only make a tool that looks like nothing editgate
 * knows go through unasked by saying it is read-only; nothing a server says turns a recognised write into
 * an unasked one.
 */
export function classifyTool(tool: Tool, options: ClassifyOptions): ToolClass {
  const override = overrideClass(options.overrides, options.server, tool.name);
  if (override) return override;
  const adapter = options.adapters.find((candidate) => candidate.server === options.server);
  const known = adapter?.tools[tool.name];
  if (adapter && known) {
    if (known.schemaHash === schemaHash(tool.inputSchema)) return known.class;
    options.onSchemaChange?.(tool.name, adapter);
  }
  const generic = genericClass(tool);
  if (generic) return generic;
  if (tool.annotations?.readOnlyHint === true) {
    return { kind: 'read-only', basis: 'the server marks it read-only', ...genericReads(tool) };
  }
  return {
    kind: 'card',
    basis: 'the server does not mark it read-only, and editgate does not know what it changes',
  };
}
