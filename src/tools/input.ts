import type { z } from 'zod';
import { EditgateError } from '../core/errors.js';

/**
 * Parameter names models commonly use for the same thing, mapped to the canonical ones of DESIGN.md.
 * Models trained on different agents' tools send these; refusing them wastes a turn for nothing.
 */
const ALIASES: Record<string, string> = {
  path: 'file_path',
  file_name: 'file_path',
  filename: 'file_path',
  filePath: 'file_path',
  file: 'file_path',
  old_text: 'old_string',
  oldString: 'old_string',
  old_str: 'old_string',
  oldText: 'old_string',
  new_text: 'new_string',
  newString: 'new_string',
  new_str: 'new_string',
  newText: 'new_string',
  replaceAll: 'replace_all',
  shouldReplaceAll: 'replace_all',
  text: 'content',
  contents: 'content',
};

/** Per-tool aliases that would be wrong elsewhere (e.g. `text` is content for write_file only). */
const TOOL_ONLY: Record<string, string[]> = {
  text: ['write_file'],
  contents: ['write_file'],
};

export function normalizeAliases(tool: string, input: Record<string, unknown>): Record<string, unknown> {
  // Keys are data from a model: looked up as own properties only (`constructor` or `__proto__` is not an
  // alias), and copied into an object without a prototype, so `__proto__` stays an ordinary key that the
  // schema then refuses as unknown.
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(input)) {
    const canonical = Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
    const only = Object.hasOwn(TOOL_ONLY, key) ? TOOL_ONLY[key] : undefined;
    if (canonical && (!only || only.includes(tool))) {
      if (Object.hasOwn(input, canonical) || Object.hasOwn(out, canonical)) {
        throw new EditgateError(
          'INVALID_INPUT',
          `Both "${key}" and "${canonical}" were given; send only "${canonical}".`,
          { field: key },
        );
      }
      out[canonical] = value;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** A tool call's input as an object: accepts an object, or a JSON string of one (some harnesses send that). */
export function inputObject(input: unknown): Record<string, unknown> {
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new EditgateError(
        'INVALID_INPUT',
        'The tool input is a string that is not valid JSON; send a JSON object.',
      );
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new EditgateError('INVALID_INPUT', `The tool input must be a JSON object, not ${describe(value)}.`);
  }
  return value as Record<string, unknown>;
}

export function parseInput<T>(tool: string, schema: z.ZodType<T>, input: Record<string, unknown>): T {
  const normalized = normalizeAliases(tool, input);
  let parsed = schema.safeParse(normalized);
  if (!parsed.success) {
    const coerced = withStringBooleans(normalized, parsed.error.issues);
    if (coerced) parsed = schema.safeParse(coerced);
  }
  if (parsed.success) return parsed.data;
  // The same problem can be reported twice (an array's type and its length); say it once.
  const problems = [
    ...new Set(
      parsed.error.issues.map((issue) => {
        const where = issue.path.length > 0 ? issue.path.join('.') : 'input';
        const hint = issue.code === 'unrecognized_keys' ? closeKeyHint(issue.keys, schema) : '';
        return `${where}: ${issue.message}${hint}`;
      }),
    ),
  ].slice(0, 5);
  throw new EditgateError(
    'INVALID_INPUT',
    `Invalid arguments for ${tool}: ${problems.join('; ')}. Fix the arguments and call ${tool} again.`,
    { issues: parsed.error.issues.map((issue) => ({ path: issue.path, message: issue.message })) },
  );
}

/**
 * For unknown keys close to one of the tool's own (`file_pth`, `old_strings`): " (did you mean ...?)". Such a
 * key is still refused, never taken for the one it resembles: a guess could be wrong, and the model learns
 * the right name from the hint. Only top-level keys are compared (the parameters a tool lists).
 */
function closeKeyHint(keys: readonly string[], schema: z.ZodType): string {
  const shape = (schema as { shape?: unknown }).shape;
  if (!shape || typeof shape !== 'object') return '';
  const known = Object.keys(shape);
  const guesses = keys.flatMap((key) => {
    const close = known.find((name) => keysAreClose(key, name));
    return close ? [`"${close}" for "${key}"`] : [];
  });
  return guesses.length > 0 ? ` (did you mean ${guesses.join(', ')}?)` : '';
}

/** Same letters ignoring case and separators, or at most two edits apart for names of 4 or more letters. */
function keysAreClose(a: string, b: string): boolean {
  const bare = (key: string) => key.toLowerCase().replace(/[-_]/g, '');
  if (bare(a) === bare(b)) return true;
  return Math.min(a.length, b.length) >= 4 && editDistance(a, b, 2) <= 2;
}

/** Levenshtein distance between a and b, counted only up to limit + 1 (all a hint needs). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1));
    }
    previous = current;
  }
  return Math.min(previous[b.length]!, limit + 1);
}

/**
 * Some models send a boolean as a string (`"replace_all": "true"`). Where the schema wants a boolean, the
 * words true and false (any case) can only mean that, so they are taken as the boolean; anything else
 * ("yes", "1") is still refused. Returns a corrected copy, or undefined when there was nothing to correct.
 */
function withStringBooleans(
  input: Record<string, unknown>,
  issues: readonly z.core.$ZodIssue[],
): Record<string, unknown> | undefined {
  let copy: Record<string, unknown> | undefined;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || issue.expected !== 'boolean' || issue.path.length === 0) continue;
    const value = valueAt(input, issue.path);
    if (typeof value !== 'string' || !/^(true|false)$/i.test(value.trim())) continue;
    copy ??= structuredClone(input);
    const parent = valueAt(copy, issue.path.slice(0, -1)) as Record<PropertyKey, unknown>;
    parent[issue.path.at(-1)!] = value.trim().toLowerCase() === 'true';
  }
  return copy;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
