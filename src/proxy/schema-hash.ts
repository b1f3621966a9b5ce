import { createHash } from 'node:crypto';

/** JSON with every object's keys sorted, so the same schema always gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonical(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A short hash of a tool's input schema. A built-in adapter knows a tool by its server, its name and this
 * hash: if a server changes the schema (a new argument, a renamed one), the hash changes and the adapter no
 * longer applies, rather than misreading the new arguments.
 */
export function schemaHash(schema: unknown): string {
  // Which JSON Schema draft a server's SDK names says nothing about the arguments.
  const { $schema: _draft, ...rest } = (schema ?? {}) as Record<string, unknown>;
  return createHash('sha256').update(canonical(rest)).digest('hex').slice(0, 16);
}
