/**
 * The "proxy" section of editgate.config.json: what the person says about tools editgate cannot work out by
 * itself. It beats the built-in adapters and the generic shapes.
 *
 *   "proxy": { "tools": [
 *     { "tool": "save_note", "write": { "path": "file", "content": "body" } },
 *     { "server": "docs", "tool": "replace_text", "write": { "path": "file", "old": "find", "new": "with" } },
 *     { "tool": "apply_changes", "write": { "path": "file", "edits": "changes", "old": "from", "new": "to" } },
 *     { "tool": "apply_diff", "write": { "path": "target", "patch": "diff" } },
 *     { "tool": "lookup", "readOnly": true },
 *     { "tool": "render", "ask": true }
 *   ] }
 *
 * `write` names the arguments (the path must be absolute in each call, as for the generic shapes);
 * `readOnly` relays the tool without asking; `ask` shows a card for every call even if the server marks
 * the tool read-only. `server` (its name in its initialize result) limits an entry to one server.
 */
import { z } from 'zod';
import { EditgateError } from '../core/errors.js';
import { type ShapeKeys, shapedClass } from './generic-shapes.js';
import type { ToolClass } from './tool-class.js';

const writeSchema = z.union([
  z.strictObject({ path: z.string().min(1), content: z.string().min(1) }),
  z.strictObject({
    path: z.string().min(1),
    old: z.string().min(1),
    new: z.string().min(1),
    replaceAll: z.string().min(1).optional(),
  }),
  z.strictObject({
    path: z.string().min(1),
    edits: z.string().min(1),
    old: z.string().min(1),
    new: z.string().min(1),
  }),
  z.strictObject({ path: z.string().min(1), patch: z.string().min(1) }),
]);

const toolSchema = z
  .strictObject({
    server: z.string().min(1).optional(),
    tool: z.string().min(1),
    write: writeSchema.optional(),
    readOnly: z.literal(true).optional(),
    ask: z.literal(true).optional(),
  })
  .refine((entry) => [entry.write, entry.readOnly, entry.ask].filter((x) => x !== undefined).length === 1, {
    message: 'give exactly one of "write", "readOnly": true or "ask": true',
  });

const proxySchema = z.strictObject({ tools: z.array(toolSchema).optional() });

export type ToolOverride = z.infer<typeof toolSchema>;

/** The overrides in a config's "proxy" section (none when absent); INVALID_INPUT says what is wrong. */
export function parseOverrides(section: unknown, configFile = 'editgate.config.json'): ToolOverride[] {
  if (section === undefined) return [];
  const parsed = proxySchema.safeParse(section);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${['proxy', ...issue.path].join('.')}: ${issue.message}`);
    throw new EditgateError(
      'INVALID_INPUT',
      `The config file ${configFile} is invalid: ${problems.join('; ')}`,
    );
  }
  return parsed.data.tools ?? [];
}

function keysOf(write: NonNullable<ToolOverride['write']>): ShapeKeys {
  if ('content' in write) return { kind: 'content', path: write.path, content: write.content };
  if ('patch' in write) return { kind: 'patch', path: write.path, patch: write.patch };
  if ('edits' in write)
    return { kind: 'list', path: write.path, edits: write.edits, old: write.old, new: write.new };
  return { kind: 'pair', path: write.path, old: write.old, new: write.new, replaceAll: write.replaceAll };
}

/** The class an override gives a tool of `server`, or undefined when no entry is for it. */
export function overrideClass(
  overrides: readonly ToolOverride[],
  server: string,
  tool: string,
): ToolClass | undefined {
  const entry = overrides.find((o) => o.tool === tool && (o.server === undefined || o.server === server));
  if (!entry) return undefined;
  const basis = 'your entry for this tool in editgate.config.json';
  if (entry.readOnly) return { kind: 'read-only', basis };
  if (entry.ask) return { kind: 'card', basis };
  return shapedClass(keysOf(entry.write!), basis);
}
