/**
 * Reading an agent's hook event, which is JSON from another program: the one way every adapter (and the
 * settings files) takes an object or a required string out of it, so a missing field is one clear error.
 */

/** `value` as an object of fields, or an empty one when it is not an object. */
export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** `value` as a string, or an error naming what is missing from whose event. */
export function requiredText(value: unknown, source: string, what: string): string {
  if (typeof value !== 'string') throw new Error(`${source} has no ${what}`);
  return value;
}
