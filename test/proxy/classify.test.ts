/**
 * How the proxy sorts a server's tools when it lists them: the person's overrides first, then built-in
 * adapters (only for the schema they know), generic write shapes (only when every argument is known), the
 * read-only annotation, and a card for the rest.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { classifyTool } from '../../src/proxy/classify.js';
import { FILESYSTEM_ADAPTER } from '../../src/proxy/filesystem-adapter.js';
import { shapeOf } from '../../src/proxy/generic-shapes.js';
import { parseOverrides } from '../../src/proxy/overrides.js';
import { schemaHash } from '../../src/proxy/schema-hash.js';

function tool(
  name: string,
  properties: Record<string, unknown>,
  required = Object.keys(properties),
  extra = {},
): Tool {
  return { name, inputSchema: { type: 'object', properties, required } as Tool['inputSchema'], ...extra };
}
const text = { type: 'string' };

describe('generic shapes', () => {
  it('a path and the whole content, for a tool whose name says it writes (not appends)', () => {
    expect(shapeOf(tool('write_file', { file_path: text, content: text }))).toEqual({
      kind: 'content',
      path: 'file_path',
      content: 'content',
    });
    expect(shapeOf(tool('create', { path: text, text }))).toMatchObject({ kind: 'content' });
    expect(shapeOf(tool('append_file', { path: text, content: text }))).toBeUndefined();
    expect(shapeOf(tool('search', { path: text, text }))).toBeUndefined();
  });

  it('old/new pairs, one (with a replace-all flag) or a list; a unified diff', () => {
    expect(shapeOf(tool('str_replace', { path: text, old_str: text, new_str: text }))).toEqual({
      kind: 'pair',
      path: 'path',
      old: 'old_str',
      new: 'new_str',
    });
    expect(
      shapeOf(
        tool('edit', { filePath: text, oldString: text, newString: text, replaceAll: { type: 'boolean' } }, [
          'filePath',
          'oldString',
          'newString',
        ]),
      ),
    ).toMatchObject({ kind: 'pair', replaceAll: 'replaceAll' });
    const edits = {
      type: 'array',
      items: {
        type: 'object',
        properties: { oldText: text, newText: text },
        required: ['oldText', 'newText'],
      },
    };
    expect(shapeOf(tool('multi', { path: text, edits }))).toEqual({
      kind: 'list',
      path: 'path',
      edits: 'edits',
      old: 'oldText',
      new: 'newText',
    });
    expect(shapeOf(tool('patch_file', { path: text, patch: text }))).toMatchObject({ kind: 'patch' });
  });

  it('not when an argument is unknown, the path or text is optional, or a type is wrong', () => {
    expect(shapeOf(tool('write_file', { path: text, content: text, mode: text }))).toBeUndefined();
    expect(shapeOf(tool('write_file', { path: text, content: text }, ['path']))).toBeUndefined();
    expect(shapeOf(tool('write_file', { path: { type: 'number' }, content: text }))).toBeUndefined();
    expect(
      shapeOf(
        tool('edit_file', { path: text, old_string: text, new_string: text, dryRun: { type: 'boolean' } }),
      ),
    ).toBeUndefined();
    expect(shapeOf(tool('write_file', {}))).toBeUndefined();
  });
});

describe('classifyTool', () => {
  const options = { server: 'some-server', adapters: [FILESYSTEM_ADAPTER], overrides: [] };

  it('a recognised shape is a write even if the server calls it read-only (annotations are hints)', () => {
    const writer = tool('write_file', { path: text, content: text }, undefined, {
      annotations: { readOnlyHint: true },
    });
    expect(classifyTool(writer, options).kind).toBe('write');
  });

  it('read-only by annotation passes; anything else not known is a card', () => {
    expect(
      classifyTool(tool('lookup', { q: text }, undefined, { annotations: { readOnlyHint: true } }), options),
    ).toMatchObject({
      kind: 'read-only',
      basis: 'the server marks it read-only',
    });
    expect(
      classifyTool(
        tool('lookup', { q: text }, undefined, { annotations: { destructiveHint: false } }),
        options,
      ).kind,
    ).toBe('card');
  });

  it('an adapter applies to its server only, and only for the schema hash it knows', () => {
    const moveSchema = {
      type: 'object',
      properties: { source: text, destination: text },
      required: ['source', 'destination'],
    };
    const move = {
      name: 'move_file',
      inputSchema: { ...moveSchema, $schema: 'http://json-schema.org/draft-07/schema#' },
    } as Tool;
    const changes: string[] = [];
    const fs = {
      ...options,
      server: 'secure-filesystem-server',
      onSchemaChange: (name: string) => changes.push(name),
    };
    expect(classifyTool(move, fs)).toMatchObject({
      kind: 'card',
      basis: expect.stringContaining('built-in adapter'),
    });
    expect(changes).toEqual([]);
    expect(classifyTool(move, options)).toMatchObject({
      kind: 'card',
      basis: expect.stringContaining('does not mark it'),
    });
    const changed = {
      ...move,
      inputSchema: {
        ...moveSchema,
        properties: { ...moveSchema.properties, overwrite: { type: 'boolean' } },
      },
    } as Tool;
    expect(classifyTool(changed, fs)).toMatchObject({
      kind: 'card',
      basis: expect.not.stringContaining('adapter'),
    });
    expect(changes).toEqual(['move_file']);
  });

  it('an override beats everything, and may be limited to one server', () => {
    const overrides = parseOverrides({
      tools: [
        { tool: 'lookup', ask: true },
        { server: 'other', tool: 'write_file', readOnly: true },
        { tool: 'put', write: { path: 'where', content: 'what' } },
      ],
    });
    const readOnly = tool('lookup', { q: text }, undefined, { annotations: { readOnlyHint: true } });
    expect(classifyTool(readOnly, { ...options, overrides }).kind).toBe('card');
    expect(
      classifyTool(tool('write_file', { path: text, content: text }), { ...options, overrides }).kind,
    ).toBe('write');
    expect(
      classifyTool(tool('write_file', { path: text, content: text }), {
        ...options,
        server: 'other',
        overrides,
      }).kind,
    ).toBe('read-only');
    expect(
      classifyTool(tool('put', { where: text, what: text, extra: text }), { ...options, overrides }).kind,
    ).toBe('write');
  });
});

describe('parseOverrides', () => {
  it('says what is wrong, naming the config file', () => {
    expect(() => parseOverrides({ tools: [{ tool: 'x' }] }, 'cfg.json')).toThrow(
      /cfg\.json is invalid: proxy\.tools\.0: give exactly one of "write", "readOnly": true or "ask": true/,
    );
    expect(() => parseOverrides({ tools: [{ tool: 'x', write: { path: 'p' } }] })).toThrow(
      /proxy\.tools\.0\.write/,
    );
    expect(() => parseOverrides({ tool: [] })).toThrow(/proxy: Unrecognized key/);
    expect(parseOverrides(undefined)).toEqual([]);
  });
});

describe('schemaHash', () => {
  it('is the same whatever the key order or the JSON Schema draft named, and changes with any argument', () => {
    const a = { type: 'object', properties: { a: text, b: text } };
    const b = {
      properties: { b: text, a: text },
      type: 'object',
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    };
    expect(schemaHash(a)).toBe(schemaHash(b));
    expect(schemaHash(a)).not.toBe(schemaHash({ ...a, required: ['a'] }));
  });
});
