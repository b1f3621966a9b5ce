import { z } from 'zod';

/**
 * The JSON Schema of every tool's structuredContent. structuredContent is the library's ToolResult as is
 * ({ ok, message, details } or { ok: false, code, message, details }), so a program reading MCP results
 * and one calling createEditTools directly see the same shape.
 *
 * Detail objects are loose: they list what editgate sends today without refusing a field added later.
 */

const readDetails = z.looseObject({
  path: z.string().describe('Path relative to the workspace root'),
  lines: z.number().int().describe('Number of lines in the file'),
  complete: z.boolean().describe('Every line of the file has now been read (it may be edited)'),
  firstLine: z.number().int().optional(),
  lastLine: z.number().int().optional(),
  encoding: z.string().optional(),
});

const changeDetails = z.looseObject({
  tool: z.string(),
  path: z.string().describe('Path relative to the workspace root'),
  kind: z.enum(['create', 'modify', 'delete', 'noop']),
  added: z.number().int().describe('Lines added'),
  removed: z.number().int().describe('Lines removed'),
  replacements: z.number().int().optional(),
  tiers: z.array(z.string()).optional().describe('Matching tiers used when old_string was not exact'),
  unifiedDiff: z.string(),
  decision: z.string().optional().describe('once | file | all | policy | session'),
  decidedBy: z
    .string()
    .optional()
    .describe(
      'user (a person answered) | auto (approved without asking: see auto) | policy (see rule) | session (see grant)',
    ),
  rule: z
    .looseObject({ tool: z.string().optional(), path: z.string().optional(), action: z.string() })
    .optional()
    .describe('The policy rule that allowed the change'),
  grant: z.enum(['file', 'all']).optional().describe('The session grant that allowed the change'),
  auto: z.string().optional().describe('What approved without asking, e.g. --yes'),
  hash: z.string().optional().describe('Content hash of the file as written'),
  hookMessage: z.string().optional(),
  changeId: z.string().optional().describe('Preview mode: pass to apply_change to write the change'),
  changeHash: z
    .string()
    .optional()
    .describe("Preview mode: the change's short hash; apply_change names it with the file_path"),
  expiresAt: z.string().optional().describe('Preview mode: when changeId stops working (ISO 8601)'),
  written: z.boolean().describe('The file on disk was changed by this call'),
});

const failure = z.object({
  ok: z.literal(false),
  code: z.string().describe('Stable editgate error code: NOT_FOUND, AMBIGUOUS, STALE, OUTSIDE_ROOT, ...'),
  message: z.string().describe('What went wrong and what to do next (the same text as the content)'),
  details: z.looseObject({ tool: z.string().optional() }),
});

/** zod writes JavaScript's safe-integer range on every int; it says nothing here, so it is left out. */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if ((key === 'minimum' || key === 'maximum') && Math.abs(entry as number) === Number.MAX_SAFE_INTEGER)
      continue;
    out[key] = withoutSafeIntegerBounds(entry);
  }
  return out;
}

function resultSchema(details: z.ZodType): Record<string, unknown> {
  const success = z.object({
    ok: z.literal(true),
    message: z.string().describe('The result for the model (the same text as the content)'),
    details,
  });
  const schema = z.toJSONSchema(z.discriminatedUnion('ok', [success, failure]), {
    target: 'draft-7',
    io: 'output',
  }) as Record<string, unknown>;
  delete schema.$schema;
  // MCP wants `type: "object"` at the root; the branches say the rest.
  return { type: 'object', ...(withoutSafeIntegerBounds(schema) as Record<string, unknown>) };
}

const READ_RESULT = resultSchema(readDetails);
const CHANGE_RESULT = resultSchema(changeDetails);

/** The output schema for a tool: read_file has its own details; every change tool shares one shape. */
export function outputSchemaFor(tool: string): Record<string, unknown> {
  return tool === 'read_file' ? READ_RESULT : CHANGE_RESULT;
}
