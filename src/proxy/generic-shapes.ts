/**
 * Write tools recognised by the shape of their input schema, for servers editgate has no adapter for. A
 * shape applies only when every argument of the schema is one the shape knows (an unknown extra argument,
 * say `append` or `mode`, could change what the call does, so such a tool gets a card instead), and only to
 * absolute paths (which file a relative path names is the server's business).
 *
 * - whole content: a path and the new content (write_file, create_file, save...);
 * - old/new text: a path and one old/new pair (with an optional replace-all flag), or a list of pairs;
 * - patch: a path and a unified diff.
 *
 * The new content is worked out the plain way (UTF-8, exact replacements that must each find exactly one
 * place, a patch that must apply exactly); where that cannot be known, the call gets a card rather than a
 * guessed diff. After the write, the file is compared with what was shown in any case.
 */
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { expandHome } from './home-path.js';
import {
  type Args,
  CannotShow,
  type ReadTargets,
  type ToolClass,
  utf8Exactly,
  type WholeFileWriter,
  type WritePlan,
  type WriteShape,
} from './tool-class.js';
import { applyUnifiedPatch, PatchError, parseUnifiedPatch } from './unified-patch.js';

export const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'filepath',
  'file',
  'filename',
  'file_name',
  'fileName',
  'target_file',
  'targetFile',
  'absolute_path',
  'absolutePath',
];
const CONTENT_KEYS = ['content', 'contents', 'text', 'file_text', 'fileText', 'new_content', 'newContent'];
const PAIRS: Array<[string, string]> = [
  ['old_string', 'new_string'],
  ['oldString', 'newString'],
  ['old_str', 'new_str'],
  ['old_text', 'new_text'],
  ['oldText', 'newText'],
];
const REPLACE_ALL_KEYS = ['replace_all', 'replaceAll'];
const EDIT_LIST_KEYS = ['edits', 'changes', 'replacements'];
const PATCH_KEYS = ['patch', 'diff', 'unified_diff', 'unifiedDiff'];

/** Names that say a tool writes a whole file, and those that say it adds to one. */
const WRITES_WHOLE = /write|create|save|put|overwrite|replace/i;
const ADDS = /append|prepend|insert/i;

/** Where each argument goes, for one shape. */
export type ShapeKeys =
  | { kind: 'content'; path: string; content: string }
  | { kind: 'pair'; path: string; old: string; new: string; replaceAll?: string }
  | { kind: 'list'; path: string; edits: string; old: string; new: string }
  | { kind: 'patch'; path: string; patch: string };

interface ObjectSchema {
  properties: Record<string, { type?: unknown; items?: unknown }>;
  required: string[];
}

function objectSchema(schema: unknown): ObjectSchema | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const { properties, required } = schema as { properties?: unknown; required?: unknown };
  if (!properties || typeof properties !== 'object') return undefined;
  return {
    properties: properties as ObjectSchema['properties'],
    required: Array.isArray(required) ? required.filter((key) => typeof key === 'string') : [],
  };
}

const isString = (property: { type?: unknown } | undefined) => property?.type === 'string';

function pairIn(schema: ObjectSchema): [string, string] | undefined {
  return PAIRS.find(
    ([oldKey, newKey]) => isString(schema.properties[oldKey]) && isString(schema.properties[newKey]),
  );
}

