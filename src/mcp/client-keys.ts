/**
 * Keys that MCP clients add to every tool's arguments on their own: not the model's mistake, so not worth a
 * refused call and a lost turn. Gemini CLI adds `wait_for_previous` to every tool's schema, tells its
 * model to set it, and forwards it (issue #28).
 *
 * A known list, and only at the MCP layer: the library's execute still refuses every unknown key, and a
 * key a model made up or misspelled is still INVALID_INPUT (with a hint when it is close to a real one,
 * tools/input.ts). No editgate tool has a parameter of these names, so dropping one loses nothing.
 */
export const CLIENT_INJECTED_KEYS: ReadonlySet<string> = new Set(['wait_for_previous']);

/**
 * The arguments without the keys clients inject; `dropped` hears each key removed. Anything that is not a
 * plain object is returned as it is, for the tools to refuse or accept as they do.
 */
export function withoutClientKeys(args: unknown, dropped: (key: string) => void): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const record = args as Record<string, unknown>;
  if (!Object.keys(record).some((key) => CLIENT_INJECTED_KEYS.has(key))) return args;
  // Without a prototype: a `__proto__` key stays an ordinary key, which the tool's schema refuses.
  const kept: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(record)) {
    if (CLIENT_INJECTED_KEYS.has(key)) dropped(key);
    else kept[key] = value;
  }
  return kept;
}
