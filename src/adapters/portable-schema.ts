/** A JSON Schema object, as the tool definitions carry it. */
export type JsonSchemaObject = Record<string, unknown>;

// Keywords whose value is one subschema, a list of them, or a map of them. Only these are walked, so data
// inside `default`, `enum` or `examples` is never rewritten.
const ONE = ['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions'];

const isSchema = (value: unknown): value is JsonSchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The schema in the dialect every tool API accepts. zod writes draft-7, where a tuple is `items: [a, b]`;
 * OpenAI, Anthropic (draft 2020-12) and Gemini reject an array there with a 400 for the whole request, so a
 * tuple becomes one item schema with minItems/maxItems (the tool still validates positions itself). The
 * ±MAX_SAFE_INTEGER bounds zod adds to every integer say nothing to a model and are dropped.
 */
export function portableSchema(schema: JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = {};
  const tuple = Array.isArray(schema.items);
  for (const [key, value] of Object.entries(schema)) {
    if (tuple && (key === 'items' || key === 'additionalItems')) continue;
    if (ONE.includes(key) && isSchema(value)) out[key] = portableSchema(value);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map(portableOrSame);
    else if (MAP.includes(key) && isSchema(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, portableOrSame(sub)]));
    } else if ((key === 'minimum' || key === 'maximum') && isSafeIntegerBound(value)) {
      // dropped: see above
    } else out[key] = value;
  }
  if (Array.isArray(schema.items)) {
    out.items = tupleItems(schema.items, schema.additionalItems);
    // additionalItems false caps the length (zod also writes maxItems itself).
    if (schema.additionalItems === false) out.maxItems ??= schema.items.length;
  }
  return out;
}

function portableOrSame(value: unknown): unknown {
  return isSchema(value) ? portableSchema(value) : value;
}

function isSafeIntegerBound(value: unknown): boolean {
  return value === Number.MAX_SAFE_INTEGER || value === Number.MIN_SAFE_INTEGER;
}

/** `items: [a, b]` → `items: a` when the positions agree, else anyOf the distinct ones. */
function tupleItems(items: unknown[], rest: unknown): unknown {
  const parts = items.map(portableOrSame);
  if (isSchema(rest)) parts.push(portableSchema(rest));
  const distinct = [...new Map(parts.map((part) => [JSON.stringify(part), part])).values()];
  if (distinct.length === 0) return {};
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
}