/** Which shape a schema has, if any: all its arguments known, the path and the text ones required. */
export function shapeOf(tool: Pick<Tool, 'name' | 'inputSchema'>): ShapeKeys | undefined {
  const schema = objectSchema(tool.inputSchema);
  if (!schema) return undefined;
  const keys = Object.keys(schema.properties);
  const pathKey = PATH_KEYS.find((key) => isString(schema.properties[key]));
  if (!pathKey || !schema.required.includes(pathKey)) return undefined;
  const rest = keys.filter((key) => key !== pathKey);
  const required = (...names: string[]) => names.every((name) => schema.required.includes(name));

  if (rest.length === 1) {
    const [key] = rest as [string];
    if (CONTENT_KEYS.includes(key) && isString(schema.properties[key]) && required(key)) {
      if (WRITES_WHOLE.test(tool.name) && !ADDS.test(tool.name))
        return { kind: 'content', path: pathKey, content: key };
    }
    if (PATCH_KEYS.includes(key) && isString(schema.properties[key]) && required(key)) {
      return { kind: 'patch', path: pathKey, patch: key };
    }
    if (EDIT_LIST_KEYS.includes(key) && schema.properties[key]?.type === 'array' && required(key)) {
      const item = objectSchema(schema.properties[key]?.items);
      const pair = item && pairIn(item);
      if (
        item &&
        pair &&
        Object.keys(item.properties).length === 2 &&
        pair.every((name) => item.required.includes(name))
      ) {
        return { kind: 'list', path: pathKey, edits: key, old: pair[0], new: pair[1] };
      }
    }
    return undefined;
  }
  const pair = pairIn(schema);
  if (!pair || !required(...pair)) return undefined;
  const others = rest.filter((key) => !pair.includes(key));
  if (others.length === 0) return { kind: 'pair', path: pathKey, old: pair[0], new: pair[1] };
  const [flag] = others;
  if (
    others.length === 1 &&
    flag &&
    REPLACE_ALL_KEYS.includes(flag) &&
    schema.properties[flag]?.type === 'boolean'
  ) {
    return { kind: 'pair', path: pathKey, old: pair[0], new: pair[1], replaceAll: flag };
  }
  return undefined;
}

/** Valid UTF-8 text of a file, or CannotShow: a plain server would not round-trip anything else. */
function utf8Text(current: Buffer | null): string {
  if (current === null) throw new CannotShow('the file does not exist, so there is nothing to edit');
  const text = utf8Exactly(current);
  if (text === undefined) throw new CannotShow('the file is not UTF-8 text');
  return text;
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

/** One exact replacement, as every plain server would make it: found once, or all with replace-all. */
function replaceExactly(text: string, oldText: string, newText: string, all: boolean): string {
  if (oldText === '') throw new CannotShow('an empty old text does not name a place in the file');
  const count = occurrences(text, oldText);
  if (count === 0) throw new CannotShow('an old text does not occur in the file exactly as given');
  if (count > 1 && !all) {
    throw new CannotShow(`an old text occurs ${count} times, and servers differ on which one they replace`);
  }
  return text.split(oldText).join(newText);
}

function describe(keys: ShapeKeys): string {
  switch (keys.kind) {
    case 'content':
      return `its arguments' shape: a path (${keys.path}) and the whole new content (${keys.content})`;
    case 'pair':
      return `its arguments' shape: a path (${keys.path}) and old/new text (${keys.old}, ${keys.new})`;
    case 'list':
      return `its arguments' shape: a path (${keys.path}) and a list of old/new texts (${keys.edits})`;
    default:
      return `its arguments' shape: a path (${keys.path}) and a unified diff (${keys.patch})`;
  }
}

/** The absolute path a call names, or undefined for a relative one (the server decides what it means). */
function absoluteTarget(given: unknown): string | undefined {
  if (typeof given !== 'string') return undefined;
  const expanded = expandHome(given);
  return path.isAbsolute(expanded) ? path.resolve(expanded) : undefined;
}

function expectedFor(keys: ShapeKeys, args: Args): ((current: Buffer | null) => Buffer) | string {
  switch (keys.kind) {
    case 'content': {
      const content = args[keys.content];
      if (typeof content !== 'string') return `${keys.content} is not text`;
      const bytes = Buffer.from(content, 'utf8');
      return () => bytes;
    }
    case 'pair': {
      const [oldText, newText] = [args[keys.old], args[keys.new]];
      if (typeof oldText !== 'string' || typeof newText !== 'string')
        return 'the old or new text is not text';
      const all = keys.replaceAll !== undefined && args[keys.replaceAll] === true;
      return (current) => Buffer.from(replaceExactly(utf8Text(current), oldText, newText, all), 'utf8');
    }
    case 'list': {
      const edits = args[keys.edits];
      if (!Array.isArray(edits)) return `${keys.edits} is not a list`;
      const pairs = edits.map((edit) => [(edit as Args)?.[keys.old], (edit as Args)?.[keys.new]]);
      if (!pairs.every(([o, n]) => typeof o === 'string' && typeof n === 'string')) {
        return 'an edit is not a pair of texts';
      }
      return (current) => {
        let text = utf8Text(current);
        for (const [oldText, newText] of pairs as Array<[string, string]>) {
          text = replaceExactly(text, oldText, newText, false);
        }
        return Buffer.from(text, 'utf8');
      };
    }
    default: {
      const patch = args[keys.patch];
      if (typeof patch !== 'string') return `${keys.patch} is not text`;
      let hunks: ReturnType<typeof parseUnifiedPatch>;
      try {
        hunks = parseUnifiedPatch(patch);
      } catch (error) {
        return `the patch cannot be read (${(error as Error).message})`;
      }
      return (current) => {
        try {
          return Buffer.from(applyUnifiedPatch(current === null ? '' : utf8Text(current), hunks), 'utf8');
        } catch (error) {
          if (error instanceof PatchError)
            throw new CannotShow(`the patch does not apply exactly: ${error.message}`);
          throw error;
        }
      };
    }
  }
}

/** The write shape for a tool recognised by the shape of its schema. */
export function genericShape(keys: ShapeKeys, basis = describe(keys)): WriteShape {
  return {
    basis,
    async plan(args): Promise<WritePlan> {
      const target = absoluteTarget(args[keys.path]);
      if (target === undefined) {
        return {
          kind: 'card',
          note: `${JSON.stringify(args[keys.path])} is not an absolute path, and which file a relative path names is up to the server, so editgate cannot show a diff.`,
        };
      }
      const expected = expectedFor(keys, args);
      if (typeof expected === 'string')
        return { kind: 'card', note: `editgate cannot show a diff: ${expected}.`, path: target };
      return { kind: 'write', path: target, expected };
    },
  };
}

export function genericClass(tool: Pick<Tool, 'name' | 'inputSchema'>): ToolClass | undefined {
  const keys = shapeOf(tool);
  return keys ? shapedClass(keys) : undefined;
}

/** The write class of a tool whose arguments are `keys` (recognised by its schema, or named in the config). */
export function shapedClass(keys: ShapeKeys, basis?: string): ToolClass {
  const shape = genericShape(keys, basis);
  const writesWhole = keys.kind === 'content' ? contentWriter(keys) : undefined;
  return { kind: 'write', basis: shape.basis, shape, ...(writesWhole ? { writesWhole } : {}) };
}

/** A whole-content tool writes exact bytes as its content argument, taken as UTF-8 (expectedFor's rule). */
function contentWriter(keys: Extract<ShapeKeys, { kind: 'content' }>): WholeFileWriter {
  return (absolute, bytes) => {
    const content = utf8Exactly(bytes);
    return content === undefined ? undefined : { [keys.path]: absolute, [keys.content]: content };
  };
}

/**
 * The path a read-only tool of no known server reads, when its schema has a path argument (PATH_KEYS): one
 * inside a root (a relative one taken from the first root) is checked as editgate's own reads are; one
 * outside them is the server's business.
 */
export function genericReads(
  tool: Pick<Tool, 'inputSchema'>,
): { reads: (args: Args) => Promise<ReadTargets> } | undefined {
  const schema = objectSchema(tool.inputSchema);
  const pathKey = schema && PATH_KEYS.find((key) => isString(schema.properties[key]));
  if (pathKey === undefined) return undefined;
  return {
    reads: async (args) => {
      const given = args[pathKey];
      if (typeof given !== 'string' || given.trim() === '') return [];
      return [{ path: absoluteTarget(given) ?? given, scope: 'ifInside' }];
    },
  };
}
